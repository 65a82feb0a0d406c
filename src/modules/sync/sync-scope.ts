import { sql } from 'drizzle-orm';
import type { AuthedContext } from '../../core/context.js';
import { findChannel } from '../../core/channels.js';
import { currentDb } from '../../platform/db.js';
import { canViewCommunityPosts } from '../policy/post-visibility.js';

export interface SyncRooms {
  locationIds: string[];
  communityIds: string[];
}

/**
 * The rooms whose posts a sync covers: the caller's own location and communities, the socket's `location` and
 * `community` subscriptions (checked when they were made, and again when rights change), and the ids the client
 * names (REST has no subscriptions), each checked exactly as `subscribe` checks it (404 unknown, 403 not allowed).
 */
export async function syncRooms(ctx: AuthedContext, named: { locations?: string[]; communities?: string[] }): Promise<SyncRooms> {
  const locations = new Set<string>();
  const communities = new Set<string>();
  for (const [channel, ids, into] of [
    ['location', named.locations ?? [], locations],
    ['community', named.communities ?? [], communities],
  ] as const) {
    const definition = findChannel(channel);
    for (const id of ids) {
      if (into.has(id)) continue;
      await definition!.authorize(id, ctx);
      into.add(id);
    }
  }
  for (const s of ctx.subscriptions ?? []) {
    if (s.channel === 'location') locations.add(s.id);
    if (s.channel === 'community') communities.add(s.id);
  }
  const own = await currentDb().execute<{ kind: 'location' | 'community'; id: string }>(sql`
    SELECT 'location' AS kind, location_id AS id FROM users WHERE id = ${ctx.user.id} AND location_id IS NOT NULL
    UNION ALL
    SELECT 'community', community_id FROM community_members WHERE user_id = ${ctx.user.id}`);
  for (const r of own.rows) (r.kind === 'location' ? locations : communities).add(r.id);
  // Named ids went through the channel's check above; subscriptions and memberships are held to the same one rule
  // here, so a community whose posts the caller may not read is never synced, however it got into the set.
  const readable = [...communities].filter((id) => canViewCommunityPosts(ctx.user, id));
  return { locationIds: [...locations].sort(), communityIds: readable.sort() };
}
