import { sql, type SQL } from 'drizzle-orm';
import { currentDb, type DbOrTx } from '../../platform/db.js';
import { notBlockedWith, notHiddenFrom } from '../policy/visibility.js';
import { postVisibleInListTo, postVisibleInManyTo } from '../policy/post-visibility.js';
import { commentVisibleInManyTo } from '../policy/comment-visibility.js';
import { postColumns } from '../posts/posts.queries.js';
import type { ParsedQuery, Term } from './query-parser.js';

/**
 * The search's SQL (docs/modules/search.md). Text goes through the generated `search_vector` columns and their GIN
 * indexes (migration 0029); names also through the trigram indexes (typos). Every statement here is the one the
 * bench's bare script runs beside the service (bench/cases/search.ts), so they are built by exported functions.
 */

/** A word as a to_tsquery operand: quoted, which is safe since words hold letters and digits only (query-parser.ts). */
const lexeme = (text: string) => `'${text.replace(/'/g, '')}':*`;

function termQuery(t: Term): SQL | null {
  switch (t.kind) {
    case 'word':
      return t.prefix
        ? sql`(to_tsquery('hl_search', ${lexeme(t.text)}) || to_tsquery('hl_search_prefix', ${lexeme(t.text)}))`
        : sql`plainto_tsquery('hl_search', ${t.text})`;
    case 'phrase':
      return sql`phraseto_tsquery('hl_search', ${t.text})`;
    case 'exclude':
      return t.phrase ? sql`(!! phraseto_tsquery('hl_search', ${t.text}))` : sql`(!! plainto_tsquery('hl_search', ${t.text}))`;
    default:
      return null;
  }
}

/**
 * What the text must match, and what a highlighter marks (the positive terms, any of them), as tsquery expressions.
 * They are IMMUTABLE (to_tsquery and friends with a named configuration), so PostgreSQL folds them to constants when
 * it plans a statement holding them: it sees the very tsquery, as with a literal, and chooses the walk or the GIN
 * index by how common the words are.
 */
function tsQueryParts(parsed: ParsedQuery): { must: SQL; marks: SQL } | null {
  const all = parsed.terms.map(termQuery).filter((s): s is SQL => s !== null);
  if (!all.length) return null;
  const positive = parsed.terms
    .filter((t) => t.kind === 'word' || t.kind === 'phrase')
    .map((t) => (t.kind === 'word' && t.prefix ? sql`to_tsquery('hl_search', ${lexeme(t.text)})` : termQuery(t)!));
  const must = sql`(${sql.join(all, sql` && `)})`;
  const marks = positive.length ? sql`(${sql.join(positive, sql` || `)})` : sql`''::tsquery`;
  return { must, marks };
}

export function tsQueryStatement(parsed: ParsedQuery): SQL | null {
  const parts = tsQueryParts(parsed);
  return parts && sql`SELECT ${parts.must}::text AS must, numnode(${parts.must}) AS nodes, ${parts.marks}::text AS marks`;
}

export interface TextQuery {
  /** The tsquery (an SQL expression) every row must match, or null: no text condition (tags or usernames only). */
  must: SQL | null;
  /** The tsquery of the words to mark in snippets; null or empty: none. */
  marks: SQL | null;
  /**
   * `must` is built inside the statement, so whether it holds any word (not only stop words) is known there only:
   * true when an empty one then matches every row (a #tag or an @name decides what is found), false when it then
   * matches none (nothing to look for), as textQueryOf decides from the resolved query.
   */
  emptyMatchesAll?: boolean;
}

/** The text query as expressions inside the statement that uses it (no statement of its own: inlineTextQuery's note). */
export function inlineTextQuery(parsed: ParsedQuery): TextQuery {
  const parts = tsQueryParts(parsed);
  if (!parts) return { must: null, marks: null };
  return { must: parts.must, marks: parts.marks, emptyMatchesAll: parsed.terms.some((t) => t.kind === 'tag' || t.kind === 'user') };
}

