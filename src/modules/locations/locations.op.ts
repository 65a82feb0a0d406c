import { z } from 'zod';
import { defineOperation, ok, created } from '../../core/operation.js';
import { zBool, zNumber, zOptionalNumber, zOptionalText, zPage, zPageSize, zUuid } from '../../core/validation.js';
import { parseCoordinates } from './coordinates.js';
import { smartUpdate } from './smart-update.service.js';
import { listSuggestions, nameSuggestions, suggestName } from './name-suggestions.service.js';
import { listLocations, locationAnalytics, locationDetail, nearbyLocations, searchLocations, type ListFilters } from './locations.service.js';
import { adminUpdateLocation, flagForReview, updateBoundary } from './moderation.service.js';
// Registers the realtime channel `location` (subscribe answers 404 for an unknown id).
import './locations.channel.js';
import {
  zFlagForReviewAnswer,
  zLocationAnalytics,
  zLocationBody,
  zLocationListItem,
  zNameSuggestionsAnswer,
  zNearbyAnswer,
  zSearchAnswer,
  zSmartUpdateExisting,
  zSmartUpdateNew,
  zSuggestionListItem,
  zSuggestNameAnswer,
  zUpdateBoundaryAnswer,
} from './locations.serializer.js';
import { zPaginated } from '../../core/response-schemas.js';

/** The locations area (contract: Locations, version 2.0.0 and the earlier endpoints). */
const tags = ['locations'];
const coordinate = z.unknown().optional().describe('degrees, number or numeric string');

export const smartUpdateOp = defineOperation({
  name: 'locations.smart_update',
  method: 'POST',
  path: '/api/locations/locations/smart_update/',
  auth: 'user',
  summary: 'Join the location whose boundary contains these coordinates, or create one',
  tags,
  input: z.object({
    latitude: coordinate,
    longitude: coordinate,
    suggested_name: z.string().optional(),
    geocoded_data: z.object({ address: z.record(z.string(), z.unknown()).optional() }).nullable().optional(),
  }),
  responses: { 200: zSmartUpdateExisting, 201: zSmartUpdateNew },
  errors: [404],
  handler: async (input, ctx) => {
    const coords = parseCoordinates(input, { whenMissing: 'smart_update' })!;
    const result = await smartUpdate(ctx, { ...coords, suggested_name: input.suggested_name, geocoded_data: input.geocoded_data ?? undefined });
    return result.source === 'new' ? created(result) : ok(result);
  },
});

export const suggestNameOp = defineOperation({
  name: 'locations.suggest_name',
  method: 'POST',
  path: '/api/locations/locations/{location_id}/suggest_name/',
  auth: 'user',
  summary: 'Suggest a name; the location is renamed when the consensus rule says so',
  tags,
  input: z.object({ location_id: zUuid(), name: z.unknown() }),
  responses: { 200: zSuggestNameAnswer },
  // Only members and neighbours may name a place (assertMayName).
  errors: [403],
  handler: async (input, ctx) => ok(await suggestName(ctx, input.location_id, input.name)),
});

export const nameSuggestionsOp = defineOperation({
  name: 'locations.name_suggestions',
  method: 'GET',
  path: '/api/locations/locations/{location_id}/name_suggestions/',
  auth: 'user',
  summary: 'Suggestions for a location: grouped by similarity, or one by one with show_individual=true (paginated)',
  tags,
  input: z.object({ location_id: zUuid(), show_individual: zBool().optional(), page: zPage(), page_size: zPageSize() }),
  responses: { 200: zNameSuggestionsAnswer },
  handler: async (input, ctx) => ok(await nameSuggestions(ctx, input.location_id, input)),
});

export const nearbyOp = defineOperation({
  name: 'locations.nearby',
  method: 'GET',
  path: '/api/locations/locations/nearby/',
  auth: 'user',
  summary: 'Locations within max_distance km (default 5), nearest first',
  tags,
  input: z.object({
    latitude: coordinate,
    longitude: coordinate,
    // An empty `max_distance=` (a form left blank) means the default, like an absent one.
    max_distance: zOptionalNumber().refine((v) => v === undefined || (v > 0 && v <= 100), 'Ensure this value is greater than 0 and at most 100.'),
  }),
  responses: { 200: zNearbyAnswer },
  handler: async (input) => {
    const { latitude, longitude } = parseCoordinates(input, { whenMissing: 'invalid' })!;
    return ok(await nearbyLocations(latitude, longitude, input.max_distance ?? 5.0));
  },
});

export const searchOp = defineOperation({
  name: 'locations.search',
  method: 'GET',
  path: '/api/locations/locations/search/',
  auth: 'user',
  summary: 'Fuzzy name search (pg_trgm); nearest first when coordinates are given',
  tags,
  // At most a name's length (100): trigram matching costs grow with the query, and nothing longer can match better.
  input: z.object({ q: zOptionalText(100), latitude: coordinate, longitude: coordinate }),
  responses: { 200: zSearchAnswer },
  handler: async (input) => ok(await searchLocations(input.q, parseCoordinates(input, { whenMissing: 'optional' }))),
});

