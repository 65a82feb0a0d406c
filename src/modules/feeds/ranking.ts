import { createHash } from 'node:crypto';
import { fillPlaceholders, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { currentDb } from '../../platform/db.js';
import { platform } from '../../platform/index.js';
import { postColumns, type PostSqlRow } from '../posts/posts.queries.js';
import { areaPlacesSql, neighbourhoodPlacesSql, type PlaceHead, type ScopedPlace } from './scope.queries.js';
import { hiddenAuthorIdsOf, notAmongHiddenAuthors } from '../policy/visibility.js';
import { postListedFor } from '../policy/post-visibility.js';

/**
 * One page of a feed, ranked from indexes, with its posts, in one statement (docs/modules/feeds.md).
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
 * (the GiST index on locations.center, unless the places kept for that home are given), and the shown posts with their author, place name and the reader's
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

/**
 * The places a page reads: a snapshot's, or those around where the reader lives now. `kept` are the places
 * around the place the reader lived in at its last page (scope-cache.ts): the statement uses them only if the
 * reader still lives there, and finds the places around its home itself otherwise.
 */
export type PlaceSource = { places: ScopedPlace[] } | { around: 'neighbourhood' | 'area'; kept?: { homeId: string; places: ScopedPlace[] } };

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
  /**
   * The benchmark's yardstick only (`npm run bench -- feeds`): the same statement without the visibility conditions
   * (blocks, mutes, moderation), to measure what they cost. Never set by the service.
   */
  withoutVisibility?: true;
}

export interface RankedItem {
  id: string;
  rank: number;
}

export interface FeedPageRows {
  /** The shown items (up to `show`), ranked. */
  items: RankedItem[];
  /** More items follow them (of the `take` ranked). */
  more: boolean;
  /** The posts of the first `show` items, in order, as postColumns reads them. */
  posts: PostSqlRow[];
  /** Where the reader lives now. */
  home: PlaceHead | null;
  /** The places ranked: the source's, or those found around the reader's home. */
  places: ScopedPlace[];
  place: PlaceHead | null;
  /** The home the kept places were given for (null: none given); they were used if it is `home`'s id. */
  keptHome: string | null;
}

type Shape = { source: 'places' | 'neighbourhood' | 'area'; kept: boolean; everything: boolean; after: boolean; place: boolean; visibility: boolean };
type Values = {
  viewer: string;
  keptHome: string | null;
  ids: string[];
  penalties: number[];
  snapshot: string;
  afterRank: number | null;
  afterId: string | null;
  need: number;
  take: number;
  skip: number;
  show: number;
  place: string | null;
};

/** The page statement of one shape; `v(name)` is the value of a parameter (a placeholder when the text is kept). */
function pageStatement(shape: Shape, v: (name: keyof Values) => SQLWrapper): SQL {
  const below = (penalty: SQL): SQL => (shape.after ? sql`AND (p.rank_score, p.id) < (${v('afterRank')}::bigint + ${penalty}, ${v('afterId')}::uuid)` : sql``);
  const given = sql`SELECT n.location_id, n.penalty FROM unnest(${v('ids')}::uuid[], ${v('penalties')}::bigint[]) AS n(location_id, penalty)`;
  const around = shape.source === 'neighbourhood' ? neighbourhoodPlacesSql(sql`home`) : areaPlacesSql(sql`home`);
  // Kept places stand for the home they were found around: used only if the reader still lives there. Each
  // branch's condition reads no row of it, so PostgreSQL evaluates it once and skips the other branch whole.
  const places =
    shape.source === 'places'
      ? given
      : shape.kept
        ? sql`${given} WHERE (SELECT id FROM home) = ${v('keptHome')}::uuid
              UNION ALL
              SELECT a.location_id, a.penalty FROM (${around}) a WHERE (SELECT id FROM home) IS DISTINCT FROM ${v('keptHome')}::uuid`
        : around;
  const far = sql.raw(String(FAR_PENALTY));
  // Who may see what (src/modules/policy): the reader's hidden authors are read once, in `hidden` below, so each
  // candidate post costs a comparison with that array (empty for most readers) and a look at its own hidden_at.
  const visible = shape.visibility ? sql`AND ${notAmongHiddenAuthors(sql`(SELECT ids FROM hidden)::uuid[]`, sql`p.user_id`)} AND ${postListedFor(v('viewer'))}` : sql``;
  const parts: SQL[] = [
    sql`
      SELECT c.id, c.rank FROM places n
      CROSS JOIN LATERAL (
        SELECT p.id, p.rank_score - n.penalty AS rank FROM posts p
        WHERE p.location_id = n.location_id AND p.created_at <= ${v('snapshot')}::timestamptz ${below(sql`n.penalty`)}
          ${visible}
        ORDER BY p.rank_score DESC, p.id DESC
        LIMIT ${v('need')}
      ) c`,
  ];
  if (shape.everything) {
    parts.push(sql`
      SELECT f.id, f.rank FROM (
        SELECT p.id, p.rank_score - ${far}::bigint AS rank FROM posts p
        WHERE p.location_id IS NOT NULL AND p.location_id <> ALL(ARRAY(SELECT location_id FROM places)) AND p.created_at <= ${v('snapshot')}::timestamptz
          ${below(sql`${far}::bigint`)} ${visible}
        ORDER BY p.rank_score DESC, p.id DESC
        LIMIT ${v('need')}
      ) f`);
  }
  // The reader's home, the places ranked and whether more items follow the shown ones are read once, on the
  // first row; a row per shown item follows.
  return sql`
    WITH home AS (
      SELECT l.id, l.name, l.center, l.estimated_radius, l.city, l.state, l.country
      FROM users u JOIN locations l ON l.id = u.location_id WHERE u.id = ${v('viewer')}::uuid
    ),
    places AS MATERIALIZED (${places}),
    ${shape.visibility ? sql`hidden AS MATERIALIZED (SELECT ${hiddenAuthorIdsOf(v('viewer'))} AS ids),` : sql``}
    ranked AS MATERIALIZED (
      SELECT r.id, r.rank, row_number() OVER (ORDER BY r.rank DESC, r.id DESC) AS n FROM (
        SELECT id, rank FROM (${sql.join(parts, sql` UNION ALL `)}) m ORDER BY rank DESC, id DESC LIMIT ${v('take')} OFFSET ${v('skip')}
      ) r
    )
    SELECT CASE WHEN r.n IS NULL OR r.n = 1 THEN (SELECT json_build_object(
             'home', (SELECT json_build_object('id', h.id, 'name', h.name) FROM home h),
             ${shape.place ? sql`'place', (SELECT json_build_object('id', id, 'name', name) FROM locations WHERE id = ${v('place')}::uuid),` : sql``}
             'ids', (SELECT array_agg(location_id ORDER BY location_id) FROM places),
             'penalties', (SELECT array_agg(penalty ORDER BY location_id) FROM places),
             'more', (SELECT count(*) FROM ranked) > ${v('show')})) END AS head,
           r.rank AS ranked_rank,
           ${postColumns(v('viewer') as SQLWrapper)}
    FROM (SELECT 1) one
    LEFT JOIN ranked r ON r.n <= ${v('show')}
    LEFT JOIN posts p ON p.id = r.id
    LEFT JOIN users u ON u.id = p.user_id
    LEFT JOIN locations l ON l.id = p.location_id
    ORDER BY r.n`;
}