export async function resolveTextQuery(parsed: ParsedQuery, db: DbOrTx = currentDb()): Promise<TextQuery | 'nothing'> {
  const statement = tsQueryStatement(parsed);
  if (!statement) return { must: null, marks: null };
  const { rows } = await db.execute<TextQueryRow>(statement);
  return textQueryOf(parsed, rows[0]);
}

export type TextQueryRow = { must: string; nodes: number; marks: string };

/** What tsQueryStatement's row means (a caller may read it inside a larger statement). */
export function textQueryOf(parsed: ParsedQuery, r: TextQueryRow | undefined): TextQuery | 'nothing' {
  // Only stop words ("the", "of"): nothing to look for, unless a tag or a username says what.
  const marks = r?.marks ? sql`${r.marks}::tsquery` : null;
  if (!r || Number(r.nodes) === 0 || r.must === '') return parsed.terms.some((t) => t.kind === 'tag' || t.kind === 'user') ? { must: null, marks } : 'nothing';
  return { must: sql`${r.must}::tsquery`, marks };
}

export type Origin = { latitude: number; longitude: number } | null;

const originSql = (origin: Origin): SQL =>
  origin ? sql`ST_SetSRID(ST_MakePoint(${origin.longitude}::float8, ${origin.latitude}::float8), 4326)::geography` : sql`NULL::geography`;

/** Distance in metres from the origin (null when either is unknown), on the sphere like the feeds. */
const distance = (column: SQL, origin: Origin): SQL => (origin ? sql`ST_Distance(${column}, ${originSql(origin)}, false)` : sql`NULL::float8`);

export interface Page {
  limit: number;
  offset: number;
}

export interface ItemQuery {
  viewerId: string | null;
  text: TextQuery;
  tags: string[];
  /** @name terms: items written by these usernames (case-insensitive). */
  usernames: string[];
  origin: Origin;
  /**
   * Where the origin is read from when the statement reads it itself (a one-row select of lat, lon; postsStatement):
   * then `origin` is ignored and the answer's `origin_found` says whether that select found a row.
   */
  originSelect?: SQL;
  page: Page;
}

/** Relevance, rounded so that matches about as good are ordered by distance and then by recency. */
const relevance = (vector: SQL, text: TextQuery): SQL => (text.must ? sql`round(ts_rank(${vector}, ${text.must})::numeric, 2)` : sql`0::numeric`);
/** An inline `must` that holds only stop words folds `numnode(...) = 0` to true (every row) or drops it (false OR x is x). */
const textMatch = (vector: SQL, text: TextQuery): SQL =>
  !text.must ? sql`TRUE` : text.emptyMatchesAll ? sql`(numnode(${text.must}) = 0 OR ${vector} @@ ${text.must})` : sql`${vector} @@ ${text.must}`;
const tagMatch = (column: SQL, tags: string[]): SQL => (tags.length ? sql`${column} @> ${sql.param(tags)}::text[]` : sql`TRUE`);
const authorMatch = (column: SQL, usernames: string[]): SQL =>
  usernames.length ? sql`${column} IN (SELECT su.id FROM users su WHERE lower(su.username) = ANY(${sql.param(usernames.map((u) => u.toLowerCase()))}::text[]))` : sql`TRUE`;

/** Who wrote it may be found: discoverable, or the caller. */
const findableAuthor = (viewerId: string | null, alias: string): SQL =>
  viewerId ? sql`(${sql.raw(alias)}.discoverable OR ${sql.raw(alias)}.id = ${viewerId}::uuid)` : sql`${sql.raw(alias)}.discoverable`;

/**
 * The same for one row's author, probed per row (users_pkey) instead of joined: a join let PostgreSQL hash all of
 * users for a rare word (10,000 rows read for 10 matches: 2.6 of its 3 ms), while the probe runs only for the rows
 * that already matched the words.
 */
const findableAuthorOf = (viewerId: string | null, authorColumn: SQL): SQL => {
  const probe = sql`(SELECT fu.discoverable FROM users fu WHERE fu.id = ${authorColumn})`;
  return viewerId ? sql`(${authorColumn} = ${viewerId}::uuid OR ${probe})` : probe;
};

/** The one post rule in SQL, as the policy module states it. */
export const postVisibleTo = postVisibleInListTo;

