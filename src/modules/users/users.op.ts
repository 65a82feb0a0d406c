import { z } from 'zod';
import { defineOperation, ok } from '../../core/operation.js';
import { zBool, zNumber, zOptionalText, zPage, zPageSize } from '../../core/validation.js';
import { imageField, zImageFile } from '../../core/uploads.js';
import { HIERARCHY_LEVELS, RELATIONSHIP_STATUSES } from '../../models/index.js';
import { getProfile, getPublicProfile, nearbyUsers, searchUsers, updateLocation, updateProfile } from './users.service.js';
import { zUserBody, zUserSummary } from './users.serializer.js';
import { zPaginated } from '../../core/response-schemas.js';

const COORDINATE_ERROR = 'Invalid coordinate value.';
/** Degrees with at most 8 decimals (the storage precision), within the valid range. */
const zCoordinate = (limit: number) =>
  zNumber(COORDINATE_ERROR).refine((v) => typeof v === 'number' && Math.abs(v) <= limit, COORDINATE_ERROR).transform((v) => Math.round(v * 1e8) / 1e8);
export const zLatitude = () => zCoordinate(90);
export const zLongitude = () => zCoordinate(180);

/** Multipart forms carry a nested object as a JSON string. */
const jsonObject = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  }, schema);

// A level of only spaces is no level: it would otherwise pass "at least one level" and create a nameless location.
const zLevel = () => z.preprocess((v) => (typeof v === 'string' ? v.trim() || null : v), z.string().max(255, 'Ensure this field has no more than 255 characters.').nullable().optional());

const profileFields = z.object({
  display_name: z.string().trim().min(1, 'This field may not be blank.').max(100, 'Ensure this field has no more than 100 characters.').optional(),
  bio: z.string().max(500, 'Ensure this field has no more than 500 characters.').optional(),
  // Web links only: a `javascript:` or `data:` "website" would run script in the apps that render it as a link.
  website: z.preprocess(
    (v) => (v === null ? '' : v),
    z.union([z.literal(''), z.url({ protocol: /^https?$/, error: 'Enter a valid URL.' }).max(200, 'Ensure this field has no more than 200 characters.')], { error: 'Enter a valid URL.' }).optional(),
  ),
  relationship_status: z.preprocess((v) => (v === '' ? null : v), z.enum(RELATIONSHIP_STATUSES, { error: (i) => `"${String(i.input)}" is not a valid choice.` }).nullable().optional()),
  profile_picture: zImageFile().optional(),
  banner: zImageFile().optional(),
  discoverable: zBool().optional(),
  location: jsonObject(
    z
      .object({ country: zLevel(), state: zLevel(), city: zLevel(), latitude: zLatitude().optional(), longitude: zLongitude().optional() })
      .refine((l) => (l.latitude === undefined) === (l.longitude === undefined), { message: 'Send both latitude and longitude, or neither.', path: ['latitude'] })
      .refine((l) => Boolean(l.country || l.state || l.city), { message: 'Give at least one of country, state or city.', path: ['non_field_errors'] }),
  ).optional(),
});
const profileFiles = [imageField('profile_picture'), imageField('banner')];

export const getProfileOp = defineOperation({
  name: 'users.profile',
  method: 'GET',
  path: '/api/users/profile/',
  auth: 'user',
  summary: "The caller's own profile",
  tags: ['users'],
  input: z.object({}),
  responses: { 200: zUserBody },
  errors: [404],
  handler: async (_input, ctx) => ok(await getProfile(ctx)),
});

export const updateProfileOp = defineOperation({
  name: 'users.profile_update',
  method: 'PUT',
  path: '/api/users/profile/update/',
  auth: 'user',
  summary: "Update the caller's profile (only the fields sent change)",
  tags: ['users'],
  files: profileFiles,
  input: profileFields,
  responses: { 200: zUserBody },
  // 404: the account was deleted while this update waited for it (its uploaded files are removed).
  errors: [404],
  handler: async (input, ctx) => ok(await updateProfile(ctx, input)),
});

export const patchProfileOp = defineOperation({
  name: 'users.profile_patch',
  method: 'PATCH',
  path: '/api/users/profile/',
  auth: 'user',
  summary: "Partially update the caller's profile",
  tags: ['users'],
  files: profileFiles,
  input: profileFields,
  responses: { 200: zUserBody },
  // 404: the account was deleted while this update waited for it (its uploaded files are removed).
  errors: [404],
  handler: async (input, ctx) => ok(await updateProfile(ctx, input)),
});

export const publicProfileOp = defineOperation({
  name: 'users.get',
  method: 'GET',
  path: '/api/users/{username}',
  auth: 'public',
  summary: 'A user by username',
  tags: ['users'],
  input: z.object({ username: z.string().min(1) }),
  responses: { 200: zUserBody },
  handler: async (input, ctx) => ok(await getPublicProfile(input.username, ctx)),
});

export const updateLocationOp = defineOperation({
  name: 'users.update_location',
  method: 'POST',
  path: '/api/users/update-location/',
  auth: 'user',
  summary: "Set the caller's location from an address (named from its most specific level)",
  tags: ['users'],
  input: z
    .object({
      ...(Object.fromEntries(HIERARCHY_LEVELS.map((l) => [l, zLevel()])) as Record<(typeof HIERARCHY_LEVELS)[number], ReturnType<typeof zLevel>>),
      latitude: zLatitude().optional(),
      longitude: zLongitude().optional(),
    })
    .superRefine((v, issue) => {
      if ((v.latitude === undefined) !== (v.longitude === undefined)) {
        issue.addIssue({ code: 'custom', path: ['latitude'], message: COORDINATE_ERROR });
        issue.addIssue({ code: 'custom', path: ['longitude'], message: COORDINATE_ERROR });
      }
      if (!HIERARCHY_LEVELS.some((l) => v[l])) issue.addIssue({ code: 'custom', path: ['non_field_errors'], message: 'Give at least one level of the address.' });
    }),
  responses: { 200: z.object({ message: z.string(), location: z.object({ id: z.string(), name: z.string() }) }) },
  handler: async (input, ctx) => ok(await updateLocation(ctx, input)),
});

export const searchUsersOp = defineOperation({
  name: 'users.search',
  method: 'GET',
  path: '/api/users/search/',
  auth: 'user',
  summary: 'Users whose username or display name contains the query (case-insensitive)',
  tags: ['users'],
  input: z.object({ query: zOptionalText(100) }),
  responses: { 200: z.array(zUserSummary) },
  handler: async (input, ctx) => ok(await searchUsers(ctx, input.query)),
});

export const nearbyUsersOp = defineOperation({
  name: 'users.nearby',
  method: 'GET',
  path: '/api/users/nearby-users/',
  auth: 'user',
  summary: 'Users within 100 km of the caller, nearest first',
  tags: ['users'],
  input: z.object({ page: zPage(), page_size: zPageSize() }),
  responses: { 200: zPaginated(zUserBody) },
  handler: async (input, ctx) => ok(await nearbyUsers(ctx, input)),
});

export const userOperations = [getProfileOp, updateProfileOp, patchProfileOp, publicProfileOp, updateLocationOp, searchUsersOp, nearbyUsersOp];
