import crypto from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aShopper, aStore } from '../builders/stores.js';
import { aCommunity } from '../builders/communities.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

describe("a store's community", () => {
  test('when a store names a community, then it shows {id, name}; when the community is deleted, the store stays and is untied', async () => {
    const owner = await aShopper(app);
    const community = await aCommunity(app, owner);
    const store = await aStore(app, owner, { community: community.id });
    expect(store.community).toEqual({ id: community.id, name: community.name });

    expect((await app.rest('DELETE', `/api/communities/communities/${community.id}/`, { token: owner.token })).status).toBe(204);
    const after = await app.rest('GET', `/api/stores/stores/${store.id}/`);
    expect(after.status).toBe(200);
    expect(after.body.community).toBeNull();
  });

  test('when the owner is not a member of the community, then linking the store to it is a field error', async () => {
    const founder = await aShopper(app);
    const community = await aCommunity(app, founder);
    const outsider = await aShopper(app);
    const res = await app.rest('POST', '/api/stores/stores/', { token: outsider.token, body: { name: 'Outsider shop', slug: `outsider-${Date.now()}`, community: community.id } });
    expect(res).toMatchObject({ status: 400, body: { community: ['You can only link a store to a community you belong to.'] } });
  });

  test('when the community does not exist, then creating or updating the store is a field error and nothing is written', async () => {
    const owner = await aShopper(app);
    const missing = crypto.randomUUID();
    const created = await app.rest('POST', '/api/stores/stores/', { token: owner.token, body: { name: 'Nowhere shop', slug: `nowhere-${Date.now()}`, community: missing } });
    expect(created).toMatchObject({ status: 400, body: { community: [`Invalid pk "${missing}" - object does not exist.`] } });
    expect((await app.rest('GET', '/api/stores/stores/my_store/', { token: owner.token })).body).toEqual([]);

    const store = await aStore(app, owner);
    const patched = await app.rest('PATCH', `/api/stores/stores/${store.id}/`, { token: owner.token, body: { community: missing } });
    expect(patched).toMatchObject({ status: 400, body: { community: [expect.any(String)] } });
    expect((await app.rest('GET', `/api/stores/stores/${store.id}/`)).body.community).toBeNull();
  });
});