/**
 * How many matches are ranked: the newest RANK_WINDOW posts (or comments) that match and that the caller may find.
 * Relevance, then distance, then recency orders those; `count` is their number (so at most RANK_WINDOW), and the
 * pages end there. Ranking every match read and scored every one of them (a word in 5 % of a million posts: 47,000
 * rows, 1.7 s); the window bounds the work whatever the word: for a common word PostgreSQL walks posts newest first
 * (posts_created_idx; comments_created_idx for comments) and stops at the window's last match, for a rare one it
 * reads the GIN index and sorts the few matches by time. docs/modules/search.md ("What is found, in what order")
 * says it in words.
 */
export const RANK_WINDOW = 200;

/**
 * The window (RANK_WINDOW), for posts and comments alike: the matches newest first, then who may find them
 * (`OFFSET 0` keeps the two apart): the rule is tested only down the sorted matches until the window is full, so a phrase's 5,000 matches are sorted but their authors probed 200
 * times, not 5,000 (EXPLAIN, 1M posts: 22 -> 10 ms); for a common word PostgreSQL still walks posts_created_idx
 * newest first and stops at the window's last match, since the outer level (one relation, no sort) passes its LIMIT
 * down. The window is the newest because that level keeps the subquery's order: its conditions must stay per-row
 * filters (arrays read once, scalar subqueries). An EXISTS there may become a join that returns rows in another
 * order (tried for comments: the window then held arbitrary matches), and an ORDER BY repeated there makes
 * PostgreSQL plan the subquery for all its rows (the common word's walk became a 145 ms sort).
 */
function newestWindow(
  q: ItemQuery,
  from: {
    table: 'posts' | 'comments';
    alias: 'p' | 'c';
    /** The columns of the matches that the rule and the ranking read, besides id, search_vector and created_at. */
    read: string;
    /** What the window keeps of them besides id, search_vector and created_at (the ranking's place). */
    keep: string;
    /** The one rule for many rows of that kind, over `m` (policy: postVisibleInManyTo, commentVisibleInManyTo). */
    visible: SQL;
  },
): SQL {
  const a = sql.raw(from.alias);
  return sql`
      SELECT m.id, m.search_vector, ${sql.raw(from.keep)}, m.created_at
        FROM (SELECT ${a}.id, ${a}.search_vector, ${a}.created_at, ${sql.raw(from.read)}
                FROM ${sql.raw(from.table)} ${a}
               WHERE ${textMatch(sql`${a}.search_vector`, q.text)} AND ${tagMatch(sql`${a}.tags`, q.tags)} AND ${authorMatch(sql`${a}.user_id`, q.usernames)}
               ORDER BY ${a}.created_at DESC, ${a}.id DESC
              OFFSET 0) m
       WHERE ${findableAuthorOf(q.viewerId, sql`m.user_id`)} AND ${from.visible}
       LIMIT ${sql.raw(String(RANK_WINDOW))}`;
}

/**
 * A page of posts in one statement: the matches in the window, ranked, and for the page's posts their rows as
 * posts.queries.ts `postColumns` reads them (the post, its author, place, the caller's like and bookmark) with the
 * snippet's headline; `total` is the matches in the window. With `originSelect` and an inline text query
 * (inlineTextQuery) it is the request's only statement: the place searched from is read in it (`origin`), and a
 * row with a null id stands for "no post" so that `origin_found` always comes back (an unknown place is 404). Attachments (media, polls, audio, events) are read by
 * completePosts afterwards, one statement per kind present in the page.
 */
