import { createHash } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { currentDb } from '../../platform/db.js';
import { platform } from '../../platform/index.js';
import { postColumns, type PostSqlRow } from '../posts/posts.queries.js';
import { areaPlacesSql, neighbourhoodPlacesSql, type PlaceHead, type ScopedPlace } from './scope.queries.js';

/**
 * One page of a feed, ranked from indexes, with its posts, in one statement (README, Feeds).
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
 *
 * The same statement reads where the reader lives now, the places around it when the page starts a snapshot
 * (the GiST index on locations.center), and the shown posts with their author, place name and the reader's
 * like and bookmark (posts.queries.ts postColumns): a page is one round trip, plus one per kind of
 * attachment present (media, polls, audio). On a server database it is a named prepared statement, so it is
 * planned once per connection and shape rather than on every page.
 */
/** A day of recency, in rank milliseconds. */
export const FAR_PENALTY = 24 * 3600 * 1000;

export interface RankKey {
  rank: number;
  id: string;
}

/** The places a page reads: a snapshot's, or those around where the reader lives now. */
export type PlaceSource = { places: ScopedPlace[] } | { around: 'neighbourhood' | 'area' };

export interface PageQuery {
  source: PlaceSource;
  /** Also every other location post, FAR_PENALTY below (the general feed). */
  everything: boolean;
  snapshotAt: Date;
  after: RankKey | null;
  /** Items to skip after the cursor (a jump to a page whose previous page was not read). */
  skip: number;
  /** Items ranked after the skipped ones (the page size + 1, to know whether more follow). */
  take: number;
  /** How many of them are shown, i.e. have their post read. */
  show: number;
  /** Also read this place (the location feed): `place` is null when it does not exist. */
  placeId?: string;
}

export interface RankedItem {
  id: string;
  rank: number;
}

export interface FeedPageRows {
  /** Up to `take` ranked items. */
  items: RankedItem[];
  /** The posts of the first `show` items, in order, as postColumns reads them. */
  posts: PostSqlRow[];
  /** Where the reader lives now. */
  home: PlaceHead | null;
  /** The places ranked: the source's, or those found around the reader's home. */
  places: ScopedPlace[];
  place: PlaceHead | null;
}

type PageRow = Partial<PostSqlRow> & {
  home_id: string | null;
  home_name: string | null;
  place_name?: string | null;
  place_ids: string[] | null;
  place_penalties: Array<number | string> | null;
  ranked_id: string | null;
  ranked_rank: number | string | null;
  ranked_n: number | string | null;
};

export async function feedPageRows(q: PageQuery, viewerId: string): Promise<FeedPageRows> {
  const need = q.skip + q.take;
  const snapshot = q.snapshotAt.toISOString();
  const below = (penalty: SQL): SQL =>
    q.after ? sql`AND (p.rank_score, p.id) < (${q.after.rank}::bigint + ${penalty}, ${q.after.id}::uuid)` : sql``;
  const places =
    'places' in q.source
      ? sql`SELECT n.location_id, n.penalty FROM unnest(${sql.param(q.source.places.map((p) => p.locationId))}::uuid[], ${sql.param(q.source.places.map((p) => p.penalty))}::bigint[]) AS n(location_id, penalty)`
      : q.source.around === 'neighbourhood'
        ? neighbourhoodPlacesSql(sql`home`)
        : areaPlacesSql(sql`home`);
  const parts: SQL[] = [
    sql`
      SELECT c.id, c.rank FROM places n
      CROSS JOIN LATERAL (
        SELECT p.id, p.rank_score - n.penalty AS rank FROM posts p
        WHERE p.location_id = n.location_id AND p.created_at <= ${snapshot}::timestamptz ${below(sql`n.penalty`)}
        ORDER BY p.rank_score DESC, p.id DESC
        LIMIT ${need}
      ) c`,
  ];
  if (q.everything) {
    parts.push(sql`
      SELECT f.id, f.rank FROM (
        SELECT p.id, p.rank_score - ${FAR_PENALTY}::bigint AS rank FROM posts p
        WHERE p.location_id IS NOT NULL AND p.location_id <> ALL(ARRAY(SELECT location_id FROM places)) AND p.created_at <= ${snapshot}::timestamptz
          ${below(sql`${FAR_PENALTY}::bigint`)}
        ORDER BY p.rank_score DESC, p.id DESC
        LIMIT ${need}
      ) f`);
  }
  const statement = sql`
    WITH home AS (
      SELECT l.id, l.name, l.center, l.estimated_radius, l.city, l.state, l.country
      FROM users u JOIN locations l ON l.id = u.location_id WHERE u.id = ${viewerId}::uuid
    ),
    places AS MATERIALIZED (${places}),
    ranked AS MATERIALIZED (
      SELECT r.id, r.rank, row_number() OVER (ORDER BY r.rank DESC, r.id DESC) AS n FROM (
        SELECT id, rank FROM (${sql.join(parts, sql` UNION ALL `)}) m ORDER BY rank DESC, id DESC LIMIT ${q.take} OFFSET ${q.skip}
      ) r
    )
    SELECT h.id AS home_id, h.name AS home_name,
           ${q.placeId ? sql`(SELECT name FROM locations WHERE id = ${q.placeId}::uuid) AS place_name,` : sql``}
           CASE WHEN r.n IS NULL OR r.n = 1 THEN (SELECT array_agg(location_id) FROM places) END AS place_ids,
           CASE WHEN r.n IS NULL OR r.n = 1 THEN (SELECT array_agg(penalty) FROM places) END AS place_penalties,
           r.id AS ranked_id, r.rank AS ranked_rank, r.n AS ranked_n,
           ${postColumns(viewerId)}
    FROM (SELECT 1) one
    LEFT JOIN home h ON true
    LEFT JOIN ranked r ON true
    LEFT JOIN posts p ON p.id = r.id AND r.n <= ${q.show}
    LEFT JOIN users u ON u.id = p.user_id
    LEFT JOIN locations l ON l.id = p.location_id
    ORDER BY r.n`;
  const rows = await execute<PageRow>(statement);
  const first = rows[0];
  const ids = first.place_ids ?? [];
  const penalties = first.place_penalties ?? [];
  return {
    items: rows.filter((r) => r.ranked_id !== null).map((r) => ({ id: r.ranked_id!, rank: Number(r.ranked_rank) })),
    posts: rows.filter((r) => r.id) as PostSqlRow[],
    home: first.home_id ? { id: first.home_id, name: first.home_name! } : null,
    places: ids.map((locationId, i) => ({ locationId, penalty: Number(penalties[i]) })),
    place: q.placeId && first.place_name != null ? { id: q.placeId, name: first.place_name } : null,
  };
}

const dialect = new PgDialect();
const names = new Map<string, string>();

/**
 * A named prepared statement on a server database (one name per distinct text: the shapes are few), planned
 * once per connection. Inside a transaction, or on the embedded database, whose connections share one session
 * (a name prepared by one would clash with another's), it is sent unnamed like any other query.
 */
async function execute<T extends Record<string, unknown>>(statement: SQL): Promise<T[]> {
  const db = currentDb();
  if (platform.embedded || db !== platform.db) return (await db.execute<T>(statement)).rows as T[];
  const { sql: text, params } = dialect.sqlToQuery(statement);
  let name = names.get(text);
  if (!name) {
    name = `feeds_page_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    if (names.size < 200) names.set(text, name);
  }
  return (await platform.database.pool.query<T>({ name, text, values: params as unknown[] })).rows;
}
