import { z } from 'zod';
import { created, defineOperation, noContent, ok } from '../../core/operation.js';
import { zPage, zPageSize, zUuid } from '../../core/validation.js';
import { zPaginated, zNoContent } from '../../core/response-schemas.js';
import { createReview, deleteReview, listReviews, updateReview } from './reviews.service.js';
import { zWhole } from './fields.js';
import { READS_PER_IP, perUser } from './rate-limits.js';
import { zReviewBody } from './reviews.serializer.js';

const zRating = () => zWhole(1, 5);
const zComment = () => z.preprocess((v) => (v === null ? '' : v), z.string().max(2000, 'Ensure this field has no more than 2000 characters.'));

export const listReviewsOp = defineOperation({
  name: 'reviews.list',
  method: 'GET',
  path: '/api/stores/reviews/',
  auth: 'public',
  summary: 'Reviews, newest first; filter product',
  tags: ['reviews'],
  input: z.object({ product: z.preprocess((v) => (v === '' ? undefined : v), zUuid().optional()), page: zPage(), page_size: zPageSize() }),
  rateLimits: READS_PER_IP,
  responses: { 200: zPaginated(zReviewBody) },
  handler: async (input, ctx) => ok(await listReviews(ctx, input)),
});

export const createReviewOp = defineOperation({
  name: 'reviews.create',
  method: 'POST',
  path: '/api/stores/reviews/',
  auth: 'user',
  summary: 'Review a product (rating 1 to 5; one review per user and product)',
  tags: ['reviews'],
  input: z.object({ product: zUuid(), rating: zRating(), comment: zComment().optional() }),
  rateLimits: perUser(30, 3600),
  responses: { 201: zReviewBody },
  errors: [403, 404],
  handler: async (input, ctx) => created(await createReview(ctx, input)),
});

export const updateReviewOp = defineOperation({
  name: 'reviews.update',
  method: 'PATCH',
  path: '/api/stores/reviews/{review_id}/',
  auth: 'user',
  summary: 'Change a review (author only)',
  tags: ['reviews'],
  input: z.object({ review_id: zUuid(), rating: zRating().optional(), comment: zComment().optional() }),
  rateLimits: perUser(60, 3600),
  responses: { 200: zReviewBody },
  errors: [403],
  handler: async (input, ctx) => ok(await updateReview(ctx, input.review_id, input)),
});

export const deleteReviewOp = defineOperation({
  name: 'reviews.delete',
  method: 'DELETE',
  path: '/api/stores/reviews/{review_id}/',
  auth: 'user',
  summary: 'Delete a review (author only)',
  tags: ['reviews'],
  input: z.object({ review_id: zUuid() }),
  rateLimits: perUser(60, 3600),
  responses: { 204: zNoContent },
  errors: [403],
  handler: async (input, ctx) => {
    await deleteReview(ctx, input.review_id);
    return noContent();
  },
});

export const reviewOperations = [listReviewsOp, createReviewOp, updateReviewOp, deleteReviewOp];