export function postsStatement(q: ItemQuery): SQL {
  const originPoint = sql`(SELECT ST_SetSRID(ST_MakePoint(o.lon, o.lat), 4326)::geography FROM origin o WHERE o.lat IS NOT NULL AND o.lon IS NOT NULL)`;
  const distanceFrom = (column: SQL) => (q.originSelect ? sql`ST_Distance(${column}, ${originPoint}, false)` : distance(column, q.origin));
  return sql`
    WITH ${q.originSelect ? sql`origin AS MATERIALIZED (SELECT x.lat::float8 AS lat, x.lon::float8 AS lon FROM (${q.originSelect}) x),` : sql``}
    newest AS MATERIALIZED (${newestWindow(q, {
      table: 'posts',
      alias: 'p',
      read: 'p.location_id, p.user_id, p.hidden_at, p.community_id',
      keep: 'm.location_id',
      visible: postVisibleInManyTo(q.viewerId, 'm'),
    })}),
    ranked AS MATERIALIZED (
      SELECT n.id, ${relevance(sql`n.search_vector`, q.text)} AS relevance, ${distanceFrom(sql`coalesce(rl.center, rl.point)`)} AS distance,
             n.created_at, count(*) OVER ()::int AS total
        FROM newest n LEFT JOIN locations rl ON rl.id = n.location_id
       ORDER BY relevance DESC, distance ASC NULLS LAST, n.created_at DESC, n.id
       LIMIT ${q.page.limit} OFFSET ${q.page.offset})
    SELECT x.*, f.origin_found
      FROM (SELECT ${q.originSelect ? sql`EXISTS (SELECT 1 FROM origin)` : sql`TRUE`} AS origin_found) f
      LEFT JOIN LATERAL (
        SELECT ${postColumns(q.viewerId)}, r.total, ${headline(sql`coalesce(p.title || E'\n', '') || p.content`, q.text.marks)} AS headline,
               r.relevance AS rank_relevance, r.distance AS rank_distance, r.created_at AS rank_created_at
          FROM ranked r JOIN posts p ON p.id = r.id JOIN users u ON u.id = p.user_id LEFT JOIN locations l ON l.id = p.location_id) x ON TRUE
     ORDER BY x.rank_relevance DESC, x.rank_distance ASC NULLS LAST, x.rank_created_at DESC, x.id`;
}

/**
 * Comments the same way as posts: the newest RANK_WINDOW matches the caller may find, ranked; `total` is their number.
 * The matches are walked newest first (comments_created_idx, migration 0036) or read from the GIN index and sorted
 * by time, as PostgreSQL judges from how common the words are, and the rule (commentVisibleInManyTo: its post
 * readable by id, itself and the comments above it not hidden, its author not hidden from the caller) is tested
 * down that order until the window is full. Scoring and counting every match cost a common word 579 ms at 200,000
 * comments (9,424 matches). The post's place, for distance, is read for the window's comments only.
 */
export function commentsStatement(q: ItemQuery): SQL {
  return sql`
    WITH newest AS MATERIALIZED (${newestWindow(q, {
      table: 'comments',
      alias: 'c',
      read: 'c.post_id, c.user_id, c.parent_id, c.hidden_at',
      keep: 'm.post_id',
      visible: commentVisibleInManyTo(q.viewerId, 'm'),
    })})
    SELECT n.id, ${relevance(sql`n.search_vector`, q.text)} AS relevance, ${distance(sql`coalesce(l.center, l.point)`, q.origin)} AS distance,
           n.created_at, count(*) OVER ()::int AS total
      FROM newest n JOIN posts p ON p.id = n.post_id LEFT JOIN locations l ON l.id = p.location_id
     ORDER BY relevance DESC, distance ASC NULLS LAST, n.created_at DESC, n.id
     LIMIT ${q.page.limit} OFFSET ${q.page.offset}`;
}

export interface NameQuery {
  viewerId: string | null;
  text: TextQuery;
  /** The words as typed, for trigram similarity (typos); '' for none. */
  name: string;
  usernames: Array<{ username: string; prefix: boolean }>;
  origin: Origin;
  page: Page;
}

/** Matches the words, or the name is like the words typed (pg_trgm's `%`, similarity at least 0.3: one typo in a short name). */
const nameMatch = (vector: SQL, nameColumns: SQL[], q: NameQuery): SQL => {
  const parts: SQL[] = [];
  if (q.text.must) parts.push(sql`${vector} @@ ${q.text.must}`);
  if (q.name.length >= 3) for (const c of nameColumns) parts.push(sql`${c} % ${q.name}`);
  return parts.length ? sql`(${sql.join(parts, sql` OR `)})` : sql`FALSE`;
};
const nameRelevance = (vector: SQL, nameColumns: SQL[], q: NameQuery): SQL => {
  const parts: SQL[] = [q.text.must ? sql`ts_rank(${vector}, ${q.text.must})` : sql`0`];
  if (q.name.length >= 3) for (const c of nameColumns) parts.push(sql`similarity(${c}, ${q.name})`);
  return sql`round(greatest(${sql.join(parts, sql`, `)})::numeric, 2)`;
};

