import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aPost } from '../builders/posts.js';
import { aResident, moveTo, offset } from '../builders/locations.js';
import { aCity, aFeedPage, aResidentAt } from '../builders/feeds.js';
import { clearScopeCache, scopeUse } from '../../src/modules/feeds/scope-cache.js';

/**
 * Paging a feed when where the reader lives changes between pages, and when places appear around it. A page
 * reads the reader's place in the same statement as the posts, and the places around it too unless those kept
 * for that place (a minute, per node) are given (docs/modules/feeds.md).
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'off' });
});
afterAll(async () => {
  await app.stop();
});

const NEIGHBOURHOOD = '/api/feed/hybrid/neighbourhood/';
const ids = (page: { items: Array<{ id: string }> }) => page.items.map((p) => p.id);

test('when a reader moves between page 1 and page 2, then page 2 is of the new place (by offset), never a repeat of the old one', async () => {
  const city = aCity();
  const here = await aResidentAt(app, city);
  const there = await aResidentAt(app, city, 10_000, 0);
  const herePosts = new Set<string>();
  const therePosts: string[] = [];
  for (let i = 0; i < 20; i++) herePosts.add((await aPost(app, here, { content: `here ${i}` })).id);
  for (let i = 0; i < 20; i++) therePosts.push((await aPost(app, there, { content: `there ${i}` })).id);
  const reader = await aResidentAt(app, city);

  const first = await aFeedPage(app, reader, NEIGHBOURHOOD, { page_size: 10 });
  expect(ids(first).every((id) => herePosts.has(id))).toBe(true);
  await moveTo(app, reader, offset(city.centre, 10_000, 0), { geocoded_data: { address: { country: 'Feedland', city: city.name } } });
  const second = await aFeedPage(app, reader, NEIGHBOURHOOD, { page: 2, page_size: 10 });
  expect(second.location_info.location_id).toBe(there.locationId);
  // Newest first: the new place's items 11 to 20.
  expect(ids(second)).toEqual(therePosts.slice(0, 10).reverse());
  expect(second.has_more).toBe(false);
  // Page 3 continues the new snapshot.
  expect((await app.rest('GET', NEIGHBOURHOOD, { token: reader.token, query: { page: 3, page_size: 10 } })).status).toBe(404);
}, 60_000);

test('when a place is founded next to a reader, then its posts join the reader\'s page 1 once the places kept around the reader\'s home age out (a minute), and its founder sees its own at once', async () => {
  const city = aCity();
  const reader = await aResidentAt(app, city);
  expect((await aFeedPage(app, reader, NEIGHBOURHOOD)).items).toEqual([]);
  const neighbour = await aResidentAt(app, city, 1400, 0);
  expect(neighbour.locationId).not.toBe(reader.locationId);
  const post = await aPost(app, neighbour);
  // The founder's page finds the places around its new home: it sees its own post and the reader's place.
  expect(ids(await aFeedPage(app, neighbour, NEIGHBOURHOOD))).toEqual([post.id]);
  // The reader's page 1 starts from the places kept for its home (SCOPE_TTL_MS); emptying them stands for the minute.
  const kept = scopeUse.kept;
  await aFeedPage(app, reader, NEIGHBOURHOOD);
  expect(scopeUse.kept).toBe(kept + 1);
  clearScopeCache();
  expect(ids(await aFeedPage(app, reader, NEIGHBOURHOOD))).toEqual([post.id]);
}, 30_000);

test('when a reader without a location asks for any page of the neighbourhood feed, then it is told to set one', async () => {
  const nomad = await aResident(app);
  for (const page of [1, 2, 500]) {
    const res = await app.rest('GET', NEIGHBOURHOOD, { token: nomad.token, query: { page } });
    expect(res).toMatchObject({ status: 400, body: { error: 'Location Required', action: 'update_location' } });
  }
  const unknown = '00000000-0000-4000-8000-000000000000';
  for (const page of [1, 2, 500]) {
    const res = await app.rest('GET', `/api/feed/hybrid/location/${unknown}/`, { token: nomad.token, query: { page } });
    expect(res).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
  }
}, 30_000);
