import type { AuthedContext } from '../../core/context.js';
import { AppError, MESSAGES, notFound } from '../../core/errors.js';
import { currentDb } from '../../platform/db.js';
import { completePosts } from '../posts/posts.queries.js';
import { serializePost, type PostBody } from '../posts/posts.serializer.js';
import { LOCATION_REQUIRED_BODY } from '../posts/targets.js';
import { feedPageRows, type PlaceSource } from './ranking.js';
import { readSnapshot, saveSnapshot, type FeedSnapshot } from './snapshots.js';
import { keepScope, knownScope, rememberedHome, rememberHome, scopeUse } from './scope-cache.js';
import { findHome, findPlace, type PlaceHead } from './scope.queries.js';
import { enhancementEndpoints } from './enhancements.service.js';

/** Page size of the feeds: default 15, clamped at 50 (contract Limits). */
export const FEED_PAGE_SIZE = 15;
export const FEED_PAGE_MAX = 50;
/**
 * How far past the last page read in a snapshot a request may jump (items skipped by offset). Paging in order
 * costs one index range per place whatever the depth; a jump costs its depth in every place, so a deep jump
 * (page=100000) is answered like a page past the end instead of reading whole places.
 */
export const MAX_JUMP_ITEMS = 1000;

export interface FeedPageInput {
  page?: number;
  page_size?: number;
}

interface FeedScope {
  /** The snapshot key of this feed for this reader. */
  key: string;
  /** The places a new snapshot reads. */
  source: PlaceSource;
  everything: boolean;
  /** A snapshot is of where the reader lived when it began: when the reader has moved since, it is not continued. */
  followsHome: boolean;
  /** Also read this place (the location feed): 404 when it does not exist. */
  placeId?: string;
  /** The refusal for a reader without a location, when this feed needs one. */
  homeRequired?: () => AppError;
}

export const GENERAL_LOCATION_HINT = {
  message: 'Set your location to see what happens around you first; until then the general feed shows posts from everywhere.',
  action: 'update_location',
} as const;

interface FeedPage {
  items: PostBody[];
  has_more: boolean;
  /** The reader's place, read in the same statement as the page. */
  home: PlaceHead | null;
  /** The place `placeId` asked for, null when it does not exist. */
  place: PlaceHead | null;
}

/**
 * A page of one feed as `ctx.user` sees it: one statement (ranking.ts) ranks the page within the reader's
 * snapshot and reads its posts with the reader's like and bookmark, where the reader lives now and, for a
 * page that starts a snapshot, the places around it; then one query per kind of attachment the page holds
 * (posts.queries.ts completePosts). A page past the end is 404 `Invalid page.` (DESIGN.md section 7); page 1
 * of an empty feed is empty.
 *
 * A snapshot of a feed that follows the reader's home is not continued once the reader has moved: the page
 * is then read again in a new snapshot of the new place (by offset), as if no page had been read there.
 */
async function readFeed(ctx: AuthedContext, scope: FeedScope, input: FeedPageInput): Promise<FeedPage> {
  const page = input.page ?? 1;
  const pageSize = Math.min(input.page_size ?? FEED_PAGE_SIZE, FEED_PAGE_MAX);
  let snapshot = page > 1 ? await readSnapshot(ctx.user.id, scope.key) : null;
  if (snapshot && snapshot.pageSize !== pageSize) snapshot = null;
  let result = await feedPage(ctx, scope, page, pageSize, snapshot);
  if (snapshot && scope.followsHome && (result.home?.id ?? null) !== (snapshot.home ?? null)) result = await feedPage(ctx, scope, page, pageSize, null);
  if (scope.placeId && !result.place) throw notFound();
  if (scope.homeRequired && !result.home) throw scope.homeRequired();
  if (result.pastTheEnd) throw new AppError(404, { detail: MESSAGES.invalidPage });
  return result;
}

