import { z } from 'zod';
import type { RequestContext } from '../../core/context.js';
import { mediaUrl, serializeUserSummary, zUserSummary } from '../users/users.serializer.js';
import type { CommunityMember, CommunityWithRelations } from './communities.queries.js';

const zRef = z.object({ id: z.string(), name: z.string() });

/**
 * The community as lists, feed suggestions and summaries show it (the contract's fields). Posts embed it
 * through `loadCommunitySummaries` (summaries.ts).
 */
export const zCommunitySummary = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    avatar: z.string().nullable(),
    members_count: z.number().int(),
    posts_count: z.number().int(),
    category: zRef,
  })
  .meta({ id: 'CommunitySummary' });
export type CommunitySummary = z.infer<typeof zCommunitySummary>;

/** The full community object (lists and detail); `is_member` is the caller's own membership. */
export const zCommunityBody = zCommunitySummary
  .extend({
    banner: z.string().nullable(),
    location: zRef.nullable(),
    owner: zUserSummary,
    is_member: z.boolean().describe("Whether the caller is a member"),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Community' });
export type CommunityBody = z.infer<typeof zCommunityBody>;

export function serializeCommunitySummary(c: CommunityWithRelations, ctx: Pick<RequestContext, 'baseUrl'>): CommunitySummary {
  return {
    id: c.id,
    name: c.name,
    description: c.description,
    avatar: mediaUrl(c.avatar, ctx.baseUrl),
    members_count: c.membersCount,
    posts_count: c.postsCount,
    category: c.category,
  };
}

export function serializeCommunity(c: CommunityWithRelations, ctx: Pick<RequestContext, 'baseUrl'>, isMember: boolean): CommunityBody {
  return {
    ...serializeCommunitySummary(c, ctx),
    banner: mediaUrl(c.banner, ctx.baseUrl),
    location: c.location,
    owner: serializeUserSummary(c.owner, ctx),
    is_member: isMember,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

export const zCommunityMember = z
  .object({ user: zUserSummary, role: z.enum(['owner', 'member']), joined_at: z.string() })
  .meta({ id: 'CommunityMember' });

export function serializeMember(m: CommunityMember, ctx: Pick<RequestContext, 'baseUrl'>): z.infer<typeof zCommunityMember> {
  return { user: serializeUserSummary(m.user, ctx), role: m.role, joined_at: m.joinedAt.toISOString() };
}

export const zCommunityCategory = z.object({ id: z.string(), name: z.string(), group: zRef }).meta({ id: 'CommunityCategory' });
