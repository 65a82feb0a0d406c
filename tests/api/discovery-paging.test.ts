import { sql } from 'drizzle-orm';
import { startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aProduct, aShopper, aStore, livesAt } from '../builders/stores.js';
import { platform } from '../../src/platform/index.js';

/**
 * Discovery by location without filters reads a page from the stores that can hold it (their products_count and
 * last_product_at, kept by the 0016 triggers) instead of counting every product of the city. These tests hold it to
 * the plain answer: every product of the place, newest first, each exactly once across the pages, whatever the
 * stores' times, ties and deletions.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const ALL_CATEGORIES = 'electronics,apparel,home_garden,food_beverage,health_beauty,sports_outdoors,toys_games,arts_crafts,books_music,automotive,misc';

/** Every page of the place's discovery answer, joined: ids in the order served, and the count each page gave. */
async function pageThrough(locationId: string, pageSize: number, extra: Record<string, string> = {}) {
  const ids: string[] = [];
  const counts = new Set<number>();
  for (let page = 1; ; page++) {
    const res = await app.rest('GET', '/api/stores/products/by-location/', { query: { location_id: locationId, page_size: pageSize, page, ...extra } });
    expect(res.status).toBe(200);
    ids.push(...res.body.products.map((p: any) => p.id));
    counts.add(res.body.count);
    if (!res.body.next) return { ids, counts: [...counts], level: res.body.level };
  }
}

/** The plain answer, from the products themselves. */
async function newestFirst(storeIds: string[]): Promise<string[]> {
  const { rows } = await platform.db.execute<{ id: string }>(sql`
    SELECT id FROM products WHERE store_id = ANY(${sql.param(storeIds)}::uuid[]) ORDER BY created_at DESC, id DESC`);
  return rows.map((r) => r.id);
}

async function summariesAgree(storeIds: string[]) {
  const { rows } = await platform.db.execute<{ id: string; kept: number; counted: number; kept_at: string | null; newest: string | null }>(sql`
    SELECT s.id, s.products_count AS kept, (SELECT count(*)::int FROM products p WHERE p.store_id = s.id) AS counted,
      s.last_product_at::text AS kept_at, (SELECT max(created_at)::text FROM products p WHERE p.store_id = s.id) AS newest
    FROM stores s WHERE s.id = ANY(${sql.param(storeIds)}::uuid[])`);
  for (const r of rows) expect({ id: r.id, count: r.kept, newest: r.kept_at }).toEqual({ id: r.id, count: r.counted, newest: r.newest });
}

