import fs from 'node:fs/promises';
import path from 'node:path';
import { startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aProduct, aShopper, aStore } from '../builders/stores.js';
import { JPEG_1X1, NOT_AN_IMAGE, PNG_1X1 } from '../helpers/images.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const mediaFile = (url: string) => path.join(app.dataDir, 'media', new URL(url).pathname.replace(/^\/media\//, ''));
const exists = (file: string) => fs.access(file).then(() => true, () => false);

function multipartProduct(token: string, fields: Record<string, string>, images: Array<[Buffer, string]> = [], method: 'post' | 'patch' | 'put' = 'post', url = '/api/stores/products/') {
  let req = app.http()[method](url).set('Authorization', `Bearer ${token}`);
  for (const [k, v] of Object.entries(fields)) req = req.field(k, v);
  for (const [bytes, name] of images) req = req.attach('uploaded_images', bytes, name);
  return req;
}

describe('creating products', () => {
  test('when the owner uploads a product with images (multipart), then it answers the product with image URLs under products/images/ and money as strings', async () => {
    const seller = await aShopper(app);
    const store = await aStore(app, seller);
    const res = await multipartProduct(seller.token, { store_id: store.id, name: 'Lamp', category: 'home_garden', stock: '3', price_type: 'fixed', price: '19.9', description: 'Warm light' }, [[PNG_1X1, 'a.png'], [JPEG_1X1, 'b.jpg']]);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Lamp', category: 'home_garden', stock: 3, price_type: 'fixed', price: '19.90', description: 'Warm light',
      store: { id: store.id, name: store.name, slug: store.slug, owner: { username: seller.username }, description: store.description, location: null },
    });
    expect(res.body.images).toHaveLength(2);
    for (const image of res.body.images) {
      expect(image.image).toMatch(/\/media\/products\/images\//);
      expect(await exists(mediaFile(image.image))).toBe(true);
    }
    expect(await app.emit('products.get', { product_id: res.body.id })).toEqual({ status: 200, body: (await app.rest('GET', `/api/stores/products/${res.body.id}/`)).body });
  });

  test('when the input is bad, then each gets its field error and nothing is written', async () => {
    const seller = await aShopper(app);
    const store = await aStore(app, seller);
    const base = { store_id: store.id, name: unique('Bad '), category: 'misc', stock: 1, price: '1.00' };
    const cases: Array<[Record<string, unknown>, Record<string, string[]>]> = [
      [{ stock: -1 }, { stock: ['Ensure this value is greater than or equal to 0.'] }],
      [{ stock: 1.5 }, { stock: ['A valid integer is required.'] }],
      [{ category: 'weapons' }, { category: ['"weapons" is not a valid choice.'] }],
      [{ price: '1.999' }, { price: ['Ensure that there are no more than 2 decimal places.'] }],
      [{ price: '12345678901.00' }, { price: ['Ensure that there are no more than 10 digits before the decimal point.'] }],
      [{ price: '-3.00' }, { price: ['Ensure this value is greater than or equal to 0.'] }],
      [{ price: 'ten' }, { price: ['A valid number is required.'] }],
      [{ price: undefined, price_type: 'fixed' }, { price: ['Price is required when price_type is fixed.'] }],
      [{ price: undefined, price_type: undefined }, { price: ['Price is required when price_type is fixed.'] }],
      [{ price_type: 'auction' }, { price_type: ['"auction" is not a valid choice.'] }],
      [{ store_id: 'nope' }, { store_id: ['Invalid UUID format.'] }],
      [{ name: 'x'.repeat(256) }, { name: ['Ensure this field has no more than 255 characters.'] }],
    ];
    for (const [change, errors] of cases) {
      const res = await app.rest('POST', '/api/stores/products/', { token: seller.token, body: { ...base, ...change } });
      expect({ change, status: res.status, body: res.body }).toEqual({ change, status: 400, body: errors });
    }
    const notImage = await multipartProduct(seller.token, { ...base, stock: '1' } as any, [[PNG_1X1, 'ok.png'], [NOT_AN_IMAGE, 'fake.png']]);
    expect(notImage.status).toBe(400);
    expect(Object.keys(notImage.body)).toEqual(['uploaded_images.1']);
    const list = await app.rest('GET', '/api/stores/products/', { query: { store: store.id } });
    expect(list.body.count).toBe(0);
    // A negotiable product needs no price.
    const negotiable = await app.rest('POST', '/api/stores/products/', { token: seller.token, body: { ...base, price: undefined, price_type: 'negotiable' } });
    expect(negotiable).toMatchObject({ status: 201, body: { price: null, price_type: 'negotiable' } });
  });

  test("when someone adds a product to another owner's store, then 403 with the contract's detail", async () => {
    const seller = await aShopper(app);
    const intruder = await aShopper(app);
    const store = await aStore(app, seller);
    const res = await app.rest('POST', '/api/stores/products/', { token: intruder.token, body: { store_id: store.id, name: 'Fake', category: 'misc', stock: 1, price: '1.00' } });
    expect(res).toEqual(expect.objectContaining({ status: 403, body: { detail: 'You can only add products to your own store.' } }));
    const unknown = await app.rest('POST', '/api/stores/products/', { token: intruder.token, body: { store_id: '00000000-0000-4000-8000-000000000000', name: 'X', category: 'misc', stock: 1, price: '1.00' } });
    expect(unknown).toMatchObject({ status: 404, body: { detail: 'Store not found.' } });
  });
});

