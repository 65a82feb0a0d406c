import { z } from 'zod';
import type { RequestContext } from '../../core/context.js';
import { PRICE_TYPES, PRODUCT_CATEGORIES, type ProductRow } from '../../models/index.js';
import { imageDetails, mediaUrl, zImageDetails } from '../users/users.serializer.js';

/** A product row with its store (owner and location named) and its images, oldest image first. */
export interface ProductWithRelations extends ProductRow {
  store: { id: string; name: string; slug: string; description: string; ownerId: string; owner: { username: string; displayName: string }; location: { id: string; name: string } | null };
  images: Array<{ id: string; image: string }>;
}

export const zProductBody = z
  .object({
    id: z.string(),
    store: z.object({
      id: z.string(),
      name: z.string(),
      slug: z.string(),
      owner: z.object({ username: z.string(), display_name: z.string() }),
      description: z.string(),
      location: z.object({ id: z.string(), name: z.string() }).nullable(),
    }),
    name: z.string(),
    description: z.string(),
    category: z.enum(PRODUCT_CATEGORIES),
    price_type: z.enum(PRICE_TYPES),
    price: z.string().nullable().describe('Two decimals, e.g. "12.50"; null when the product has no price'),
    stock: z.number().int(),
    images: z.array(z.object({ id: z.string(), image: z.string() }).extend(zImageDetails.shape)),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Product' });
export type ProductBody = z.infer<typeof zProductBody>;

/** One shape for lists, details and answers to writes: the store as the product list shows it. */
export function serializeProduct(p: ProductWithRelations, ctx: Pick<RequestContext, 'baseUrl'>): ProductBody {
  return {
    id: p.id,
    store: {
      id: p.store.id,
      name: p.store.name,
      slug: p.store.slug,
      owner: { username: p.store.owner.username, display_name: p.store.owner.displayName },
      description: p.store.description,
      location: p.store.location,
    },
    name: p.name,
    description: p.description,
    category: p.category,
    price_type: p.priceType,
    price: p.price,
    stock: p.stock,
    images: p.images.map((i) => ({ id: i.id, image: mediaUrl(i.image, ctx.baseUrl)!, ...imageDetails(i.image, ctx.baseUrl) })),
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}