const listInput = z.object({
  country: zOptionalText(255),
  state: zOptionalText(255),
  city: zOptionalText(255),
  neighbourhood: zOptionalText(255),
  search: zOptionalText(100),
  min_confidence: zNumber()
    .refine((v) => typeof v === 'number' && v >= 0 && v <= 1, 'Ensure this value is between 0 and 1.')
    .optional(),
  needs_verification: zBool().optional(),
  order_by_confidence: zBool().optional(),
  order_by_posts: zBool().optional(),
  order_by_stores: zBool().optional(),
  page: zPage(),
  page_size: zPageSize(),
});

export const listOp = defineOperation({
  name: 'locations.list',
  method: 'GET',
  path: '/api/locations/locations/',
  auth: 'user',
  summary: 'Locations, filtered and ordered (paginated)',
  tags,
  input: listInput,
  responses: { 200: zPaginated(zLocationListItem) },
  handler: async (input, ctx) => ok(await listLocations(ctx, '/api/locations/locations/', input as ListFilters)),
});

export const detailOp = defineOperation({
  name: 'locations.detail',
  method: 'GET',
  path: '/api/locations/locations/{location_id}/',
  auth: 'user',
  summary: 'One location',
  tags,
  input: z.object({ location_id: zUuid() }),
  responses: { 200: zLocationListItem },
  handler: async (input) => ok(await locationDetail(input.location_id)),
});

export const flagForReviewOp = defineOperation({
  name: 'locations.flag_for_review',
  method: 'POST',
  path: '/api/locations/locations/{location_id}/flag_for_review/',
  auth: 'user',
  summary: 'Flag a location for moderator review',
  tags,
  rateLimits: [{ name: 'user', points: 20, durationSeconds: 3600, key: 'user' }],
  input: z.object({ location_id: zUuid(), reason: zOptionalText(500) }),
  responses: { 200: zFlagForReviewAnswer },
  handler: async (input, ctx) => ok(await flagForReview(ctx, input.location_id, input.reason)),
});

export const analyticsOp = defineOperation({
  name: 'locations.analytics',
  method: 'GET',
  path: '/api/locations/locations/analytics/',
  auth: 'staff',
  summary: 'Location statistics (staff)',
  tags,
  input: z.object({}),
  responses: { 200: zLocationAnalytics },
  handler: async () => ok(await locationAnalytics()),
});

export const suggestionsOp = defineOperation({
  name: 'locations.suggestions',
  method: 'GET',
  path: '/api/locations/suggestions/',
  auth: 'user',
  summary: "Name suggestions, by location and/or the caller's own (paginated)",
  tags,
  input: z.object({ location_id: zUuid().optional(), my_suggestions: zBool().optional(), page: zPage(), page_size: zPageSize() }),
  responses: { 200: zPaginated(zSuggestionListItem) },
  handler: async (input, ctx) => ok(await listSuggestions(ctx, input)),
});

export const updateBoundaryOp = defineOperation({
  name: 'locations.update_boundary',
  method: 'POST',
  path: '/api/locations/locations/{location_id}/update_boundary/',
  auth: 'admin',
  summary: "Recalculate a location's boundary now (administrators)",
  tags,
  input: z.object({ location_id: zUuid() }),
  responses: { 200: zUpdateBoundaryAnswer },
  handler: async (input, ctx) => ok(await updateBoundary(ctx, input.location_id)),
});

export const legacyListOp = defineOperation({
  name: 'locations.legacy_list',
  method: 'GET',
  path: '/api/locations/',
  auth: 'user',
  summary: 'Locations (1.0.0 path)',
  tags,
  input: listInput,
  responses: { 200: zPaginated(zLocationListItem) },
  handler: async (input, ctx) => ok(await listLocations(ctx, '/api/locations/', input as ListFilters)),
});

export const legacyDetailOp = defineOperation({
  name: 'locations.legacy_detail',
  method: 'GET',
  path: '/api/locations/{location_id}/',
  auth: 'user',
  summary: 'One location (1.0.0 path)',
  tags,
  input: z.object({ location_id: zUuid() }),
  responses: { 200: zLocationListItem },
  handler: async (input) => ok(await locationDetail(input.location_id)),
});

export const adminUpdateLocationOp = defineOperation({
  name: 'admin.locations_update',
  method: 'PATCH',
  path: '/api/admin/locations/{location_id}/',
  auth: 'admin',
  summary: 'Approve a location or set its needs_verification flag (administrators; moderation-logged)',
  tags: ['admin', 'locations'],
  input: z.object({ location_id: zUuid(), moderator_approved: zBool().optional(), needs_verification: zBool().optional() }),
  responses: { 200: zLocationBody },
  handler: async (input, ctx) => ok(await adminUpdateLocation(ctx, input.location_id, input)),
});

export const locationOperations = [
  smartUpdateOp,
  suggestNameOp,
  nameSuggestionsOp,
  nearbyOp,
  searchOp,
  listOp,
  detailOp,
  flagForReviewOp,
  analyticsOp,
  suggestionsOp,
  updateBoundaryOp,
  legacyListOp,
  legacyDetailOp,
  adminUpdateLocationOp,
];