export function usersStatement(q: NameQuery): SQL {
  const byUsername = q.usernames.map((u) => (u.prefix ? sql`lower(u.username) LIKE ${likePrefix(u.username)}` : sql`lower(u.username) = ${u.username.toLowerCase()}`));
  const match = byUsername.length
    ? sql`(${sql.join(byUsername, sql` OR `)})`
    : nameMatch(sql`u.search_vector`, [sql`u.username`, sql`u.display_name`], q);
  const rel = byUsername.length ? sql`1::numeric` : nameRelevance(sql`u.search_vector`, [sql`u.username`, sql`u.display_name`], q);
  return sql`
    SELECT u.id, ${rel} AS relevance, ${distance(sql`coalesce(l.center, l.point)`, q.origin)} AS distance, count(*) OVER ()::int AS total
      FROM users u LEFT JOIN locations l ON l.id = u.location_id
     WHERE ${match} AND u.is_active AND ${findableAuthor(null, 'u')} AND ${notHiddenFrom(q.viewerId, sql`u.id`)}
     ORDER BY relevance DESC, distance ASC NULLS LAST, u.username, u.id
     LIMIT ${q.page.limit} OFFSET ${q.page.offset}`;
}

const likePrefix = (s: string) => `${s.toLowerCase().replace(/[\\%_]/g, (m) => `\\${m}`)}%`;

export function storesStatement(q: NameQuery): SQL {
  return sql`
    SELECT s.id, ${nameRelevance(sql`s.search_vector`, [sql`s.name`], q)} AS relevance, ${distance(sql`s.point`, q.origin)} AS distance, count(*) OVER ()::int AS total
      FROM stores s
     WHERE ${nameMatch(sql`s.search_vector`, [sql`s.name`], q)} AND ${notBlockedWith(q.viewerId, sql`s.owner_id`)}
     ORDER BY relevance DESC, distance ASC NULLS LAST, s.created_at DESC, s.id
     LIMIT ${q.page.limit} OFFSET ${q.page.offset}`;
}

export function productsStatement(q: NameQuery): SQL {
  return sql`
    SELECT pr.id, ${nameRelevance(sql`pr.search_vector`, [sql`pr.name`], q)} AS relevance, ${distance(sql`s.point`, q.origin)} AS distance, count(*) OVER ()::int AS total
      FROM products pr JOIN stores s ON s.id = pr.store_id
     WHERE ${nameMatch(sql`pr.search_vector`, [sql`pr.name`], q)} AND ${notBlockedWith(q.viewerId, sql`s.owner_id`)}
     ORDER BY relevance DESC, distance ASC NULLS LAST, pr.created_at DESC, pr.id
     LIMIT ${q.page.limit} OFFSET ${q.page.offset}`;
}

export function communitiesStatement(q: NameQuery): SQL {
  return sql`
    SELECT c.id, ${nameRelevance(sql`c.search_vector`, [sql`c.name`], q)} AS relevance, ${distance(sql`coalesce(l.center, l.point)`, q.origin)} AS distance, count(*) OVER ()::int AS total
      FROM communities c LEFT JOIN locations l ON l.id = c.location_id
     WHERE ${nameMatch(sql`c.search_vector`, [sql`c.name`], q)} AND ${q.viewerId ? sql`TRUE` : sql`FALSE`}
     ORDER BY relevance DESC, distance ASC NULLS LAST, c.members_count DESC, c.id
     LIMIT ${q.page.limit} OFFSET ${q.page.offset}`;
}