async function feedPage(
  ctx: AuthedContext,
  scope: FeedScope,
  page: number,
  pageSize: number,
  snapshot: FeedSnapshot | null,
): Promise<FeedPage & { pastTheEnd: boolean }> {
  const at = snapshot?.at ?? new Date().toISOString();
  const ends = snapshot?.ends ?? {};
  // Continue from the nearest page already served before this one; skip whole pages from there.
  const from = Math.max(0, ...Object.keys(ends).map(Number).filter((n) => n < page));
  if ((page - 1 - from) * pageSize > MAX_JUMP_ITEMS) {
    // Refused without ranking; the place and the home are still checked first, as for any other page.
    if (scope.placeId && !(await findPlace(scope.placeId))) throw notFound();
    if (scope.homeRequired && !(await findHome(ctx.user.id))) throw scope.homeRequired();
    throw new AppError(404, { detail: MESSAGES.invalidPage });
  }
  const ranked = await feedPageRows(
    {
      source: snapshot ? { places: snapshot.places } : withKeptPlaces(scope.source, ctx.user.id),
      everything: scope.everything,
      snapshotAt: new Date(at),
      after: from > 0 ? ends[String(from)] : null,
      skip: (page - 1 - from) * pageSize,
      take: pageSize + 1,
      show: pageSize,
      placeId: scope.placeId,
    },
    ctx.user.id,
  );
  if (ranked.home) rememberHome(ctx.user.id, ranked.home.id);
  if (!snapshot && 'around' in scope.source && ranked.home) {
    if (ranked.home.id === ranked.keptHome) scopeUse.kept++;
    else {
      scopeUse.found++;
      keepScope(scopeKey(scope.source.around, ranked.home.id), ranked.places);
    }
  }
  const shown = ranked.items;
  const answer = { has_more: ranked.more, home: ranked.home, place: ranked.place };
  if ((scope.placeId && !ranked.place) || (scope.homeRequired && !ranked.home)) return { ...answer, items: [], pastTheEnd: false };
  if (page > 1 && !shown.length) return { ...answer, items: [], pastTheEnd: true };
  if (shown.length) {
    const last = shown[shown.length - 1];
    const next: FeedSnapshot = {
      at,
      pageSize,
      places: ranked.places,
      everything: scope.everything,
      home: snapshot ? (snapshot.home ?? null) : (ranked.home?.id ?? null),
      ends: { ...ends, [String(page)]: { rank: last.rank, id: last.id } },
    };
    await saveSnapshot(ctx.user.id, scope.key, next);
  }
  const posts = await completePosts(ranked.posts, ctx.user.id, currentDb(), ctx.baseUrl);
  const now = new Date();
  return { ...answer, items: posts.map((p) => serializePost(p, ctx, now)), pastTheEnd: false };
}

const scopeKey = (around: 'neighbourhood' | 'area', homeId: string) => `${around}:${homeId}`;

/**
 * A new snapshot of the places around the reader: with the places kept for where the reader lived at its last
 * page, which the page's statement uses only if the reader still lives there (ranking.ts). A new neighbouring
 * place therefore joins new snapshots within SCOPE_TTL_MS; a reader who moved gets its new place's at once.
 */
function withKeptPlaces(source: PlaceSource, userId: string): PlaceSource {
  if (!('around' in source)) return source;
  const homeId = rememberedHome(userId);
  const places = homeId ? knownScope(scopeKey(source.around, homeId)) : undefined;
  return homeId && places ? { around: source.around, kept: { homeId, places } } : source;
}

const locationInfo = (place: PlaceHead) => ({ name: place.name, location_id: place.id });

const locationRequired = () => new AppError(400, { ...LOCATION_REQUIRED_BODY, message: 'Set your location to see your neighbourhood feed.' });

/** The caller's place and its neighbours; a caller with no location gets the contract's Location Required. */
export async function neighbourhoodFeed(ctx: AuthedContext, input: FeedPageInput) {
  const page = await readFeed(ctx, { key: 'neighbourhood', source: { around: 'neighbourhood' }, everything: false, followsHome: true, homeRequired: locationRequired }, input);
  if (!page.home) throw locationRequired();
  return {
    items: page.items,
    has_more: page.has_more,
    feed_type: 'neighbourhood' as const,
    location_info: locationInfo(page.home),
    enhancement_endpoints: enhancementEndpoints(page.home.id),
  };
}

/** The caller's city or area first, then everything; without a location, everything and a hint. */
export async function generalFeed(ctx: AuthedContext, input: FeedPageInput) {
  const page = await readFeed(ctx, { key: 'general', source: { around: 'area' }, everything: true, followsHome: true }, input);
  return {
    items: page.items,
    has_more: page.has_more,
    feed_type: 'general' as const,
    enhancement_endpoints: enhancementEndpoints(page.home?.id ?? null),
    ...(page.home ? {} : { location_hint: GENERAL_LOCATION_HINT }),
  };
}

/** One place's posts; `can_post` says whether the caller lives there (posts go to the author's place). */
export async function locationFeed(ctx: AuthedContext, input: FeedPageInput & { location_id: string }) {
  // The places read do not depend on the reader's home here; the same statement reads the place (404 when
  // unknown) and the reader's home, which answers can_post.
  const place = { locationId: input.location_id, penalty: 0 };
  const page = await readFeed(ctx, { key: `location:${input.location_id}`, source: { places: [place] }, everything: false, followsHome: false, placeId: input.location_id }, input);
  if (!page.place) throw notFound();
  return {
    items: page.items,
    has_more: page.has_more,
    feed_type: 'location_specific' as const,
    can_post: page.home?.id === page.place.id,
    location_info: locationInfo(page.place),
    enhancement_endpoints: enhancementEndpoints(page.place.id),
  };
}
