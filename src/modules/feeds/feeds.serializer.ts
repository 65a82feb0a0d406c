import { z } from 'zod';
import { zPostBody } from '../posts/posts.serializer.js';
import { zCommunitySummary } from '../communities/communities.serializer.js';

/** The feeds' answers (contract, Posts and feeds), for the OpenAPI document and the tests that check it. */
const zLocationInfo = z.object({ name: z.string(), location_id: z.string() }).meta({ id: 'FeedLocationInfo' });
const zEndpoints = z.array(z.string()).describe('Enhancement paths for the client to call in parallel');

export const zNeighbourhoodFeed = z
  .object({
    items: z.array(zPostBody),
    has_more: z.boolean(),
    feed_type: z.literal('neighbourhood'),
    location_info: zLocationInfo,
    enhancement_endpoints: zEndpoints,
  })
  .meta({ id: 'NeighbourhoodFeed' });

export const zGeneralFeed = z
  .object({
    items: z.array(zPostBody),
    has_more: z.boolean(),
    feed_type: z.literal('general'),
    enhancement_endpoints: zEndpoints,
    location_hint: z
      .object({ message: z.string(), action: z.literal('update_location') })
      .optional()
      .describe('Only for a caller without a location: the feed then shows posts from everywhere'),
  })
  .meta({ id: 'GeneralFeed' });

export const zLocationFeed = z
  .object({
    items: z.array(zPostBody),
    has_more: z.boolean(),
    feed_type: z.literal('location_specific'),
    can_post: z.boolean().describe('The caller lives in this location'),
    location_info: zLocationInfo,
    enhancement_endpoints: zEndpoints,
  })
  .meta({ id: 'LocationFeed' });

const enhancement = <T extends z.ZodType>(type: string, item: T, id: string) =>
  z.object({ type: z.literal(type), items: z.array(item), inject_at_positions: z.array(z.number().int()), title: z.string() }).meta({ id });

export const zUserSuggestion = z.object({ id: z.string(), username: z.string(), display_name: z.string(), profile_picture: z.string().nullable(), bio: z.string() });
export const zUsersEnhancement = enhancement('users', zUserSuggestion, 'UsersEnhancement');

export const zStoreSuggestion = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  logo: z.string().nullable(),
  location_name: z.string().nullable(),
  owner: z.object({ username: z.string(), display_name: z.string() }),
});
export const zStoresEnhancement = enhancement('stores', zStoreSuggestion, 'StoresEnhancement');
export const zCommunitiesEnhancement = enhancement('communities', zCommunitySummary, 'CommunitiesEnhancement');