export function placesStatement(q: NameQuery): SQL {
  return sql`
    SELECT l.id, l.name, l.city, l.neighbourhood, l.center_latitude, l.center_longitude, l.total_users,
           ${nameRelevance(sql`l.search_vector`, [sql`l.name`], q)} AS relevance, ${distance(sql`coalesce(l.center, l.point)`, q.origin)} AS distance, count(*) OVER ()::int AS total
      FROM locations l
     WHERE ${nameMatch(sql`l.search_vector`, [sql`l.name`], q)}
     ORDER BY relevance DESC, distance ASC NULLS LAST, l.total_users DESC, l.id
     LIMIT ${q.page.limit} OFFSET ${q.page.offset}`;
}

/**
 * The tag uses that count (trending; the tag dictionary's counts, tag-stats.ts): neighbourhood posts with tags, not
 * hidden. Word for word the predicate of the partial index posts_tag_uses_idx (migration 0035), so that PostgreSQL
 * reads that index, and the rule of the trigger that enters new tags in the dictionary (0037): keep them the same.
 */
export const tagUsesIndexed = sql`p.tags <> '{}'::text[] AND p.hidden_at IS NULL AND p.location_id IS NOT NULL`;

/** At most this many tags are considered for one search's tags (its count included): see tagsStatement. */
export const TAGS_CONSIDERED = 1000;

/**
 * Tags equal to a #tag or a word typed, or starting with the last one; by how many neighbourhood posts carry them.
 * Read from the tag dictionary `tag_stats` alone (migration 0037), never from posts: an exact tag is one lookup of
 * its primary key, a prefix one range of it (COLLATE "C"). The counts are search.tag_stats_refresh's (every 5
 * minutes; a new tag enters at once, counted 1). At most TAGS_CONSIDERED tags are considered, and counted: the exact
 * ones, then those starting with the prefix in code point order, so a short prefix in a large dictionary ranks the
 * first 1,000 tags it starts, not all (typing on narrows them).
 */
export function tagsStatement(exact: string[], prefix: string | null, page: Page): SQL {
  const exactTags = sql`${sql.param(exact)}::text[]`;
  const branches: SQL[] = [];
  if (exact.length) branches.push(sql`SELECT s.tag, s.posts_count, 0 AS k FROM tag_stats s WHERE s.tag = ANY(${exactTags}) AND s.posts_count > 0`);
  if (prefix) {
    branches.push(sql`(SELECT s.tag, s.posts_count, 1 AS k FROM tag_stats s
        WHERE s.tag LIKE ${likePrefix(prefix)} AND NOT (s.tag = ANY(${exactTags})) AND s.posts_count > 0
        ORDER BY s.tag LIMIT ${TAGS_CONSIDERED})`);
  }
  if (!branches.length) branches.push(sql`SELECT NULL::text AS tag, 0 AS posts_count, 0 AS k WHERE FALSE`);
  return sql`
    SELECT m.tag, m.posts_count, count(*) OVER ()::int AS total
      FROM (SELECT u.tag, u.posts_count FROM (${sql.join(branches, sql` UNION ALL `)}) u ORDER BY u.k, u.tag LIMIT ${TAGS_CONSIDERED}) m
     ORDER BY m.posts_count DESC, m.tag
     LIMIT ${page.limit} OFFSET ${page.offset}`;
}

/** Snippets: ts_headline marks the stemmed matches with \u0001 … \u0002 (search.service.ts turns them into offsets). */
function headline(text: SQL, marks: SQL | null): SQL {
  // numnode(marks) = 0 (no word to mark: stop words only) folds to a constant when marks is inline.
  return marks
    ? sql`CASE WHEN numnode(${marks}) = 0 THEN left(${text}, 400) ELSE ts_headline('hl_search', ${text}, ${marks}, 'StartSel=' || chr(1) || ', StopSel=' || chr(2) || ', MaxWords=35, MinWords=15, ShortWord=2, HighlightAll=false') END`
    : sql`left(${text}, 400)`;
}

export function headlinesStatement(table: 'posts' | 'comments', ids: string[], marks: SQL | null): SQL {
  const text = table === 'posts' ? sql`coalesce(t.title || E'\n', '') || t.content` : sql`t.content`;
  return sql`SELECT t.id, ${headline(text, marks)} AS headline FROM ${sql.raw(table)} t WHERE t.id = ANY(${sql.param(ids)}::uuid[])`;
}
