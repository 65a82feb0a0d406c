import type { AuthedContext } from '../../core/context.js';
import { AppError, MESSAGES, notFound } from '../../core/errors.js';
import { loadPosts } from '../posts/posts.queries.js';
import { serializePost, type PostBody } from '../posts/posts.serializer.js';
import { LOCATION_REQUIRED_BODY } from '../posts/targets.js';
import { rankedPage } from './ranking.js';
import { readSnapshot, saveSnapshot, type FeedSnapshot } from './snapshots.js';
import { areaOf, findHome, findPlace, neighbourhoodOf, type PlaceHead, type ScopedPlace } from './scope.queries.js';
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
  places: () => Promise<ScopedPlace[]>;
  everything: boolean;
}

export const GENERAL_LOCATION_HINT = {
  message: 'Set your location to see what happens around you first; until then the general feed shows posts from everywhere.',
  action: 'update_location',
} as const;

/** Where each recent reader lived at its last page (per node): a guess, checked by every page's own query. */
const knownHomes = new Map<string, PlaceHead>();
const KNOWN_HOMES_MAX = 50_000;

function rememberHome(userId: string, home: PlaceHead | null): void {
  knownHomes.delete(userId);
  if (!home) return;
  knownHomes.set(userId, home);
  if (knownHomes.size > KNOWN_HOMES_MAX) knownHomes.delete(knownHomes.keys().next().value!);
}

interface FeedPage {
  items: PostBody[];
  has_more: boolean;
  /** The reader's place, read in the same statement as the page. */
  home: PlaceHead | null;
}

/**
 * A page of one feed as `ctx.user` sees it: the ranked ids (ranking.ts) within the reader's snapshot, then
 * the page's posts with the reader's like, bookmark and vote in one batch (posts.queries.ts loadPosts).
 * A page past the end is 404 `Invalid page.` (DESIGN.md section 7); page 1 of an empty feed is empty.
 *
 * Which places a feed reads depends on where the reader lives. Instead of a query for that before every
 * page, the page is ranked for where the reader lived at its last page, and the same statement reads where
 * it lives now; when the two differ (the reader moved), the page is ranked again for the new place.
 */
async function readFeed(ctx: AuthedContext, scopeFor: (home: PlaceHead | null) => FeedScope, input: FeedPageInput): Promise<FeedPage> {
  let home = knownHomes.get(ctx.user.id) ?? (await findHome(ctx.user.id));
  for (let attempt = 0; ; attempt++) {
    const page = await feedPage(ctx, scopeFor(home), input);
    rememberHome(ctx.user.id, page.home);
    if (page.home?.id === home?.id || attempt === 2) {
      if (page.pastTheEnd) throw new AppError(404, { detail: MESSAGES.invalidPage });
      return { items: page.items, has_more: page.has_more, home: page.home };
    }
    home = page.home;
  }
}

async function feedPage(ctx: AuthedContext, scope: FeedScope, input: FeedPageInput): Promise<FeedPage & { pastTheEnd: boolean }> {
  const page = input.page ?? 1;
  const pageSize = Math.min(input.page_size ?? FEED_PAGE_SIZE, FEED_PAGE_MAX);
  let snapshot = page > 1 ? await readSnapshot(ctx.user.id, scope.key) : null;
  if (snapshot && snapshot.pageSize !== pageSize) snapshot = null;
  if (!snapshot) snapshot = { at: new Date().toISOString(), pageSize, places: await scope.places(), everything: scope.everything, ends: {} };
  // Continue from the nearest page already served before this one; skip whole pages from there.
  const from = Math.max(0, ...Object.keys(snapshot.ends).map(Number).filter((n) => n < page));
  if ((page - 1 - from) * pageSize > MAX_JUMP_ITEMS) throw new AppError(404, { detail: MESSAGES.invalidPage });
  const ranked = await rankedPage(
    {
      places: snapshot.places,
      everything: snapshot.everything,
      snapshotAt: new Date(snapshot.at),
      after: from > 0 ? snapshot.ends[String(from)] : null,
      skip: (page - 1 - from) * pageSize,
      take: pageSize + 1,
    },
    ctx.user.id,
  );
  const shown = ranked.items.slice(0, pageSize);
  if (page > 1 && !shown.length) return { items: [], has_more: false, home: ranked.home, pastTheEnd: true };
  if (shown.length) {
    const last = shown[shown.length - 1];
    const next: FeedSnapshot = { ...snapshot, ends: { ...snapshot.ends, [String(page)]: { rank: last.rank, id: last.id } } };
    await saveSnapshot(ctx.user.id, scope.key, next);
  }
  const posts = await loadPosts(
    shown.map((r) => r.id),
    ctx.user.id,
  );
  const now = new Date();
  return { items: posts.map((p) => serializePost(p, ctx, now)), has_more: ranked.items.length > pageSize, home: ranked.home, pastTheEnd: false };
}

const locationInfo = (place: PlaceHead) => ({ name: place.name, location_id: place.id });

const locationRequired = () => new AppError(400, { ...LOCATION_REQUIRED_BODY, message: 'Set your location to see your neighbourhood feed.' });

/** The caller's place and its neighbours; a caller with no location gets the contract's Location Required. */
export async function neighbourhoodFeed(ctx: AuthedContext, input: FeedPageInput) {
  const page = await readFeed(
    ctx,
    (home) => {
      if (!home) throw locationRequired();
      return { key: `neighbourhood:${home.id}`, places: () => neighbourhoodOf(home.id), everything: false };
    },
    input,
  );
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
  const page = await readFeed(ctx, (home) => ({ key: `general:${home?.id ?? 'none'}`, places: async () => (home ? areaOf(home.id) : []), everything: true }), input);
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
  const place = await findPlace(input.location_id);
  if (!place) throw notFound();
  // The places read do not depend on the reader's home here: one pass, and its home answers can_post.
  const page = await feedPage(ctx, { key: `location:${place.id}`, places: async () => [{ locationId: place.id, penalty: 0 }], everything: false }, input);
  rememberHome(ctx.user.id, page.home);
  if (page.pastTheEnd) throw new AppError(404, { detail: MESSAGES.invalidPage });
  return {
    items: page.items,
    has_more: page.has_more,
    feed_type: 'location_specific' as const,
    can_post: page.home?.id === place.id,
    location_info: locationInfo(place),
    enhancement_endpoints: enhancementEndpoints(place.id),
  };
}
