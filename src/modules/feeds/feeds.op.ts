import { z } from 'zod';
import { defineOperation, ok, type RateLimitRule } from '../../core/operation.js';
import { zPage, zPageSize, zUuid } from '../../core/validation.js';
import { generalFeed, locationFeed, neighbourhoodFeed } from './feeds.service.js';
import { userSuggestions } from './enhancements.service.js';
import { communitySuggestions, storeSuggestions } from './place-enhancements.service.js';
import { zCommunitiesEnhancement, zGeneralFeed, zLocationFeed, zNeighbourhoodFeed, zStoresEnhancement, zUsersEnhancement } from './feeds.serializer.js';

/** Reads are generous: 600 a minute per user (docs/modules/feeds.md). */
export const FEED_READ_LIMIT: RateLimitRule = { name: 'reader', points: 600, durationSeconds: 60, key: 'user' };

const zFeedPage = z.object({ page: zPage(), page_size: zPageSize() });

export const neighbourhoodFeedOp = defineOperation({
  name: 'feeds.neighbourhood',
  method: 'GET',
  path: '/api/feed/hybrid/neighbourhood/',
  auth: 'user',
  summary: "Posts of the caller's place and the places around it, ranked (page size 15 by default, at most 50)",
  tags: ['feeds'],
  input: zFeedPage,
  rateLimits: [FEED_READ_LIMIT],
  responses: { 200: zNeighbourhoodFeed },
  errors: [403],
  handler: async (input, ctx) => ok(await neighbourhoodFeed(ctx, input)),
});

export const generalFeedOp = defineOperation({
  name: 'feeds.general',
  method: 'GET',
  path: '/api/feed/hybrid/general/',
  auth: 'user',
  summary: "Posts of the caller's city or area first, then of everywhere, ranked",
  tags: ['feeds'],
  input: zFeedPage,
  rateLimits: [FEED_READ_LIMIT],
  responses: { 200: zGeneralFeed },
  errors: [403],
  handler: async (input, ctx) => ok(await generalFeed(ctx, input)),
});

export const locationFeedOp = defineOperation({
  name: 'feeds.location',
  method: 'GET',
  path: '/api/feed/hybrid/location/{location_id}/',
  auth: 'user',
  summary: 'Posts of one location, ranked; can_post tells whether the caller lives there',
  tags: ['feeds'],
  input: zFeedPage.extend({ location_id: zUuid() }),
  rateLimits: [FEED_READ_LIMIT],
  responses: { 200: zLocationFeed },
  errors: [403],
  handler: async (input, ctx) => ok(await locationFeed(ctx, input)),
});

const zEnhancementInput = z.object({ location_id: z.preprocess((v) => (v === '' || v === null ? undefined : v), zUuid().optional()) });

export const usersEnhancementOp = defineOperation({
  name: 'feeds.enhancements.users',
  method: 'GET',
  path: '/api/feed/enhancements/users/',
  auth: 'user',
  summary: 'People living near the caller (or near location_id), to place between feed items',
  tags: ['feeds'],
  input: zEnhancementInput,
  rateLimits: [FEED_READ_LIMIT],
  responses: { 200: zUsersEnhancement },
  errors: [404],
  handler: async (input, ctx) => ok(await userSuggestions(ctx, input)),
});

export const storesEnhancementOp = defineOperation({
  name: 'feeds.enhancements.stores',
  method: 'GET',
  path: '/api/feed/enhancements/stores/',
  auth: 'user',
  summary: 'Stores near the caller (or near location_id) that the caller does not own, to place between feed items',
  tags: ['feeds'],
  input: zEnhancementInput,
  rateLimits: [FEED_READ_LIMIT],
  responses: { 200: zStoresEnhancement },
  errors: [404],
  handler: async (input, ctx) => ok(await storeSuggestions(ctx, input)),
});

export const communitiesEnhancementOp = defineOperation({
  name: 'feeds.enhancements.communities',
  method: 'GET',
  path: '/api/feed/enhancements/communities/',
  auth: 'user',
  summary: 'Communities near the caller (or near location_id) that the caller is not in, to place between feed items',
  tags: ['feeds'],
  input: zEnhancementInput,
  rateLimits: [FEED_READ_LIMIT],
  responses: { 200: zCommunitiesEnhancement },
  errors: [404],
  handler: async (input, ctx) => ok(await communitySuggestions(ctx, input)),
});

export const feedOperations = [neighbourhoodFeedOp, generalFeedOp, locationFeedOp, usersEnhancementOp, storesEnhancementOp, communitiesEnhancementOp];
