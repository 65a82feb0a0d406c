import fs from 'node:fs/promises';
import path from 'node:path';
import { startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { adminEnv, loginAdmin } from '../builders/locations.js';
import { aShopper, aStore, livesAt } from '../builders/stores.js';
import { JPEG_1X1, NOT_AN_IMAGE, PNG_1X1 } from '../helpers/images.js';

const ADMIN = adminEnv();
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp(ADMIN);
});
afterAll(async () => {
  await app.stop();
});

const STORE_FIELDS = ['id', 'name', 'owner', 'slug', 'description', 'is_verified', 'social_url', 'latitude', 'longitude', 'location', 'community', 'logo', 'banner', 'created_at', 'updated_at'].sort();
const mediaFile = (url: string) => path.join(app.dataDir, 'media', new URL(url).pathname.replace(/^\/media\//, ''));
const exists = (file: string) => fs.access(file).then(() => true, () => false);

describe('creating a store', () => {
  test("when a user with a location opens a store without location, then it inherits the location and the location's published centre", async () => {
    const owner = await aShopper(app);
    const country = unique('Storeland');
    const locationId = await livesAt(app, owner, { country, city: 'Harbor', latitude: '-50.123456', longitude: '-120.654321' } as any);
    const store = await aStore(app, owner, { is_verified: true });
    expect(Object.keys(store).sort()).toEqual(STORE_FIELDS);
    expect(store).toMatchObject({ owner: { username: owner.username, display_name: owner.body.display_name }, location: { id: locationId, name: expect.any(String) }, is_verified: false, community: null, logo: null });
    const location = await app.rest('GET', `/api/locations/locations/${locationId}/`, { token: owner.token });
    // The store sits on the published centre, never on the owner's own point.
    expect({ latitude: store.latitude, longitude: store.longitude }).toEqual({ latitude: location.body.center_latitude ?? location.body.latitude, longitude: location.body.center_longitude ?? location.body.longitude });
    expect(store.latitude).not.toBe(-50.123456);
    // The user object's store and the location's store_count are real.
    const profile = await app.rest('GET', '/api/users/profile/', { token: owner.token });
    expect(profile.body.store).toEqual({ id: store.id, name: store.name, description: store.description });
    const list = await app.rest('GET', '/api/locations/locations/', { token: owner.token, query: { country } });
    expect(list.body.results[0]).toMatchObject({ id: locationId, store_count: 1 });
  });

  test('when logo and banner are uploaded (multipart), then they are stored under stores/logos/ and stores/banners/', async () => {
    const owner = await aShopper(app);
    const slug = unique('pics');
    const res = await app.http().post('/api/stores/stores/').set('Authorization', `Bearer ${owner.token}`)
      .field('name', 'Picture shop').field('slug', slug).field('social_url', 'https://instagram.com/pictureshop')
      .attach('logo', PNG_1X1, 'logo.png').attach('banner', JPEG_1X1, 'banner.jpg');
    expect(res.status).toBe(201);
    expect(res.body.logo).toMatch(/\/media\/stores\/logos\/.+\.png$/);
    expect(res.body.banner).toMatch(/\/media\/stores\/banners\/.+\.jpg$/);
    expect(await exists(mediaFile(res.body.logo))).toBe(true);

    // A replaced logo is deleted once the change is committed.
    const replaced = await app.http().patch(`/api/stores/stores/${res.body.id}/`).set('Authorization', `Bearer ${owner.token}`).attach('logo', JPEG_1X1, 'new.jpg');
    expect(replaced.status).toBe(200);
    expect(replaced.body.logo).not.toBe(res.body.logo);
    expect(await exists(mediaFile(res.body.logo))).toBe(false);
    expect(await exists(mediaFile(replaced.body.logo))).toBe(true);

    // Deleting the store deletes its files.
    expect((await app.rest('DELETE', `/api/stores/stores/${res.body.id}/`, { token: owner.token })).status).toBe(204);
    expect(await exists(mediaFile(replaced.body.logo))).toBe(false);
    expect(await exists(mediaFile(res.body.banner))).toBe(false);
    expect((await app.rest('GET', `/api/stores/stores/${res.body.id}/`)).body).toEqual({ detail: 'Store not found.' });
  });

  test('when a logo is not an image, then 400 on logo and no store is created', async () => {
    const owner = await aShopper(app);
    const slug = unique('bad');
    const res = await app.http().post('/api/stores/stores/').set('Authorization', `Bearer ${owner.token}`).field('name', 'Bad').field('slug', slug).attach('logo', NOT_AN_IMAGE, 'logo.png');
    expect(res.status).toBe(400);
    expect(res.body.logo).toEqual([expect.stringContaining('Upload a valid image')]);
    expect((await app.rest('GET', '/api/stores/stores/', { query: { slug } })).body.count).toBe(0);
  });

  test('when slugs are taken in another case, malformed or too long, then the contract field errors', async () => {
    const owner = await aShopper(app);
    const taken = await aStore(app, owner, { slug: unique('Taken') });
    const cases: Array<[unknown, string]> = [
      [taken.slug.toUpperCase(), 'This store identifier is already taken.'],
      ['with space', 'Enter a valid store handle consisting of letters, numbers, underscores or hyphens.'],
      ['dot.slug', 'Enter a valid store handle consisting of letters, numbers, underscores or hyphens.'],
      ['x'.repeat(51), 'Ensure this field has no more than 50 characters.'],
    ];
    for (const [slug, message] of cases) {
      const res = await app.rest('POST', '/api/stores/stores/', { token: owner.token, body: { name: 'Dup', slug } });
      expect({ slug, ...res }).toMatchObject({ slug, status: 400, body: { slug: [message] } });
    }
    const missing = await app.rest('POST', '/api/stores/stores/', { token: owner.token, body: { slug: unique('noname') } });
    expect(missing).toMatchObject({ status: 400, body: { name: ['This field is required.'] } });
    const badUrl = await app.rest('POST', '/api/stores/stores/', { token: owner.token, body: { name: 'x', slug: unique('u'), social_url: 'javascript:alert(1)', location: 'nope' } });
    expect(badUrl).toMatchObject({ status: 400, body: { social_url: ['Enter a valid URL.'], location: ['Invalid UUID format.'] } });
  });

  test('when two stores are created with one slug at the same moment, then exactly one succeeds', async () => {
    const owner = await aShopper(app);
    const slug = unique('race');
    const answers = await Promise.all([0, 1, 2].map((i) => app.rest('POST', '/api/stores/stores/', { token: owner.token, body: { name: `Race ${i}`, slug: i ? slug.toUpperCase() : slug } })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 400, 400]);
    for (const a of answers.filter((x) => x.status === 400)) expect(a.body).toEqual({ slug: ['This store identifier is already taken.'] });
  });
});

describe('changing a store', () => {
  test('when the owner patches, then only the sent fields change and is_verified stays; a non-owner gets 403 on every owner operation', async () => {
    const owner = await aShopper(app);
    const other = await aShopper(app);
    const store = await aStore(app, owner);
    const patched = await app.rest('PATCH', `/api/stores/stores/${store.id}/`, { token: owner.token, body: { description: 'Now with bread', is_verified: true } });
    expect(patched).toMatchObject({ status: 200, body: { description: 'Now with bread', name: store.name, is_verified: false } });
    const forbidden = { detail: 'You do not have permission to perform this action.' };
    expect(await app.rest('PATCH', `/api/stores/stores/${store.id}/`, { token: other.token, body: { name: 'Mine now' } })).toMatchObject({ status: 403, body: forbidden });
    expect(await app.rest('PUT', `/api/stores/stores/${store.id}/`, { token: other.token, body: { name: 'Mine now' } })).toMatchObject({ status: 403, body: forbidden });
    expect(await app.rest('DELETE', `/api/stores/stores/${store.id}/`, { token: other.token })).toMatchObject({ status: 403, body: forbidden });
    expect(await app.rest('PATCH', `/api/stores/stores/${store.id}/sync_location/`, { token: other.token })).toMatchObject({ status: 403, body: { detail: 'You do not own this store.' } });
    expect((await app.rest('GET', `/api/stores/stores/${store.id}/`)).body.name).toBe(store.name);
  });

  test('when only an administrator may verify, then the admin endpoint sets is_verified and others get 403', async () => {
    const owner = await aShopper(app);
    const store = await aStore(app, owner);
    expect((await app.rest('PATCH', `/api/admin/stores/${store.id}/`, { token: owner.token, body: { is_verified: true } })).status).toBe(403);
    const admin = await loginAdmin(app, ADMIN);
    const verified = await app.rest('PATCH', `/api/admin/stores/${store.id}/`, { token: admin, body: { is_verified: true } });
    expect(verified).toMatchObject({ status: 200, body: { id: store.id, is_verified: true } });
  });

  test('when sync_location is called, then the store moves to the owner location, and without one it is 400', async () => {
    const owner = await aShopper(app);
    const store = await aStore(app, owner);
    expect(store.location).toBeNull();
    expect(await app.rest('PATCH', `/api/stores/stores/${store.id}/sync_location/`, { token: owner.token })).toMatchObject({ status: 400, body: { detail: 'You do not have a valid location set.' } });
    const locationId = await livesAt(app, owner, { country: unique('Syncland'), city: 'Mill' });
    const synced = await app.rest('PATCH', `/api/stores/stores/${store.id}/sync_location/`, { token: owner.token });
    expect(synced).toMatchObject({ status: 200, body: { location: { id: locationId } } });
  });
});

describe('reading stores', () => {
  test('when the list is filtered by location, slug (any case) and search, then REST and socket answer the same', async () => {
    const owner = await aShopper(app);
    const locationId = await livesAt(app, owner, { country: unique('Listland'), city: 'Oak' });
    const word = unique('bakery');
    const a = await aStore(app, owner, { description: `The best ${word} in town` });
    const b = await aStore(app, owner, { name: `${word} two` });
    const byLocation = await app.rest('GET', '/api/stores/stores/', { query: { location: locationId } });
    expect(byLocation.body.results.map((s: any) => s.id)).toEqual([b.id, a.id]);
    const bySlug = await app.rest('GET', '/api/stores/stores/', { query: { slug: a.slug.toUpperCase() } });
    expect(bySlug.body).toMatchObject({ count: 1, results: [{ id: a.id }] });
    const bySearch = await app.rest('GET', '/api/stores/stores/', { query: { search: word.toUpperCase(), page_size: 1 } });
    expect(bySearch.body).toMatchObject({ count: 2, previous: null, results: [{ id: b.id }] });
    expect(bySearch.body.next).toContain('page=2');
    const overSocket = await app.emit('stores.list', { search: word.toUpperCase(), page_size: 1 });
    expect(overSocket).toEqual({ status: 200, body: bySearch.body });
    expect(await app.emit('stores.get', { store_id: a.id })).toEqual({ status: 200, body: (await app.rest('GET', `/api/stores/stores/${a.id}/`)).body });

    const mine = await app.rest('GET', '/api/stores/stores/my_store/', { token: owner.token });
    expect(mine.body.map((s: any) => s.id)).toEqual([a.id, b.id]);
    expect(await app.emit('stores.my_store', {}, { token: owner.token })).toEqual({ status: 200, body: mine.body });
  });

  test('when ids are malformed or unknown, then 400 Invalid UUID format. and 404 Store not found.', async () => {
    expect(await app.rest('GET', '/api/stores/stores/not-a-uuid/')).toMatchObject({ status: 400, body: { store_id: ['Invalid UUID format.'] } });
    expect(await app.rest('GET', '/api/stores/stores/00000000-0000-4000-8000-000000000000/')).toMatchObject({ status: 404, body: { detail: 'Store not found.' } });
    expect(await app.rest('GET', '/api/stores/stores/', { query: { location: 'x' } })).toMatchObject({ status: 400, body: { location: ['Invalid UUID format.'] } });
  });
});
