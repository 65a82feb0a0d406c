import { sql, type SQL } from 'drizzle-orm';
import { currentDb, type DbOrTx } from '../../platform/db.js';
import type { ScopedPlace } from './scope.queries.js';

/**
 * One page of a feed, ranked, read from indexes (README, Feeds).
 *
 * A post's `rank_score` (migration 0012) is its creation time in epoch milliseconds plus an engagement boost; it
 * never decays and only grows. A feed item's rank is `rank_score - penalty`, the penalty being its place's
 * distance from the caller (scope.queries.ts) or FAR_PENALTY for the general feed's far tier. Items are
 * ordered by (rank DESC, id DESC) and a page continues strictly below the last item of the page before
 * (a keyset cursor), inside a snapshot: posts created after the snapshot began are left for the next page 1.
 *
 * Per place, `(rank_score - penalty, id) < (cursor_rank, cursor_id)` is `(rank_score, id) < (cursor_rank +
 * penalty, cursor_id)`, exact in integers, so each place is one range read of posts_location_rank_idx
 * (LIMIT n rows each), and the merge of at most places × n rows is sorted in memory. The far tier is one
 * range read of posts_rank_idx that skips the near places' posts.
 */
/** A day of recency, in rank milliseconds. */
export const FAR_PENALTY = 24 * 3600 * 1000;

export interface RankKey {
  rank: number;
  id: string;
}

export interface RankQuery {
  places: ScopedPlace[];
  /** Also every other location post, FAR_PENALTY below (the general feed). */
  everything: boolean;
  snapshotAt: Date;
  after: RankKey | null;
  /** Items to skip after the cursor (a jump to a page whose previous page was not read). */
  skip: number;
  /** Items wanted after the skipped ones. */
  take: number;
}

export interface RankedItem {
  id: string;
  rank: number;
}

export interface RankedPage {
  items: RankedItem[];
  /** Where the reader lives now, read in the same statement (feeds.service.ts checks its guess with it). */
  home: { id: string; name: string } | null;
}

export async function rankedPage(q: RankQuery, viewerId: string, db: DbOrTx = currentDb()): Promise<RankedPage> {
  const need = q.skip + q.take;
  const snapshot = q.snapshotAt.toISOString();
  const below = (penalty: SQL): SQL =>
    q.after ? sql`AND (p.rank_score, p.id) < (${q.after.rank}::bigint + ${penalty}, ${q.after.id}::uuid)` : sql``;
  const parts: SQL[] = [];
  if (need > 0 && q.places.length) {
    parts.push(sql`
      SELECT c.id, c.rank FROM unnest(${sql.param(q.places.map((p) => p.locationId))}::uuid[], ${sql.param(q.places.map((p) => p.penalty))}::bigint[]) AS n(location_id, penalty)
      CROSS JOIN LATERAL (
        SELECT p.id, p.rank_score - n.penalty AS rank FROM posts p
        WHERE p.location_id = n.location_id AND p.created_at <= ${snapshot}::timestamptz ${below(sql`n.penalty`)}
        ORDER BY p.rank_score DESC, p.id DESC
        LIMIT ${need}
      ) c`);
  }
  if (need > 0 && q.everything) {
    const near = sql.param(q.places.map((p) => p.locationId));
    parts.push(sql`
      SELECT f.id, f.rank FROM (
        SELECT p.id, p.rank_score - ${FAR_PENALTY}::bigint AS rank FROM posts p
        WHERE p.location_id IS NOT NULL AND p.location_id <> ALL(${near}::uuid[]) AND p.created_at <= ${snapshot}::timestamptz
          ${below(sql`${FAR_PENALTY}::bigint`)}
        ORDER BY p.rank_score DESC, p.id DESC
        LIMIT ${need}
      ) f`);
  }
  const page = parts.length
    ? sql`SELECT id, rank FROM (${sql.join(parts, sql` UNION ALL `)}) ranked ORDER BY rank DESC, id DESC LIMIT ${q.take} OFFSET ${q.skip}`
    : sql`SELECT NULL::uuid AS id, NULL::bigint AS rank WHERE false`;
  const { rows } = await db.execute<{ items: Array<{ id: string; rank: number }>; home: { id: string; name: string } | null }>(sql`
    WITH page AS MATERIALIZED (${page})
    SELECT (SELECT coalesce(json_agg(json_build_object('id', id, 'rank', rank) ORDER BY rank DESC, id DESC), '[]'::json) FROM page) AS items,
           (SELECT json_build_object('id', l.id, 'name', l.name) FROM users u JOIN locations l ON l.id = u.location_id WHERE u.id = ${viewerId}::uuid) AS home`);
  return { items: rows[0].items.map((r) => ({ id: r.id, rank: Number(r.rank) })), home: rows[0].home };
}
