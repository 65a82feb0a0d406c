import { z } from 'zod';
import type { RequestContext } from '../../core/context.js';
import type { StoreRow } from '../../models/index.js';
import { mediaUrl } from '../users/users.serializer.js';

/** A store row with what its shape shows: the owner's names and the location's name. */
export interface StoreWithRelations extends StoreRow {
  owner: { username: string; displayName: string };
  location: { id: string; name: string } | null;
  community: { id: string; name: string } | null;
}

export const zStoreBody = z
  .object({
    id: z.string(),
    name: z.string(),
    owner: z.object({ username: z.string(), display_name: z.string() }),
    slug: z.string(),
    description: z.string(),
    is_verified: z.boolean(),
    social_url: z.string(),
    latitude: z.number().nullable(),
    longitude: z.number().nullable(),
    location: z.object({ id: z.string(), name: z.string() }).nullable(),
    community: z.object({ id: z.string(), name: z.string() }).nullable(),
    logo: z.string().nullable(),
    banner: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Store' });
export type StoreBody = z.infer<typeof zStoreBody>;

export function serializeStore(s: StoreWithRelations, ctx: Pick<RequestContext, 'baseUrl'>): StoreBody {
  return {
    id: s.id,
    name: s.name,
    owner: { username: s.owner.username, display_name: s.owner.displayName },
    slug: s.slug,
    description: s.description,
    is_verified: s.isVerified,
    social_url: s.socialUrl,
    latitude: s.latitude,
    longitude: s.longitude,
    location: s.location,
    community: s.community,
    logo: mediaUrl(s.logo, ctx.baseUrl),
    banner: mediaUrl(s.banner, ctx.baseUrl),
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}