type PageRow = Partial<PostSqlRow> & {
  head: { home: PlaceHead | null; place?: PlaceHead | null; ids: string[] | null; penalties: Array<number | string> | null; more: boolean } | null;
  ranked_rank: number | string | null;
};

export async function feedPageRows(q: PageQuery, viewerId: string): Promise<FeedPageRows> {
  const kept = 'around' in q.source ? q.source.kept : undefined;
  const given = 'places' in q.source ? q.source.places : (kept?.places ?? null);
  const shape: Shape = {
    source: 'places' in q.source ? 'places' : q.source.around,
    kept: kept !== undefined,
    everything: q.everything,
    after: q.after !== null,
    place: q.placeId !== undefined,
    visibility: !q.withoutVisibility,
  };
  const values: Values = {
    viewer: viewerId,
    keptHome: kept?.homeId ?? null,
    ids: given ? given.map((p) => p.locationId) : [],
    penalties: given ? given.map((p) => p.penalty) : [],
    snapshot: q.snapshotAt.toISOString(),
    afterRank: q.after?.rank ?? null,
    afterId: q.after?.id ?? null,
    need: q.skip + q.take,
    take: q.take,
    skip: q.skip,
    show: q.show,
    place: q.placeId ?? null,
  };
  const rows = await execute<PageRow>(shape, values);
  const head = rows[0].head!;
  const penalties = head.penalties ?? [];
  return {
    items: rows.filter((r) => r.id).map((r) => ({ id: r.id!, rank: Number(r.ranked_rank) })),
    more: head.more,
    posts: rows.filter((r) => r.id) as PostSqlRow[],
    home: head.home,
    places: (head.ids ?? []).map((locationId, i) => ({ locationId, penalty: Number(penalties[i]) })),
    place: head.place ?? null,
    keptHome: values.keptHome,
  };
}

const dialect = new PgDialect();
const prepared = new Map<string, { name: string; text: string; params: unknown[] }>();

/**
 * On a server database: a named prepared statement per shape (its text built once), planned once per
 * connection. Inside a transaction, or on PGlite, whose connections share one session (a name prepared by one
 * would clash with another's), it is sent unnamed like any other query.
 */
async function execute<T extends Record<string, unknown>>(shape: Shape, values: Values): Promise<T[]> {
  const db = currentDb();
  if (!platform.database.namedStatements || db !== platform.db) return (await db.execute<T>(pageStatement(shape, (k) => sql.param(values[k])))).rows as T[];
  const key = `${shape.source}:${shape.kept}:${shape.everything}:${shape.after}:${shape.place}:${shape.visibility}`;
  let statement = prepared.get(key);
  if (!statement) {
    const { sql: text, params } = dialect.sqlToQuery(pageStatement(shape, (k) => sql.placeholder(k)));
    statement = { name: `feeds_page_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`, text, params };
    prepared.set(key, statement);
  }
  return (await platform.database.pool.query<T>({ name: statement.name, text: statement.text, values: fillPlaceholders(statement.params, values as unknown as Record<string, unknown>) })).rows;
}
