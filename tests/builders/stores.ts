import type { TestApp } from '../helpers/test-app.js';
import { unique } from '../helpers/test-app.js';
import type { TestUser } from './users.js';
import { aResident } from './locations.js';

/**
 * Builders for the marketplace: a store, a product, an order, each made through the real operations (REST).
 * Users come from `aResident` (each registers from its own address: registration is limited per address).
 */
export const aShopper = (app: TestApp): Promise<TestUser> => aResident(app);

/** Place the user at an address (users.update_location); answers the location's id. */
export async function livesAt(app: TestApp, user: TestUser, address: Record<string, string>): Promise<string> {
  const res = await app.rest('POST', '/api/users/update-location/', { token: user.token, body: address });
  if (res.status !== 200) throw new Error(`update-location answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.location.id;
}

export async function aStore(app: TestApp, owner: TestUser, overrides: Record<string, unknown> = {}): Promise<any> {
  const slug = unique('shop');
  const res = await app.rest('POST', '/api/stores/stores/', { token: owner.token, body: { name: `Shop ${slug}`, slug, description: 'Fresh things', ...overrides } });
  if (res.status !== 201) throw new Error(`aStore: create answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function aProduct(app: TestApp, owner: TestUser, storeId: string, overrides: Record<string, unknown> = {}): Promise<any> {
  const res = await app.rest('POST', '/api/stores/products/', {
    token: owner.token,
    body: { store_id: storeId, name: unique('Thing '), category: 'home_garden', stock: 5, price_type: 'fixed', price: '12.50', ...overrides },
  });
  if (res.status !== 201) throw new Error(`aProduct: create answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function anOrder(app: TestApp, buyer: TestUser, productId: string, quantity = 1): Promise<any> {
  const res = await app.rest('POST', '/api/stores/orders/', { token: buyer.token, body: { product: productId, quantity } });
  if (res.status !== 201) throw new Error(`anOrder: create answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A seller with a store and one product: the usual start of a marketplace test. */
export async function aShopWithProduct(app: TestApp, productOverrides: Record<string, unknown> = {}) {
  const seller = await aShopper(app);
  const store = await aStore(app, seller);
  const product = await aProduct(app, seller, store.id, productOverrides);
  return { seller, store, product };
}
