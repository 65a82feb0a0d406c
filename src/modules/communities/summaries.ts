import { serverBaseUrl } from '../../core/server-base-url.js';
import { findCommunitiesByIds, isMember } from './communities.queries.js';
import { serializeCommunitySummary, type CommunitySummary } from './communities.serializer.js';

export type { CommunitySummary } from './communities.serializer.js';

/**
 * What other modules (posts: shared communities, feed suggestions) embed of communities, for many ids in one
 * query. Ids of communities that do not exist (deleted communities are gone: their rows are deleted) are
 * absent from the map. `baseUrl` is the base of the avatar URL: the caller's own answers pass `ctx.baseUrl`;
 * the default, the server's base, is the one for pushed payloads.
 */
export async function loadCommunitySummaries(ids: string[], baseUrl: string = serverBaseUrl()): Promise<Map<string, CommunitySummary>> {
  const rows = await findCommunitiesByIds([...new Set(ids)]);
  return new Map(rows.map((c) => [c.id, serializeCommunitySummary(c, { baseUrl })]));
}

/** Whether `userId` is a member (the owner is one) of the community. Runs in the current transaction if any. */
export async function isCommunityMember(communityId: string, userId: string): Promise<boolean> {
  return isMember(communityId, userId);
}