test('when many stores of a city sell products of interleaved ages, then every page of the city answer is the next slice of all of them, newest first, and deletions keep it so', async () => {
  const country = unique('Pageland');
  const stores: Array<{ seller: any; store: any }> = [];
  for (let i = 0; i < 6; i++) {
    const seller = await aShopper(app);
    await livesAt(app, seller, { country, city: 'Ledger', neighbourhood: `Quarter ${i}` });
    stores.push({ seller, store: await aStore(app, seller) });
  }
  // 24 products in rounds over the stores, then ages shuffled so that each store's newest lies anywhere in time.
  const products: string[] = [];
  for (let round = 0; round < 4; round++) {
    for (const { seller, store } of stores) products.push((await aProduct(app, seller, store.id, { category: round % 2 ? 'misc' : 'apparel' })).id);
  }
  await platform.db.execute(sql`
    UPDATE products SET created_at = now() - make_interval(mins => (abs(hashtext(id::text)) % 5000))
    WHERE id = ANY(${sql.param(products)}::uuid[])`);
  // Three products share one instant across stores: ties on (created_at) are decided by id.
  await platform.db.execute(sql`UPDATE products SET created_at = now() - interval '1 minute' WHERE id = ANY(${sql.param([products[0], products[7], products[14]])}::uuid[])`);
  const storeIds = stores.map((s) => s.store.id);
  await summariesAgree(storeIds);

  const buyer = await aShopper(app);
  const buyerPlace = await livesAt(app, buyer, { country, city: 'Ledger', neighbourhood: 'Elsewhere' });
  const expected = await newestFirst(storeIds);
  expect(expected).toHaveLength(24);
  for (const size of [1, 4, 7, 24]) {
    const served = await pageThrough(buyerPlace, size);
    expect({ size, ...served }).toEqual({ size, ids: expected, counts: [24], level: 'city' });
  }
  // The filtered path (a category filter naming every category) counts products one by one: same answer.
  expect((await pageThrough(buyerPlace, 5, { categories: ALL_CATEGORIES })).ids).toEqual(expected);

  // The newest product of the city goes, then a whole store's newest two: the summaries follow and so do the pages.
  const gone = [expected[0], ...(await newestFirst([stores[2].store.id])).slice(0, 2)];
  for (const id of new Set(gone)) {
    const { rows } = await platform.db.execute<{ store_id: string }>(sql`SELECT store_id FROM products WHERE id = ${id}`);
    const seller = stores.find((s) => s.store.id === rows[0].store_id)!.seller;
    expect((await app.rest('DELETE', `/api/stores/products/${id}/`, { token: seller.token })).status).toBe(204);
  }
  await summariesAgree(storeIds);
  const after = await newestFirst(storeIds);
  expect(after).toHaveLength(24 - new Set(gone).size);
  expect(await pageThrough(buyerPlace, 4)).toEqual({ ids: after, counts: [after.length], level: 'city' });
});

test('when products are added to one store at the same moment, then its count is exact; a store without products is skipped; a deleted store takes its products along', async () => {
  const country = unique('Rushland');
  const seller = await aShopper(app);
  await livesAt(app, seller, { country, city: 'Rush', neighbourhood: 'Dock' });
  const store = await aStore(app, seller);
  const empty = await aStore(app, seller);
  const created = await Promise.all(Array.from({ length: 12 }, () => aProduct(app, seller, store.id)));
  await summariesAgree([store.id, empty.id]);
  const { rows } = await platform.db.execute<{ products_count: number }>(sql`SELECT products_count FROM stores WHERE id = ${store.id}`);
  expect(rows[0].products_count).toBe(12);

  const buyer = await aShopper(app);
  const place = await livesAt(app, buyer, { country, city: 'Rush', neighbourhood: 'Hill' });
  const served = await pageThrough(place, 5);
  expect(served).toEqual({ ids: await newestFirst([store.id]), counts: [12], level: 'city' });
  expect(new Set(served.ids)).toEqual(new Set(created.map((p) => p.id)));

  expect((await app.rest('DELETE', `/api/stores/stores/${store.id}/`, { token: seller.token })).status).toBe(204);
  expect((await app.rest('GET', '/api/stores/products/by-location/', { query: { location_id: place } })).body).toEqual({ location_name: null, products: [] });
});

test('when an owner deletes a product while the same store is being deleted, then neither request fails (store, then product, in both)', async () => {
  const seller = await aShopper(app);
  await livesAt(app, seller, { country: unique('Raceland'), city: 'Race' });
  for (let round = 0; round < 6; round++) {
    const store = await aStore(app, seller);
    const products = await Promise.all([aProduct(app, seller, store.id), aProduct(app, seller, store.id)]);
    const [storeGone, productGone] = await Promise.all([
      app.rest('DELETE', `/api/stores/stores/${store.id}/`, { token: seller.token }),
      app.rest('DELETE', `/api/stores/products/${products[round % 2].id}/`, { token: seller.token }),
    ]);
    expect({ round, store: storeGone.status }).toEqual({ round, store: 204 });
    // The product went with its own request or with the store's cascade: 204 or 404, never 500 or 503.
    expect([204, 404]).toContain(productGone.status);
    const { rows } = await platform.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM products WHERE store_id = ${store.id}`);
    expect(rows[0].n).toBe(0);
  }
});
