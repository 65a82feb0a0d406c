import { z } from 'zod';
import type { AuthUser, RequestContext } from '../../core/context.js';
import { platform } from '../../platform/index.js';
import { parseImageKey, variantKey, type ImageVariantName } from '../../core/media/media-names.js';
import type { UserWithRelations } from './users.queries.js';

const zUserRef = (description: string) => z.object({ id: z.string(), name: z.string(), description: z.string() }).describe(description);

/**
 * The contract's user object (latitude/longitude never leave the service). `email` is present only for
 * the user themself and for staff (DESIGN.md section 7); every other viewer gets the object without the key.
 */
export const zUserBody = z
  .object({
    id: z.string(),
    email: z.string().optional().describe('Only for the user themself and for staff; absent for everyone else.'),
    username: z.string(),
    display_name: z.string(),
    is_verified: z.boolean(),
    bio: z.string(),
    profile_picture: z.string().nullable(),
    website: z.string(),
    relationship_status: z.string().nullable(),
    banner: z.string().nullable(),
    location: z.object({ id: z.string(), name: z.string() }).nullable(),
    store: zUserRef('The store the user owns').nullable(),
    owned_communities: z.array(zUserRef('A community the user owns')),
    created_at: z.string(),
    updated_at: z.string(),
    discoverable: z.boolean().optional().describe('Whether search finds the person by name, and their posts and comments (default true). Only for the user themself and for staff.'),
  })
  .meta({ id: 'User' });
export type UserBody = z.infer<typeof zUserBody>;

/** The short user shape of search results and of users embedded in other resources. */
export const zUserSummary = z.object({ id: z.string(), username: z.string(), display_name: z.string(), profile_picture: z.string().nullable() }).meta({ id: 'UserSummary' });

export const mediaUrl = (key: string | null | undefined, baseUrl: string): string | null => (key ? platform.storage.url(key, baseUrl) : null);

/**
 * What a client needs to lay an image out before its bytes arrive, and the sizes to fetch (core/media/media-names.ts).
 * Every image URL of the API carries the same in its name; items whose shape is ours (a post's media, a product's
 * images) also carry it as fields. An image stored by an older release, before `npm run media:reprocess`, has no
 * size or placeholder, and its variants are the image itself.
 */
export const zImageDetails = z.object({
  width: z.number().int().nullable().describe('Width in pixels, upright, as stored (at most 4096)'),
  height: z.number().int().nullable().describe('Height in pixels'),
  placeholder: z.string().nullable().describe('ThumbHash of the image, base64url: decode it to paint a blurred preview at once'),
  thumbnail: z.string().describe('WebP, longest side at most 320 px: lists, feeds, avatars'),
  display: z.string().describe('WebP, longest side at most 1280 px: a post or product opened on a phone'),
});

export function imageDetails(key: string, baseUrl: string): z.infer<typeof zImageDetails> {
  const named = parseImageKey(key);
  const variant = (name: ImageVariantName) => mediaUrl(variantKey(key, name) ?? key, baseUrl)!;
  return { width: named?.width ?? null, height: named?.height ?? null, placeholder: named?.placeholder ?? null, thumbnail: variant('thumbnail'), display: variant('display') };
}

/** Who is looking: the request's caller (null: anonymous) and the base of absolute URLs. */
export type ViewerContext = Pick<RequestContext, 'baseUrl'> & { user: Pick<AuthUser, 'id' | 'isStaff' | 'isAdmin'> | null };

export const maySeeEmailOf = (userId: string, viewer: ViewerContext['user']): boolean =>
  Boolean(viewer && (viewer.id === userId || viewer.isStaff || viewer.isAdmin));

/** A user as `ctx`'s caller may see it. */
export function serializeUser(user: UserWithRelations, ctx: ViewerContext): UserBody {
  return userBody(user, ctx.baseUrl, maySeeEmailOf(user.id, ctx.user));
}

/**
 * The caller's own user object, for answers that are the account itself (register, login) where the
 * request carries no authenticated user yet.
 */
export function serializeOwnUser(user: UserWithRelations, ctx: Pick<RequestContext, 'baseUrl'>): UserBody & { email: string } {
  return userBody(user, ctx.baseUrl, true) as UserBody & { email: string };
}

function userBody(user: UserWithRelations, baseUrl: string, withEmail: boolean): UserBody {
  const ctx = { baseUrl };
  return {
    id: user.id,
    ...(withEmail ? { email: user.email } : {}),
    username: user.username,
    display_name: user.displayName,
    is_verified: user.isVerified,
    bio: user.bio,
    profile_picture: mediaUrl(user.profilePicture, ctx.baseUrl),
    website: user.website,
    relationship_status: user.relationshipStatus,
    banner: mediaUrl(user.banner, ctx.baseUrl),
    location: user.location,
    store: user.store,
    owned_communities: user.ownedCommunities,
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
    ...(withEmail ? { discoverable: user.discoverable } : {}),
  };
}

/** The short user shape used in search results and embedded in other resources. */
export function serializeUserSummary(user: { id: string; username: string; displayName: string; profilePicture: string | null }, ctx: Pick<RequestContext, 'baseUrl'>): z.infer<typeof zUserSummary> {
  return { id: user.id, username: user.username, display_name: user.displayName, profile_picture: mediaUrl(user.profilePicture, ctx.baseUrl) };
}