describe('changing products', () => {
  test("when images_to_delete names the product's own images, then they go (files too) and new ones are added; another product's image is refused and nothing changes", async () => {
    const seller = await aShopper(app);
    const store = await aStore(app, seller);
    const created = await multipartProduct(seller.token, { store_id: store.id, name: 'Vase', category: 'arts_crafts', stock: '2', price: '5' }, [[PNG_1X1, 'a.png'], [PNG_1X1, 'b.png']]);
    const other = await multipartProduct(seller.token, { store_id: store.id, name: 'Other', category: 'arts_crafts', stock: '2', price: '5' }, [[PNG_1X1, 'c.png']]);
    const [first, second] = created.body.images;

    const foreign = await multipartProduct(seller.token, { images_to_delete: other.body.images[0].id, name: 'Renamed' }, [], 'patch', `/api/stores/products/${created.body.id}/`);
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual({ images_to_delete: [`Image ${other.body.images[0].id} does not belong to this product.`] });
    expect((await app.rest('GET', `/api/stores/products/${created.body.id}/`)).body).toMatchObject({ name: 'Vase', images: created.body.images });

    const res = await multipartProduct(seller.token, { images_to_delete: first.id, stock: '7' }, [[JPEG_1X1, 'new.jpg']], 'patch', `/api/stores/products/${created.body.id}/`);
    expect(res.status).toBe(200);
    expect(res.body.stock).toBe(7);
    expect(res.body.images.map((i: any) => i.id)).toEqual([second.id, expect.any(String)]);
    expect(await exists(mediaFile(first.image))).toBe(false);
    expect(await exists(mediaFile(second.image))).toBe(true);

    // JSON: an array of ids; a malformed id is a field error.
    const bad = await app.rest('PATCH', `/api/stores/products/${created.body.id}/`, { token: seller.token, body: { images_to_delete: ['nope'] } });
    expect(bad).toMatchObject({ status: 400, body: { 'images_to_delete.0': ['Invalid UUID format.'] } });
    const put = await app.rest('PUT', `/api/stores/products/${created.body.id}/`, { token: seller.token, body: { images_to_delete: [second.id], price_type: 'variable', price: null } });
    expect(put).toMatchObject({ status: 200, body: { price: null, price_type: 'variable', images: [{ id: res.body.images[1].id }] } });
    const fixedWithout = await app.rest('PATCH', `/api/stores/products/${created.body.id}/`, { token: seller.token, body: { price_type: 'fixed' } });
    expect(fixedWithout).toMatchObject({ status: 400, body: { price: ['Price is required when price_type is fixed.'] } });
  });

  test('when a non-owner changes or deletes a product, then 403; when the owner deletes it, then its image files are removed', async () => {
    const seller = await aShopper(app);
    const intruder = await aShopper(app);
    const store = await aStore(app, seller);
    const created = await multipartProduct(seller.token, { store_id: store.id, name: 'Chair', category: 'home_garden', stock: '1', price: '30' }, [[PNG_1X1, 'a.png']]);
    expect((await app.rest('PATCH', `/api/stores/products/${created.body.id}/`, { token: intruder.token, body: { stock: 0 } })).status).toBe(403);
    expect((await app.rest('DELETE', `/api/stores/products/${created.body.id}/`, { token: intruder.token })).status).toBe(403);
    expect((await app.rest('DELETE', `/api/stores/products/${created.body.id}/`, { token: seller.token })).status).toBe(204);
    expect(await exists(mediaFile(created.body.images[0].image))).toBe(false);
    expect((await app.rest('GET', `/api/stores/products/${created.body.id}/`)).status).toBe(404);
  });
});

describe('listing products', () => {
  test('when filtered by category, exact price, store and search, then only matches come, newest first, same over the socket', async () => {
    const seller = await aShopper(app);
    const store = await aStore(app, seller);
    const word = unique('teapot');
    const a = await aProduct(app, seller, store.id, { name: `Blue ${word}`, category: 'home_garden', price: '10.00' });
    const b = await aProduct(app, seller, store.id, { name: 'Red kettle', description: `not a ${word}`, category: 'home_garden', price: '12.5' });
    await aProduct(app, seller, store.id, { name: 'Book', category: 'books_music', price: '10' });
    const byStore = await app.rest('GET', '/api/stores/products/', { query: { store: store.id } });
    expect(byStore.body.count).toBe(3);
    const bySearch = await app.rest('GET', '/api/stores/products/', { query: { search: word } });
    expect(bySearch.body.results.map((p: any) => p.id)).toEqual([b.id, a.id]);
    const byPrice = await app.rest('GET', '/api/stores/products/', { query: { store: store.id, price: '12.50', category: 'home_garden' } });
    expect(byPrice.body.results.map((p: any) => p.id)).toEqual([b.id]);
    expect(await app.emit('products.list', { search: word })).toEqual({ status: 200, body: bySearch.body });
    expect(await app.rest('GET', '/api/stores/products/', { query: { category: 'nope' } })).toMatchObject({ status: 400, body: { category: ['"nope" is not a valid choice.'] } });
    expect(await app.rest('GET', '/api/stores/products/', { query: { price: '1.234' } })).toMatchObject({ status: 400, body: { price: ['Ensure that there are no more than 2 decimal places.'] } });
    expect(await app.rest('GET', '/api/stores/products/', { query: { page_size: 1000, store: store.id } })).toMatchObject({ status: 200, body: { count: 3 } });
  });
});
