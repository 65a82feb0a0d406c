import { sql } from 'drizzle-orm';
import type { AccountDeletionStep } from '../../core/leaving.js';
import { queueFileDeletionsFrom } from '../media/file-deletions.js';

/**
 * The account's stores go as an owner's delete removes one: products, their images and the reviews of them with
 * them, the files deleted from storage after the commit; orders keep their lines with store and product cleared
 * (the orders step ran first and cancelled the open ones). Then the reviews the account wrote of other people's
 * products. No rating is stored anywhere (a store's or product's rating is read from its reviews when asked for), so
 * nothing else has to follow; should one ever be stored, this is where it is brought down.
 */
export const storesLeaving: AccountDeletionStep = {
  module: 'stores',
  handles: {
    'stores.owner_id': 'step',
    'reviews.user_id': 'step',
  },
  async run({ tx, userId }) {
    await queueFileDeletionsFrom(tx, sql`
      SELECT logo FROM stores WHERE owner_id = ${userId}
      UNION ALL
      SELECT banner FROM stores WHERE owner_id = ${userId}
      UNION ALL
      SELECT i.image FROM product_images i JOIN products p ON p.id = i.product_id JOIN stores s ON s.id = p.store_id WHERE s.owner_id = ${userId}`);
    await tx.execute(sql`DELETE FROM stores WHERE owner_id = ${userId}`);
    await tx.execute(sql`DELETE FROM reviews WHERE user_id = ${userId}`);
  },
};
