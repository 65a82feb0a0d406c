import { z } from 'zod';
import { defineOperation, ok, type RateLimitRule } from '../../core/operation.js';
import { zOptionalNumber, zPage, zPageSize, zUuid } from '../../core/validation.js';
import { zPaginated } from '../../core/response-schemas.js';
import { zPostBody } from '../posts/posts.serializer.js';
import { search } from './search.service.js';
import { tagFeed, trendingTags } from './tags.service.js';
import { SEARCH_TYPE_NAMES, zSearchAnswer, zTrendingTags } from './search.serializer.js';

/** Search reads cost more than a list: 120 a minute per caller (docs/modules/search.md). */
export const SEARCH_LIMIT: RateLimitRule = { name: 'searcher', points: 120, durationSeconds: 60, key: 'user' };
const READ_LIMIT: RateLimitRule = { name: 'reader', points: 600, durationSeconds: 60, key: 'user' };

const optionalUuid = () => z.preprocess((v) => (v === '' || v === null ? undefined : v), zUuid().optional());
const zCoordinate = (min: number, max: number, what: string) =>
  zOptionalNumber().pipe(z.number().min(min, `Ensure ${what} is between ${min} and ${max}.`).max(max, `Ensure ${what} is between ${min} and ${max}.`).optional());

export const searchOp = defineOperation({
  name: 'search.query',
  method: 'GET',
  path: '/api/search/',
  auth: 'optional',
  summary: 'Search posts, comments, people, stores, products, communities, places and tags; all kinds (best 5 each) or one `type`, paginated (posts and comments: the newest 200 matches are ranked and counted)',
  tags: ['search'],
  input: z
    .object({
      q: z
        .string({ error: 'This field is required.' })
        .min(1, 'Ensure this field has at least 1 character.')
        .max(200, 'Ensure this field has no more than 200 characters.'),
      type: z.preprocess((v) => (v === '' || v === null ? undefined : v), z.enum(SEARCH_TYPE_NAMES, { error: `Choose one of: ${SEARCH_TYPE_NAMES.join(', ')}.` }).optional()),
      location_id: optionalUuid(),
      latitude: zCoordinate(-90, 90, 'latitude'),
      longitude: zCoordinate(-180, 180, 'longitude'),
      page: zPage(),
      page_size: zPageSize(),
    })
    .refine((v) => (v.latitude === undefined) === (v.longitude === undefined), { message: 'Give latitude and longitude together.', path: ['latitude'] }),
  rateLimits: [SEARCH_LIMIT],
  responses: { 200: zSearchAnswer },
  errors: [404],
  handler: async (input, ctx) => ok(await search(ctx, input)),
});

export const trendingTagsOp = defineOperation({
  name: 'search.trending_tags',
  method: 'GET',
  path: '/api/search/trending-tags/',
  auth: 'optional',
  summary: 'The hashtags of the last 24 hours near a place (it and its neighbours), by how many people used them; at most 10',
  tags: ['search'],
  input: z.object({ location_id: zUuid() }),
  rateLimits: [READ_LIMIT],
  responses: { 200: zTrendingTags },
  errors: [404],
  handler: async (input, ctx) => ok(await trendingTags(ctx, input.location_id)),
});

export const tagFeedOp = defineOperation({
  name: 'feeds.tag',
  method: 'GET',
  path: '/api/feed/tags/{tag}/',
  auth: 'optional',
  summary: 'Posts carrying a hashtag, nearest place first (to location_id, else the caller’s place), then newest',
  tags: ['search'],
  input: z.object({ tag: z.string().max(60, 'Ensure this field has no more than 60 characters.'), location_id: optionalUuid(), page: zPage(), page_size: zPageSize() }),
  rateLimits: [READ_LIMIT],
  responses: { 200: zPaginated(zPostBody) },
  errors: [404],
  handler: async (input, ctx) => ok(await tagFeed(ctx, input)),
});

export const searchOperations = [searchOp, trendingTagsOp, tagFeedOp];
