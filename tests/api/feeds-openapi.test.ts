import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { openApiFit } from '../helpers/openapi-fit.js';
import { aPoll, aPost } from '../builders/posts.js';
import { aResident } from '../builders/locations.js';
import { aCity, aFeedPage, aResidentAt } from '../builders/feeds.js';
import { aStore } from '../builders/stores.js';
import { aCommunity } from '../builders/communities.js';

/** The feed and enhancement bodies the service answers are the ones its OpenAPI document describes. */
let app: TestApp;
let doc: any;
beforeAll(async () => {
  app = await startTestApp();
  doc = (await app.rest('GET', '/api/docs/openapi.json')).body;
});
afterAll(async () => {
  await app.stop();
});

const { successSchema, expectBodyFits } = openApiFit(() => doc);

describe('feeds in the OpenAPI document', () => {
  test('when each feed and the people enhancement answer, then each body fits its documented schema', async () => {
    const city = aCity();
    const alice = await aResidentAt(app, city);
    const bob = await aResidentAt(app, city, 1400, 0);
    await aPost(app, alice);
    await aPoll(app, bob);
    await aStore(app, bob);
    await aCommunity(app, bob, { location: bob.locationId });
    const nomad = await aResident(app);
    const reads: Array<[string, string, any]> = [
      ['/api/feed/hybrid/neighbourhood/', '/api/feed/hybrid/neighbourhood/', alice],
      ['/api/feed/hybrid/general/', '/api/feed/hybrid/general/', alice],
      ['/api/feed/hybrid/general/', '/api/feed/hybrid/general/', nomad],
      ['/api/feed/hybrid/location/{location_id}/', `/api/feed/hybrid/location/${bob.locationId}/`, alice],
      ['/api/feed/enhancements/users/', '/api/feed/enhancements/users/', alice],
      ['/api/feed/enhancements/stores/', '/api/feed/enhancements/stores/', alice],
      ['/api/feed/enhancements/communities/', '/api/feed/enhancements/communities/', alice],
    ];
    for (const [documented, path, user] of reads) {
      const body = await aFeedPage(app, user, path);
      expect(Object.keys(body).length).toBeGreaterThan(3);
      expectBodyFits(successSchema(documented), body, path);
    }
    const hood = await aFeedPage(app, alice, '/api/feed/hybrid/neighbourhood/');
    expect(hood.items.map((p: any) => p.post_type).sort()).toEqual(['poll', 'text']);
    expect(doc.paths['/api/feed/hybrid/neighbourhood/'].get.responses[429]).toBeDefined();
  }, 30_000);
});
