import { z } from 'zod';
import type { ReviewRow } from '../../models/index.js';

/** The Review resource (DESIGN.md section 8: rating 1 to 5). */
export const zReviewBody = z
  .object({ id: z.string(), user: z.string(), product: z.string(), rating: z.number().int(), comment: z.string(), created_at: z.string(), updated_at: z.string() })
  .meta({ id: 'Review' });
export type ReviewBody = z.infer<typeof zReviewBody>;

export const serializeReview = (r: ReviewRow): ReviewBody => ({
  id: r.id,
  user: r.userId,
  product: r.productId,
  rating: r.rating,
  comment: r.comment,
  created_at: r.createdAt.toISOString(),
  updated_at: r.updatedAt.toISOString(),
});
