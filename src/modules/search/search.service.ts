import { sql, type SQL } from 'drizzle-orm';
import type { RequestContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { pageParams, paginated, type PageParams } from '../../core/pagination.js';
import { currentDb } from '../../platform/db.js';
import { completePosts, type PostSqlRow } from '../posts/posts.queries.js';
import { serializePost } from '../posts/posts.serializer.js';
import { loadComments } from '../comments/comments.queries.js';
import { serializeComment } from '../comments/comments.serializer.js';
import { loadProductSummaries, loadStoreSummaries } from '../stores/summaries.js';
import { loadCommunitySummaries } from '../communities/summaries.js';
import { hasPositiveTerm, parseQuery, type ParsedQuery } from './query-parser.js';
import {
  commentsStatement,
  communitiesStatement,
  headlinesStatement,
  inlineTextQuery,
  placesStatement,
  postsStatement,
  productsStatement,
  resolveTextQuery,
  textQueryOf,
  tsQueryStatement,
  type TextQueryRow,
  storesStatement,
  tagsStatement,
  usersStatement,
  type ItemQuery,
  type NameQuery,
  type Origin,
  type Page,
  type TextQuery,
} from './search.queries.js';
import { snippetOf } from './snippets.js';
import type { SearchType } from './search.serializer.js';

export const SEARCH_PAGE = { size: 20, max: 50 };
/** Without `type`: the best few of each kind. */
export const BEST_OF_EACH = 5;
const SEARCH_PATH = '/api/search/';

export interface SearchInput {
  q: string;
  type?: SearchType;
  location_id?: string;
  latitude?: number;
  longitude?: number;
  page?: number;
  page_size?: number;
}

type OriginRow = { lat: number | null; lon: number | null };

/** Where the origin comes from: known already, or a one-row select (lat, lon) that must find a row when `required`. */
type OriginSource = { origin: Origin } | { select: SQL; required: boolean };

/** Where the search is made from: the place asked for, else the point given, else the caller's own place (its published centre). */
function originSource(ctx: RequestContext, input: { location_id?: string; latitude?: number; longitude?: number }): OriginSource {
  if (input.location_id) {
    return {
      required: true,
      select: sql`SELECT coalesce(center_latitude, latitude) AS lat, coalesce(center_longitude, longitude) AS lon FROM locations WHERE id = ${input.location_id}::uuid`,
    };
  }
  if (input.latitude !== undefined && input.longitude !== undefined) return { origin: { latitude: input.latitude, longitude: input.longitude } };
  if (ctx.user) {
    return {
      required: false,
      select: sql`SELECT coalesce(l.center_latitude, l.latitude) AS lat, coalesce(l.center_longitude, l.longitude) AS lon
        FROM users u JOIN locations l ON l.id = u.location_id WHERE u.id = ${ctx.user.id}::uuid`,
    };
  }
  return { origin: null };
}

/** An unknown location_id is 404; a place without coordinates, or a caller without a place, searches from nowhere. */
function originOf(row: OriginRow | undefined, required: boolean): Origin {
  if (!row) {
    if (required) throw notFound();
    return null;
  }
  return row.lat !== null && row.lon !== null ? { latitude: Number(row.lat), longitude: Number(row.lon) } : null;
}

export async function resolveOrigin(ctx: RequestContext, input: { location_id?: string; latitude?: number; longitude?: number }): Promise<Origin> {
  const source = originSource(ctx, input);
  if ('origin' in source) return source.origin;
  const { rows } = await currentDb().execute<OriginRow>(source.select);
  return originOf(rows[0], source.required);
}

/**
 * The origin and the text query, in one statement when both need the database (one round trip, one statement to
 * parse and plan): the text query's row, with the origin's select beside it (no row of it: found is null).
 */
async function resolveOriginAndText(ctx: RequestContext, input: SearchInput, parsed: ParsedQuery): Promise<[Origin, TextQuery | 'nothing']> {
  const source = originSource(ctx, input);
  const textSelect = hasPositiveTerm(parsed) ? tsQueryStatement(parsed) : null;
  if ('origin' in source || !textSelect) {
    return Promise.all([resolveOrigin(ctx, input), hasPositiveTerm(parsed) ? resolveTextQuery(parsed) : Promise.resolve('nothing' as const)]);
  }
  const { rows } = await currentDb().execute<TextQueryRow & OriginRow & { found: boolean | null }>(sql`
    SELECT t.must, t.nodes, t.marks, o.found, o.lat, o.lon
      FROM (${textSelect}) t LEFT JOIN LATERAL (SELECT true AS found, x.lat, x.lon FROM (${source.select}) x) o ON true`);
  const r = rows[0];
  return [originOf(r?.found ? r : undefined, source.required), textQueryOf(parsed, r)];
}

interface Prepared {
  parsed: ParsedQuery;
  text: TextQuery;
  tags: string[];
  usernames: ParsedQuery['terms'] extends Array<infer T> ? Extract<T, { kind: 'user' }>[] : never;
  prefixes: string[];
  origin: Origin;
  /** The origin's select when the posts statement reads it itself (preparePosts); `required`: no row is 404. */
  originSource?: { select: SQL; required: boolean };
}

type Found<T> = { count: number; results: T[] };
const none = <T>(): Found<T> => ({ count: 0, results: [] });

async function rowsOf<R extends { total: number }>(statement: SQL): Promise<{ rows: R[]; total: number | null }> {
  const { rows } = await currentDb().execute(statement);
  const typed = rows as unknown as R[];
  return { rows: typed, total: typed[0]?.total ?? null };
}

/** The total when the page is past the end (no row carries it): the first row of page 1 does. */
async function counted<R extends { total: number }>(build: (page: Page) => SQL, page: Page): Promise<{ rows: R[]; count: number }> {
  const { rows, total } = await rowsOf<R>(build(page));
  if (total !== null) return { rows, count: total };
  if (page.offset === 0) return { rows, count: 0 };
  const first = await rowsOf<R>(build({ limit: 1, offset: 0 }));
  return { rows, count: first.total ?? 0 };
}

async function snippets(table: 'posts' | 'comments', ids: string[], p: Prepared) {
  if (!ids.length) return new Map<string, ReturnType<typeof snippetOf>>();
  const { rows } = await currentDb().execute<{ id: string; headline: string }>(headlinesStatement(table, ids, p.text.marks));
  return new Map(rows.map((r) => [r.id, snippetOf(r.headline, p.prefixes)]));
}

const itemQuery = (ctx: RequestContext, p: Prepared, page: Page): ItemQuery => ({
  viewerId: ctx.user?.id ?? null,
  text: p.text,
  tags: p.tags,
  usernames: p.usernames.map((u) => u.username),
  origin: p.origin,
  originSelect: p.originSource?.select,
  page,
});

const nameQuery = (ctx: RequestContext, p: Prepared, page: Page): NameQuery => ({
  viewerId: ctx.user?.id ?? null,
  text: p.text,
  name: p.parsed.nameText,
  usernames: p.usernames,
  origin: p.origin,
  page,
});

/** Posts and comments need words, a #tag or an @name; names need words or an @name. */
const wantsItems = (p: Prepared) => p.text.must !== null || p.tags.length > 0 || p.usernames.length > 0;
const wantsNames = (p: Prepared) => p.text.must !== null || p.parsed.nameText.length >= 3;

async function findPosts(ctx: RequestContext, p: Prepared, page: Page) {
  if (!wantsItems(p)) return none<ReturnType<typeof serializePost> & ReturnType<typeof snippetOf>>();
  type Row = PostSqlRow & { total: number; headline: string; origin_found: boolean };
  const { rows: all, count } = await counted<Row>((pg) => postsStatement(itemQuery(ctx, p, pg)), page);
  // The statement read the place searched from itself: an unknown one is 404, whatever was found.
  if (p.originSource?.required && all.length && !all[0].origin_found) throw notFound();
  const rows = all.filter((r) => r.id !== null);
  const posts = await completePosts(rows, ctx.user?.id ?? null, currentDb(), ctx.baseUrl);
  const headlines = new Map(rows.map((r) => [r.id, r.headline]));
  return { count, results: posts.map((post) => ({ ...serializePost(post, ctx), ...snippetOf(headlines.get(post.id) ?? '', p.prefixes) })) };
}

async function findComments(ctx: RequestContext, p: Prepared, page: Page) {
  if (!wantsItems(p)) return none<ReturnType<typeof serializeComment> & ReturnType<typeof snippetOf>>();
  const { rows, count } = await counted<{ id: string; total: number }>((pg) => commentsStatement(itemQuery(ctx, p, pg)), page);
  const ids = rows.map((r) => r.id);
  // The page's comments in one statement (was one per comment), in rank order.
  const [comments, marks] = await Promise.all([loadComments(ids, ctx.user?.id ?? null), snippets('comments', ids, p)]);
  return {
    count,
    results: comments.map((c) => ({ ...serializeComment(c, ctx), ...(marks.get(c.id) ?? { snippet: '', highlights: [] }) })),
  };
}

async function findUsers(ctx: RequestContext, p: Prepared, page: Page) {
  if (!wantsNames(p) && !p.usernames.length) return none<{ id: string; username: string; display_name: string; profile_picture: string | null }>();
  const { rows, count } = await counted<{ id: string; total: number }>((pg) => usersStatement(nameQuery(ctx, p, pg)), page);
  if (!rows.length) return { count, results: [] };
  const { rows: users } = await currentDb().execute<{ id: string; username: string; display_name: string; profile_picture: string | null }>(sql`
    SELECT id, username, display_name, profile_picture FROM users WHERE id = ANY(${sql.param(rows.map((r) => r.id))}::uuid[])`);
  const byId = new Map(users.map((u) => [u.id, u]));
  const { mediaUrl } = await import('../users/users.serializer.js');
  return {
    count,
    results: rows
      .map((r) => byId.get(r.id))
      .filter((u) => u !== undefined)
      .map((u) => ({ id: u!.id, username: u!.username, display_name: u!.display_name, profile_picture: mediaUrl(u!.profile_picture, ctx.baseUrl) })),
  };
}

async function findByIds<T>(statement: (pg: Page) => SQL, page: Page, load: (ids: string[]) => Promise<Map<string, T>>): Promise<Found<T>> {
  const { rows, count } = await counted<{ id: string; total: number }>(statement, page);
  const found = await load(rows.map((r) => r.id));
  return { count, results: rows.map((r) => found.get(r.id)).filter((x): x is T => x !== undefined) };
}

async function findPlaces(ctx: RequestContext, p: Prepared, page: Page) {
  type PlaceRow = { id: string; name: string; city: string | null; neighbourhood: string | null; center_latitude: number | null; center_longitude: number | null; total_users: number; total: number };
  if (!wantsNames(p)) return none<ReturnType<typeof placeHit>>();
  const { rows, count } = await counted<PlaceRow>((pg) => placesStatement(nameQuery(ctx, p, pg)), page);
  return { count, results: rows.map(placeHit) };
}

function placeHit(r: { id: string; name: string; city: string | null; neighbourhood: string | null; center_latitude: number | null; center_longitude: number | null; total_users: number }) {
  return {
    id: r.id,
    name: r.name,
    city: r.city,
    neighbourhood: r.neighbourhood,
    latitude: r.center_latitude === null ? null : Number(r.center_latitude),
    longitude: r.center_longitude === null ? null : Number(r.center_longitude),
    total_users: Number(r.total_users),
  };
}

async function findTags(p: Prepared, page: Page) {
  const words = p.parsed.terms.flatMap((t) => (t.kind === 'word' ? [t.text.toLowerCase()] : []));
  const exact = [...new Set([...p.tags, ...words])];
  const last = p.parsed.terms[p.parsed.terms.length - 1];
  const prefix = last && ((last.kind === 'tag' && last.prefix && last.tag) || (last.kind === 'word' && last.prefix && last.text.toLowerCase())) || null;
  if (!exact.length && !prefix) return none<{ tag: string; posts_count: number }>();
  const { rows, count } = await counted<{ tag: string; posts_count: number; total: number }>((pg) => tagsStatement(exact, prefix, pg), page);
  return { count, results: rows.map((r) => ({ tag: r.tag, posts_count: Number(r.posts_count) })) };
}

/**
 * A page of posts only (`type=posts`, the commonest search) needs no statement before its own: the text query is
 * built inside it (inlineTextQuery: PostgreSQL folds it while planning, so it still sees the words) and so is the
 * place searched from (postsStatement's `origin`), so the page is one statement and one round trip where it was two.
 * Without a word, #tag or @name to look for it goes through prepare (which still answers 404 for an unknown place).
 */
function preparePosts(ctx: RequestContext, input: SearchInput): Prepared | null {
  const parsed = parseQuery(input.q);
  if (!hasPositiveTerm(parsed)) return null;
  const source = originSource(ctx, input);
  return {
    ...termsOf(parsed),
    text: inlineTextQuery(parsed),
    origin: 'origin' in source ? source.origin : null,
    originSource: 'select' in source ? source : undefined,
  };
}

/** What the parsed query asks for beside its text: #tags, @names, and the words typed as prefixes (for snippets). */
function termsOf(parsed: ParsedQuery): Pick<Prepared, 'parsed' | 'tags' | 'usernames' | 'prefixes'> {
  return {
    parsed,
    tags: parsed.terms.flatMap((t) => (t.kind === 'tag' ? [t.tag] : [])),
    usernames: parsed.terms.filter((t): t is Extract<typeof t, { kind: 'user' }> => t.kind === 'user'),
    prefixes: parsed.terms.flatMap((t) => (t.kind === 'word' && t.prefix ? [t.text] : [])),
  };
}

async function prepare(ctx: RequestContext, input: SearchInput): Promise<Prepared | null> {
  const parsed = parseQuery(input.q);
  // One round trip for both (an unknown location_id is 404 whatever was typed).
  const [origin, text] = await resolveOriginAndText(ctx, input, parsed);
  if (!hasPositiveTerm(parsed)) return null;
  if (text === 'nothing') return null;
  return { ...termsOf(parsed), text, origin };
}

function finder(ctx: RequestContext, p: Prepared, type: SearchType, page: Page): Promise<Found<unknown>> {
  const base = ctx.baseUrl;
  switch (type) {
    case 'posts':
      return findPosts(ctx, p, page);
    case 'comments':
      return findComments(ctx, p, page);
    case 'users':
      return findUsers(ctx, p, page);
    case 'stores':
      return wantsNames(p) ? findByIds((pg) => storesStatement(nameQuery(ctx, p, pg)), page, (ids) => loadStoreSummaries(ids, base)) : Promise.resolve(none());
    case 'products':
      return wantsNames(p) ? findByIds((pg) => productsStatement(nameQuery(ctx, p, pg)), page, (ids) => loadProductSummaries(ids, base)) : Promise.resolve(none());
    case 'communities':
      return wantsNames(p) ? findByIds((pg) => communitiesStatement(nameQuery(ctx, p, pg)), page, (ids) => loadCommunitySummaries(ids, base)) : Promise.resolve(none());
    case 'places':
      return findPlaces(ctx, p, page);
    case 'tags':
      return findTags(p, page);
  }
}

export const SEARCH_TYPES = ['posts', 'comments', 'users', 'stores', 'products', 'communities', 'places', 'tags'] as const;

export async function search(ctx: RequestContext, input: SearchInput) {
  const prepared = (input.type === 'posts' && preparePosts(ctx, input)) || (await prepare(ctx, input));
  if (input.type) {
    const params: PageParams = pageParams(input, SEARCH_PAGE);
    const found = prepared ? await finder(ctx, prepared, input.type, { limit: params.limit, offset: params.offset }) : none();
    const filters = { q: input.q, type: input.type, location_id: input.location_id, latitude: input.latitude, longitude: input.longitude };
    return paginated(ctx, SEARCH_PATH, params, found.count, found.results, filters);
  }
  const best = { limit: BEST_OF_EACH, offset: 0 };
  const entries = await Promise.all(SEARCH_TYPES.map(async (type) => [type, prepared ? await finder(ctx, prepared, type, best) : none()] as const));
  return Object.fromEntries(entries) as Record<SearchType, Found<unknown>>;
}
