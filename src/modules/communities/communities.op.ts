import { z } from 'zod';
import { created, defineOperation, noContent, ok, type RateLimitRule } from '../../core/operation.js';
import { imageField, zImageFile } from '../../core/uploads.js';
import { zOptionalText, zPage, zPageSize, zUuid } from '../../core/validation.js';
import { zPaginated, zNoContent } from '../../core/response-schemas.js';
import { zCommunityBody, zCommunityCategory, zCommunityMember } from './communities.serializer.js';
import {
  createCommunity,
  deleteCommunity,
  getCommunity,
  joinCommunity,
  leaveCommunity,
  listCommunitiesPage,
  listCommunityCategories,
  listCommunityMembers,
  updateCommunity,
} from './communities.service.js';
import './communities.channel.js';

const perUser = (points: number, durationSeconds: number): RateLimitRule[] => [{ name: 'user', points, durationSeconds, key: 'user' }];
const READS = perUser(600, 60);

const zName = () =>
  z
    .string({ error: (i) => (i.input === undefined ? 'This field is required.' : 'Not a valid string.') })
    .trim()
    .min(2, 'Ensure this field has at least 2 characters.')
    .max(100, 'Ensure this field has no more than 100 characters.');
const zDescription = () => z.string({ error: 'Not a valid string.' }).max(2000, 'Ensure this field has no more than 2000 characters.');
/** A location id, or '' / null to untie the community from its place (updates). */
const zLocationRef = () => z.preprocess((v) => (v === '' ? null : v), zUuid().nullable());

const communityFiles = [imageField('avatar'), imageField('banner')];
const zMessage = z.object({ message: z.string() }).meta({ id: 'CommunityMembershipMessage', description: 'What joining or leaving did, in words' });
const zCommunityId = z.object({ community_id: zUuid() });

export const listCommunitiesOp = defineOperation({
  name: 'communities.list',
  method: 'GET',
  path: '/api/communities/communities/',
  auth: 'user',
  summary: 'Communities, most members first; filter by category, location or a search text',
  tags: ['communities'],
  rateLimits: READS,
  input: z.object({
    page: zPage(),
    page_size: zPageSize(),
    category: z.preprocess((v) => (v === '' ? undefined : v), zUuid().optional()),
    location: z.preprocess((v) => (v === '' ? undefined : v), zUuid().optional()),
    search: zOptionalText(100),
  }),
  responses: { 200: zPaginated(zCommunityBody) },
  handler: async (input, ctx) => ok(await listCommunitiesPage(ctx, input)),
});

export const createCommunityOp = defineOperation({
  name: 'communities.create',
  method: 'POST',
  path: '/api/communities/communities/',
  auth: 'user',
  summary: 'Create a community; the creator becomes its owner and first member',
  tags: ['communities'],
  rateLimits: perUser(10, 3600),
  files: communityFiles,
  input: z.object({
    name: zName(),
    description: zDescription().optional(),
    category: zUuid(),
    location: z.preprocess((v) => (v === '' || v === null ? undefined : v), zUuid().optional()),
    avatar: zImageFile().optional(),
    banner: zImageFile().optional(),
  }),
  responses: { 201: zCommunityBody },
  errors: [404],
  handler: async (input, ctx) => created(await createCommunity(ctx, input)),
});

export const getCommunityOp = defineOperation({
  name: 'communities.get',
  method: 'GET',
  path: '/api/communities/communities/{community_id}/',
  auth: 'user',
  summary: 'One community',
  tags: ['communities'],
  rateLimits: READS,
  input: zCommunityId,
  responses: { 200: zCommunityBody },
  handler: async (input, ctx) => ok(await getCommunity(ctx, input.community_id)),
});

export const updateCommunityOp = defineOperation({
  name: 'communities.update',
  method: 'PATCH',
  path: '/api/communities/communities/{community_id}/',
  auth: 'user',
  summary: 'Change a community (owner only; only the fields sent change)',
  tags: ['communities'],
  rateLimits: perUser(60, 3600),
  files: communityFiles,
  input: z.object({
    community_id: zUuid(),
    name: zName().optional(),
    description: zDescription().optional(),
    category: zUuid().optional(),
    location: zLocationRef().optional(),
    avatar: zImageFile().optional(),
    banner: zImageFile().optional(),
  }),
  responses: { 200: zCommunityBody },
  errors: [403],
  handler: async ({ community_id, ...input }, ctx) => ok(await updateCommunity(ctx, community_id, input)),
});

export const deleteCommunityOp = defineOperation({
  name: 'communities.delete',
  method: 'DELETE',
  path: '/api/communities/communities/{community_id}/',
  auth: 'user',
  summary: 'Delete a community (owner only)',
  tags: ['communities'],
  rateLimits: perUser(10, 3600),
  input: zCommunityId,
  responses: { 204: zNoContent },
  errors: [403],
  handler: async (input, ctx) => {
    await deleteCommunity(ctx, input.community_id);
    return noContent();
  },
});

export const joinCommunityOp = defineOperation({
  name: 'communities.join',
  method: 'POST',
  path: '/api/communities/communities/{community_id}/join/',
  auth: 'user',
  summary: 'Join a community (joining twice is not an error)',
  tags: ['communities'],
  rateLimits: perUser(60, 60),
  input: zCommunityId,
  responses: { 200: zMessage },
  handler: async (input, ctx) => ok(await joinCommunity(ctx, input.community_id)),
});

export const leaveCommunityOp = defineOperation({
  name: 'communities.leave',
  method: 'POST',
  path: '/api/communities/communities/{community_id}/leave/',
  auth: 'user',
  summary: 'Leave a community (its owner cannot)',
  tags: ['communities'],
  rateLimits: perUser(60, 60),
  input: zCommunityId,
  responses: { 200: zMessage },
  handler: async (input, ctx) => ok(await leaveCommunity(ctx, input.community_id)),
});

export const listMembersOp = defineOperation({
  name: 'communities.members',
  method: 'GET',
  path: '/api/communities/communities/{community_id}/members/',
  auth: 'user',
  summary: "A community's members, earliest first",
  tags: ['communities'],
  rateLimits: READS,
  input: z.object({ community_id: zUuid(), page: zPage(), page_size: zPageSize() }),
  responses: { 200: zPaginated(zCommunityMember) },
  handler: async ({ community_id, ...page }, ctx) => ok(await listCommunityMembers(ctx, community_id, page)),
});

export const listCategoriesOp = defineOperation({
  name: 'communities.categories',
  method: 'GET',
  path: '/api/communities/categories/',
  auth: 'user',
  summary: 'Community categories with their groups',
  tags: ['communities'],
  rateLimits: READS,
  input: z.object({}),
  responses: { 200: z.array(zCommunityCategory) },
  handler: async () => ok(await listCommunityCategories()),
});

export const communityOperations = [
  listCommunitiesOp,
  createCommunityOp,
  getCommunityOp,
  updateCommunityOp,
  deleteCommunityOp,
  joinCommunityOp,
  leaveCommunityOp,
  listMembersOp,
  listCategoriesOp,
];
