import { startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aProduct, aShopper, aStore, livesAt } from '../builders/stores.js';
import { sql } from '../helpers/sql.js';
import { discoveryCounts, SEARCH_MATCHES_SEEN } from '../../src/modules/stores/discovery.service.js';

/**
 * products.by_location with a search (issue 22): past the narrowest level the matches are located first, so a search
 * that matches nothing reads the narrowest level only (before, every level up to the whole country was searched in
 * turn), and one that matches only far away reads that level next. `discoveryCounts.levelsRead` counts the level
 * statements.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

/** A buyer in a neighbourhood; a shop in it, one elsewhere in its city, one in another state of its country. */
async function aCountryOfShops() {
  const country = unique('Searchland');
  const shop = async (address: Record<string, string>) => {
    const seller = await aShopper(app);
    await livesAt(app, seller, { country, ...address });
    return { seller, store: await aStore(app, seller) };
  };
  const near = await shop({ state: 'North', city: 'Alpha', neighbourhood: 'Dock' });
  const sameCity = await shop({ state: 'North', city: 'Alpha', neighbourhood: 'Hill' });
  const far = await shop({ state: 'South', city: 'Beta', neighbourhood: 'Mill' });
  const buyer = await aShopper(app);
  const place = await livesAt(app, buyer, { country, state: 'North', city: 'Alpha', neighbourhood: 'Dock' });
  return { country, place, near, sameCity, far };
}

const search = (place: string, text: string) => app.rest('GET', '/api/stores/products/by-location/', { query: { location_id: place, search: text } });

/** The answer and how many level statements it took. */
async function searched(place: string, text: string) {
  const before = discoveryCounts.levelsRead;
  const res = await search(place, text);
  expect(res.status).toBe(200);
  return { body: res.body, levelsRead: discoveryCounts.levelsRead - before };
}

describe('GET /api/stores/products/by-location/?search=', () => {
  test('when a search matches nothing, long or short, then nothing is found without reading any level past the narrowest', async () => {
    const { place, near, far } = await aCountryOfShops();
    await aProduct(app, near.seller, near.store.id, { name: 'Copper kettle' });
    await aProduct(app, far.seller, far.store.id, { name: 'Walnut desk' });
    for (const text of ['zqxj', 'qz', 'kettles']) {
      expect(await searched(place, text)).toEqual({ body: { location_name: null, products: [] }, levelsRead: 1 });
    }
    expect(await app.emit('products.by_location', { location_id: place, search: 'zqxj' })).toEqual({ status: 200, body: { location_name: null, products: [] } });
  });

  test('when a search matches at one broader level only, then that level is read next to the narrowest, not the ones between', async () => {
    const { country, place, near, sameCity, far } = await aCountryOfShops();
    const kettle = await aProduct(app, near.seller, near.store.id, { name: 'Copper kettle' });
    const towel = await aProduct(app, sameCity.seller, sameCity.store.id, { name: 'Linen towel' });
    const desk = await aProduct(app, far.seller, far.store.id, { name: 'Plain desk', description: 'Solid walnut, oiled' });
    const found = async (text: string) => {
      const { body, levelsRead } = await searched(place, text);
      return { level: body.level, location_name: body.location_name, count: body.count, ids: body.products.map((p: { id: string }) => p.id), levelsRead };
    };
    expect(await found('KETTLE')).toEqual({ level: 'neighbourhood', location_name: 'Dock', count: 1, ids: [kettle.id], levelsRead: 1 });
    expect(await found('linen')).toEqual({ level: 'city', location_name: 'Alpha', count: 1, ids: [towel.id], levelsRead: 2 });
    expect(await found('walnut')).toEqual({ level: 'country', location_name: country, count: 1, ids: [desk.id], levelsRead: 2 });
    const rest = await search(place, 'walnut');
    expect(await app.emit('products.by_location', { location_id: place, search: 'walnut' })).toEqual({ status: 200, body: rest.body });

    // More matches than are looked at to place a search: the levels are walked as before, up to the narrowest
    // level among those seen (here the city's), never past it.
    await sql(
      `INSERT INTO products (store_id, name, description, category, stock, price_type, price)
       SELECT $1, 'Bulk lamp ' || g, '', 'home_garden', 1, 'fixed', 5 FROM generate_series(1, $2::int) g`,
      [sameCity.store.id, SEARCH_MATCHES_SEEN + 1],
    );
    await aProduct(app, far.seller, far.store.id, { name: 'Bulk lamp, far away' });
    expect(await found('bulk lamp')).toMatchObject({ level: 'city', count: SEARCH_MATCHES_SEEN + 1, levelsRead: 2 });
  });
});
