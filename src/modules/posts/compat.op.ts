import { z } from 'zod';
import { created, defineOperation, ok } from '../../core/operation.js';
import { fieldError } from '../../core/errors.js';
import { zPage, zPageSize, zUuid } from '../../core/validation.js';
import { createPost } from './create.service.js';
import { findAuthorLocation } from './posts.queries.js';
import { postsByLocation } from './posts.service.js';
import { READ_LIMIT, zLikeAnswer, zText } from './posts.op.js';
import { togglePostLike } from './reactions.service.js';
import { zPostBody } from './posts.serializer.js';

/**
 * The contract's compatibility paths for simple clients. `POST /api/posts/` makes a text post; its
 * `location_id`, when sent, must be the author's own location (posts always go where the author lives).
 */
export const createSimplePostOp = defineOperation({
  name: 'posts.create_simple',
  method: 'POST',
  path: '/api/posts/',
  auth: 'user',
  summary: 'Compatibility: a text post in the caller’s location',
  tags: ['posts'],
  input: z.object({
    content: zText().refine((s) => s.trim().length > 0, 'This field may not be blank.'),
    location_id: z.preprocess((v) => (v === '' || v === null ? undefined : v), zUuid().optional()),
  }),
  // The same budget as posts.create: both make posts.
  rateLimits: [{ name: 'user', points: 30, durationSeconds: 60, key: 'user' }],
  responses: { 201: zPostBody },
  handler: async (input, ctx) => {
    if (input.location_id) {
      const own = await findAuthorLocation(ctx.user.id);
      if (own && own.id !== input.location_id) throw fieldError('location_id', 'You can only post in your own location.');
    }
    return created(await createPost(ctx, { post_type: 'text', content: input.content }));
  },
});

export const postsByLocationOp = defineOperation({
  name: 'posts.by_location',
  method: 'GET',
  path: '/api/posts/by-location/',
  auth: 'optional',
  summary: 'Compatibility: a location’s posts, newest first',
  tags: ['posts'],
  input: z.object({ location_id: zUuid(), page: zPage(), page_size: zPageSize() }),
  rateLimits: [READ_LIMIT],
  responses: { 200: z.object({ location_name: z.string(), total_posts: z.number().int(), posts: z.array(zPostBody) }) },
  handler: async (input, ctx) => ok(await postsByLocation(ctx, input)),
});

/** `POST /api/posts/{post_id}/like/`: the contract shows `{message}`; the answer is posts.like's, which has it. */
export const likeSimpleOp = defineOperation({
  name: 'posts.like_simple',
  method: 'POST',
  path: '/api/posts/{post_id}/like/',
  auth: 'user',
  summary: 'Compatibility: toggle the caller’s like of a post',
  tags: ['posts'],
  input: z.object({ post_id: zUuid() }),
  // The same limit as posts.like: both toggle the like.
  rateLimits: [{ name: 'user', points: 300, durationSeconds: 60, key: 'user' }],
  responses: { 200: zLikeAnswer },
  errors: [403],
  handler: async (input, ctx) => ok(await togglePostLike(ctx, input.post_id)),
});

export const compatPostOperations = [createSimplePostOp, postsByLocationOp, likeSimpleOp];
