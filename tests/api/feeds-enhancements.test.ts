import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aCommunity, joinCommunity } from '../builders/communities.js';
import { aStore } from '../builders/stores.js';
import { aCity, aFeedPage, aResidentAt } from '../builders/feeds.js';

/** Stores and communities near the caller, never the caller's own or those it already belongs to. */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'off' });
});
afterAll(async () => {
  await app.stop();
});

describe('store and community enhancements', () => {
  test('when a neighbour runs a store and a community, then the caller is offered both until it joins; its own and far ones never', async () => {
    const city = aCity();
    const alice = await aResidentAt(app, city);
    const bob = await aResidentAt(app, city, 1400, 0);
    const carol = await aResidentAt(app, city, 10_000, 0);
    const bobStore = await aStore(app, bob);
    const aliceStore = await aStore(app, alice);
    const carolStore = await aStore(app, carol);
    const bobClub = await aCommunity(app, bob, { location: bob.locationId });
    const carolClub = await aCommunity(app, carol, { location: carol.locationId });

    const stores = await aFeedPage(app, alice, '/api/feed/enhancements/stores/');
    expect(stores).toMatchObject({ type: 'stores', inject_at_positions: [9], title: expect.any(String) });
    const storeIds = stores.items.map((s: any) => s.id);
    expect(storeIds).toContain(bobStore.id);
    expect(storeIds).not.toContain(aliceStore.id);
    expect(storeIds).not.toContain(carolStore.id);
    const offered = stores.items.find((s: any) => s.id === bobStore.id);
    expect(Object.keys(offered).sort()).toEqual(['description', 'id', 'location_name', 'logo', 'name', 'owner']);
    expect(offered.owner).toEqual({ username: bob.username, display_name: expect.any(String) });

    const clubs = await aFeedPage(app, alice, '/api/feed/enhancements/communities/');
    expect(clubs).toMatchObject({ type: 'communities', inject_at_positions: [14] });
    expect(clubs.items.map((c: any) => c.id)).toEqual([bobClub.id]);
    expect(Object.keys(clubs.items[0]).sort()).toEqual(['avatar', 'category', 'description', 'id', 'members_count', 'name', 'posts_count']);
    expect((await aFeedPage(app, bob, '/api/feed/enhancements/communities/')).items.map((c: any) => c.id)).not.toContain(bobClub.id);

    await joinCommunity(app, alice, bobClub.id);
    const after = await aFeedPage(app, alice, '/api/feed/enhancements/communities/');
    expect(after).toMatchObject({ items: [], inject_at_positions: [] });
    const aroundCarol = await aFeedPage(app, alice, '/api/feed/enhancements/communities/', { location_id: carol.locationId });
    expect(aroundCarol.items.map((c: any) => c.id)).toEqual([carolClub.id]);

    for (const op of ['stores', 'communities']) {
      const rest = await app.rest('GET', `/api/feed/enhancements/${op}/`, { token: alice.token, query: { location_id: carol.locationId } });
      expect(await app.emit(`feeds.enhancements.${op}`, { location_id: carol.locationId }, { token: alice.token })).toEqual({ status: 200, body: rest.body });
      const bad = await app.rest('GET', `/api/feed/enhancements/${op}/`, { token: alice.token, query: { location_id: 'x' } });
      expect(bad).toMatchObject({ status: 400, body: { location_id: ['Invalid UUID format.'] } });
    }
  }, 60_000);
});
