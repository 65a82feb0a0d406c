import { z } from 'zod';
import { zPaginated } from '../../core/response-schemas.js';
import { zPostBody, zSharedProduct, zSharedStore } from '../posts/posts.serializer.js';
import { zCommentBody } from '../comments/comments.serializer.js';
import { zUserSummary } from '../users/users.serializer.js';
import { zCommunitySummary } from '../communities/communities.serializer.js';

export const SEARCH_TYPE_NAMES = ['posts', 'comments', 'users', 'stores', 'products', 'communities', 'places', 'tags'] as const;
export type SearchType = (typeof SEARCH_TYPE_NAMES)[number];

const zHighlights = z
  .array(z.tuple([z.number().int(), z.number().int()]))
  .describe('[start, end) offsets into `snippet` (UTF-16 code units, as JavaScript strings index) of the words that matched; no markup anywhere');
const zMatch = {
  snippet: z.string().describe('Plain text around the match, at most 200 characters'),
  highlights: zHighlights,
};

export const zPostHit = zPostBody.extend(zMatch).meta({ id: 'PostSearchHit' });
export const zCommentHit = zCommentBody.extend(zMatch).meta({ id: 'CommentSearchHit' });
export const zPlaceHit = z
  .object({
    id: z.string(),
    name: z.string(),
    city: z.string().nullable(),
    neighbourhood: z.string().nullable(),
    latitude: z.number().nullable().describe("The place's published centre"),
    longitude: z.number().nullable(),
    total_users: z.number().int(),
  })
  .meta({ id: 'PlaceSearchHit' });
export const zTagHit = z.object({ tag: z.string(), posts_count: z.number().int() }).meta({ id: 'TagSearchHit' });

const hits = { posts: zPostHit, comments: zCommentHit, users: zUserSummary, stores: zSharedStore, products: zSharedProduct, communities: zCommunitySummary, places: zPlaceHit, tags: zTagHit };
const best = <T extends z.ZodType>(item: T) => z.object({ count: z.number().int(), results: z.array(item) });

export const zSearchAll = z
  .object({
    posts: best(zPostHit),
    comments: best(zCommentHit),
    users: best(zUserSummary),
    stores: best(zSharedStore),
    products: best(zSharedProduct),
    communities: best(zCommunitySummary),
    places: best(zPlaceHit),
    tags: best(zTagHit),
  })
  .meta({ id: 'SearchAll', description: 'Without `type`: each kind with its count and its best 5' });

export const zSearchAnswer = z.union([zSearchAll, ...SEARCH_TYPE_NAMES.map((t) => zPaginated(hits[t]))] as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]]);

export const zTrendingTag = z.object({ tag: z.string(), posts_count: z.number().int(), people_count: z.number().int() }).meta({ id: 'TrendingTag' });
export const zTrendingTags = z.object({ location_id: z.string(), results: z.array(zTrendingTag) }).meta({ id: 'TrendingTags' });
