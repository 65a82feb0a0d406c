import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aResident } from '../builders/locations.js';
import { aCategoryId, aCommunity, joinCommunity } from '../builders/communities.js';
import { isCommunityMember, loadCommunitySummaries } from '../../src/modules/communities/summaries.js';
import { channelRoom } from '../../src/core/channels.js';
import { PNG_1X1 } from '../helpers/images.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const mediaFile = (url: string) => path.join(app.dataDir, 'media', new URL(url).pathname.replace(/^\/media\//, ''));

const PNG = PNG_1X1;

describe('create and read', () => {
  test('when a user creates a community, then it answers 201 with the full object, the creator is owner and member, and owned_communities lists it', async () => {
    const alice = await aResident(app);
    const category = await aCategoryId(app, alice, 'Gardening');
    const name = unique('Garden club ');
    const res = await app.rest('POST', '/api/communities/communities/', { token: alice.token, body: { name, description: 'Tomatoes', category } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name,
      description: 'Tomatoes',
      avatar: null,
      banner: null,
      members_count: 1,
      posts_count: 0,
      category: { id: category, name: 'Gardening' },
      location: null,
      owner: { id: alice.id, username: alice.username, display_name: expect.any(String), profile_picture: null },
      is_member: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const members = await app.rest('GET', `/api/communities/communities/${res.body.id}/members/`, { token: alice.token });
    expect(members.body.results).toEqual([{ user: expect.objectContaining({ id: alice.id }), role: 'owner', joined_at: expect.any(String) }]);
    const profile = await app.rest('GET', '/api/users/profile/', { token: alice.token });
    expect(profile.body.owned_communities).toEqual([{ id: res.body.id, name, description: 'Tomatoes' }]);
    const publicProfile = await app.rest('GET', `/api/users/${alice.username}`, { token: alice.token });
    expect(publicProfile.body.owned_communities).toEqual([{ id: res.body.id, name, description: 'Tomatoes' }]);
  });

  test('when a community is created with images over multipart, then avatar and banner are absolute URLs', async () => {
    const alice = await aResident(app);
    const category = await aCategoryId(app, alice);
    const res = await app
      .http()
      .post('/api/communities/communities/')
      .set('Authorization', `Bearer ${alice.token}`)
      .field('name', unique('Pictured '))
      .field('category', category)
      .attach('avatar', PNG, 'a.png')
      .attach('banner', PNG, 'b.png');
    expect(res.status).toBe(201);
    expect(res.body.avatar).toMatch(/^http:\/\/.+\/media\/communities\/avatars\//);
    expect(res.body.banner).toMatch(/^http:\/\/.+\/media\/communities\/banners\//);
  });

  test('when create, join, leave, list and detail run over REST and the socket, then status and bodies are identical', async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const category = await aCategoryId(app, alice);
    const viaRest = await app.rest('POST', '/api/communities/communities/', { token: alice.token, body: { name: unique('Rest '), category } });
    const viaSocket = await app.emit('communities.create', { name: unique('Sock '), category }, { token: alice.token });
    expect(viaSocket.status).toBe(201);
    expect(Object.keys(viaSocket.body).sort()).toEqual(Object.keys(viaRest.body).sort());
    const id = viaSocket.body.id;

    const detailRest = await app.rest('GET', `/api/communities/communities/${id}/`, { token: bob.token });
    const detailSocket = await app.emit('communities.get', { community_id: id }, { token: bob.token });
    expect(detailSocket).toEqual({ status: detailRest.status, body: detailRest.body });
    expect(detailRest.body.is_member).toBe(false);

    const join = await app.emit('communities.join', { community_id: id }, { token: bob.token });
    expect(join).toEqual({ status: 200, body: { message: `You have joined ${viaSocket.body.name}.` } });
    const again = await app.rest('POST', `/api/communities/communities/${id}/join/`, { token: bob.token });
    expect(again).toMatchObject({ status: 200, body: { message: `You are already a member of ${viaSocket.body.name}.` } });

    const listRest = await app.rest('GET', '/api/communities/communities/', { token: bob.token, query: { search: viaSocket.body.name } });
    const listSocket = await app.emit('communities.list', { search: viaSocket.body.name }, { token: bob.token });
    expect(listSocket).toEqual({ status: listRest.status, body: listRest.body });
    expect(listRest.body.results).toEqual([expect.objectContaining({ id, members_count: 2, is_member: true })]);

    const leaveSocket = await app.emit('communities.leave', { community_id: id }, { token: bob.token });
    expect(leaveSocket).toEqual({ status: 200, body: { message: `You have left ${viaSocket.body.name}.` } });
    const leaveRest = await app.rest('POST', `/api/communities/communities/${id}/leave/`, { token: bob.token });
    expect(leaveRest).toMatchObject({ status: 200, body: { message: `You are not a member of ${viaSocket.body.name}.` } });
    const after = await app.rest('GET', `/api/communities/communities/${id}/`, { token: bob.token });
    expect(after.body).toMatchObject({ members_count: 1, is_member: false });
  });

  test('when the list is filtered by category, location or search, then only matching communities come back, with links carrying the filters', async () => {
    const alice = await aResident(app);
    const place = await app.rest('POST', '/api/locations/locations/smart_update/', {
      token: alice.token,
      body: { latitude: -50 - Math.random() * 5, longitude: -120 - Math.random() * 10, geocoded_data: { address: { country: 'Testland', city: unique('Town ') } } },
    });
    const locationId = place.body.location.id;
    const pets = await aCategoryId(app, alice, 'Pets');
    const marker = unique('zz');
    const local = await aCommunity(app, alice, { name: `${marker} dogs`, category: pets, location: locationId });
    const other = await aCommunity(app, alice, { name: `${marker} books`, description: 'reading' });
    expect(local.location).toEqual({ id: locationId, name: expect.any(String) });

    const byLocation = await app.rest('GET', '/api/communities/communities/', { token: alice.token, query: { location: locationId } });
    expect(byLocation.body.results.map((c: any) => c.id)).toEqual([local.id]);
    const byCategory = await app.rest('GET', '/api/communities/communities/', { token: alice.token, query: { category: pets, search: marker } });
    expect(byCategory.body.results.map((c: any) => c.id)).toEqual([local.id]);
    const bySearch = await app.rest('GET', '/api/communities/communities/', { token: alice.token, query: { search: marker.toUpperCase(), page_size: 1 } });
    expect(bySearch.body.count).toBe(2);
    expect(bySearch.body.next).toContain(`search=${marker.toUpperCase()}`);
    expect([local.id, other.id]).toContain(bySearch.body.results[0].id);
    const wildcard = await app.rest('GET', '/api/communities/communities/', { token: alice.token, query: { search: '%_%' } });
    expect(wildcard.body.results.every((c: any) => c.name.includes('%_%') || c.description.includes('%_%'))).toBe(true);
  });

  test('when categories are listed, then the seeded set comes back with groups', async () => {
    const alice = await aResident(app);
    const res = await app.rest('GET', '/api/communities/categories/', { token: alice.token });
    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThanOrEqual(10);
    expect(res.body).toContainEqual({ id: expect.any(String), name: 'Gardening', group: { id: expect.any(String), name: 'Hobbies and interests' } });
  });

  test('when the list is asked without a token, then 401', async () => {
    expect((await app.rest('GET', '/api/communities/communities/')).status).toBe(401);
  });
});

describe('owner rights', () => {
  test('when the owner updates, then only the fields sent change; another user gets 403 and nothing changes', async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const club = await aCommunity(app, alice);
    const denied = await app.rest('PATCH', `/api/communities/communities/${club.id}/`, { token: bob.token, body: { description: 'hijacked' } });
    expect(denied).toMatchObject({ status: 403, body: { detail: 'You do not have permission to perform this action.' } });
    const res = await app.rest('PATCH', `/api/communities/communities/${club.id}/`, { token: alice.token, body: { description: 'New text' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: club.name, description: 'New text' });
    const socket = await app.emit('communities.update', { community_id: club.id, description: 'Via socket' }, { token: alice.token });
    expect(socket).toMatchObject({ status: 200, body: { description: 'Via socket' } });
  });

  test('when the owner deletes, then 204 and the community is gone; a non-owner gets 403; joining it afterwards is 404', async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const club = await aCommunity(app, alice);
    expect((await app.rest('DELETE', `/api/communities/communities/${club.id}/`, { token: bob.token })).status).toBe(403);
    expect((await app.rest('DELETE', `/api/communities/communities/${club.id}/`, { token: alice.token })).status).toBe(204);
    expect((await app.rest('GET', `/api/communities/communities/${club.id}/`, { token: alice.token })).status).toBe(404);
    const join = await app.rest('POST', `/api/communities/communities/${club.id}/join/`, { token: bob.token });
    expect(join).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
    const profile = await app.rest('GET', '/api/users/profile/', { token: alice.token });
    expect(profile.body.owned_communities).toEqual([]);
  });

  test('when the owner deletes a community with an image post in it, then its pictures and the post’s image leave storage', async () => {
    const alice = await aResident(app);
    const category = await aCategoryId(app, alice);
    const created = await app.http().post('/api/communities/communities/').set('Authorization', `Bearer ${alice.token}`).field('name', unique('Gone ')).field('category', category).attach('avatar', PNG, 'a.png').attach('banner', PNG, 'b.png');
    expect(created.status).toBe(201);
    const post = await app.http().post('/api/feed/posts/').set('Authorization', `Bearer ${alice.token}`).field('post_type', 'image').field('community_id', created.body.id).attach('media', PNG, 'p.png');
    expect(post.status).toBe(201);
    const files = [created.body.avatar, created.body.banner, post.body.media[0].file].map(mediaFile);
    for (const file of files) expect(fs.existsSync(file)).toBe(true);
    expect((await app.rest('DELETE', `/api/communities/communities/${created.body.id}/`, { token: alice.token })).status).toBe(204);
    for (const file of files) expect(fs.existsSync(file)).toBe(false);
    expect((await app.rest('GET', `/api/feed/posts/${post.body.id}/`, { token: alice.token })).status).toBe(404);
  });

  test('when two avatar replacements race, then the community keeps one of them and no other avatar file is left behind', async () => {
    const alice = await aResident(app);
    const category = await aCategoryId(app, alice);
    const created = await app.http().post('/api/communities/communities/').set('Authorization', `Bearer ${alice.token}`).field('name', unique('Race ')).field('category', category).attach('avatar', PNG, 'first.png');
    const replace = () => app.http().patch(`/api/communities/communities/${created.body.id}/`).set('Authorization', `Bearer ${alice.token}`).attach('avatar', PNG, 'next.png');
    const avatarsDir = path.dirname(mediaFile(created.body.avatar));
    const before = new Set(fs.readdirSync(avatarsDir));
    // Two at once: the most uploads one caller may have in flight.
    const answers = await Promise.all([replace(), replace()]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    const final = (await app.rest('GET', `/api/communities/communities/${created.body.id}/`, { token: alice.token })).body.avatar;
    // The race's files (tests of this file run one at a time): only the avatar the row names remains, the first is gone.
    const added = fs.readdirSync(avatarsDir).filter((f) => !before.has(f));
    // The avatar and its two variants.
    const kept = path.basename(mediaFile(final)).replace(/\.png$/, '');
    expect(added.sort()).toEqual([`${kept}.1280.webp`, `${kept}.320.webp`, `${kept}.png`]);
    expect(fs.existsSync(mediaFile(created.body.avatar))).toBe(false);
  });

  test('when the owner tries to leave, then 400 and the owner stays a member', async () => {
    const alice = await aResident(app);
    const club = await aCommunity(app, alice);
    const res = await app.rest('POST', `/api/communities/communities/${club.id}/leave/`, { token: alice.token });
    expect(res).toMatchObject({ status: 400, body: { detail: 'The owner cannot leave the community; delete it instead.' } });
    expect(await isCommunityMember(club.id, alice.id)).toBe(true);
  });
});

describe('bad input', () => {
  test('when the name is taken (any case), then 400 {name} and nothing is written', async () => {
    const alice = await aResident(app);
    const club = await aCommunity(app, alice);
    const res = await app.rest('POST', '/api/communities/communities/', { token: alice.token, body: { name: club.name.toUpperCase(), category: club.category.id } });
    expect(res).toMatchObject({ status: 400, body: { name: ['A community with this name already exists.'] } });
    const list = await app.rest('GET', '/api/communities/communities/', { token: alice.token, query: { search: club.name } });
    expect(list.body.count).toBe(1);
  });

  test('when two creations race for one name, then one wins and the other gets the field error', async () => {
    const alice = await aResident(app);
    const category = await aCategoryId(app, alice);
    const name = unique('Race ');
    const results = await Promise.all([1, 2, 3].map(() => app.rest('POST', '/api/communities/communities/', { token: alice.token, body: { name, category } })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400]);
    for (const r of results.filter((x) => x.status === 400)) expect(r.body).toEqual({ name: ['A community with this name already exists.'] });
  });

  test('when fields are missing, malformed or unknown, then field errors, never a 500', async () => {
    const alice = await aResident(app);
    const missing = await app.rest('POST', '/api/communities/communities/', { token: alice.token, body: {} });
    expect(missing).toMatchObject({ status: 400, body: { name: ['This field is required.'], category: ['This field is required.'] } });
    const malformed = await app.rest('POST', '/api/communities/communities/', { token: alice.token, body: { name: 'x', category: 'nope', location: 'nope' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ name: [expect.any(String)], category: ['Invalid UUID format.'], location: ['Invalid UUID format.'] });
    const unknown = await app.rest('POST', '/api/communities/communities/', { token: alice.token, body: { name: unique('Ghost '), category: crypto.randomUUID(), location: crypto.randomUUID() } });
    expect(unknown.status).toBe(400);
    expect(Object.keys(unknown.body).sort()).toEqual(['category', 'location']);
    const badImage = await app.http().post('/api/communities/communities/').set('Authorization', `Bearer ${alice.token}`).field('name', unique('Img ')).field('category', crypto.randomUUID()).attach('avatar', Buffer.from('not an image'), 'a.png');
    expect(badImage.status).toBe(400);
    expect(badImage.body.avatar).toBeDefined();
    expect((await app.rest('GET', '/api/communities/communities/not-a-uuid/', { token: alice.token })).body).toEqual({ community_id: ['Invalid UUID format.'] });
    expect((await app.rest('POST', `/api/communities/communities/${crypto.randomUUID()}/join/`, { token: alice.token })).status).toBe(404);
    expect((await app.rest('GET', '/api/communities/communities/', { token: alice.token, query: { category: 'x' } })).body).toEqual({ category: ['Invalid UUID format.'] });
  });
});

describe('membership counts', () => {
  test('when 30 users join at once and 10 of them leave at once, then members_count is exact', async () => {
    const owner = await aResident(app);
    const club = await aCommunity(app, owner);
    const joiners = await Promise.all(Array.from({ length: 30 }, () => aResident(app)));
    const joins = await Promise.all(joiners.map((u) => app.rest('POST', `/api/communities/communities/${club.id}/join/`, { token: u.token })));
    expect(joins.every((r) => r.status === 200)).toBe(true);
    expect((await app.rest('GET', `/api/communities/communities/${club.id}/`, { token: owner.token })).body.members_count).toBe(31);
    // One user joining five times at once counts once.
    const twice = joiners[29];
    await Promise.all(Array.from({ length: 5 }, () => app.rest('POST', `/api/communities/communities/${club.id}/join/`, { token: twice.token })));
    expect((await app.rest('GET', `/api/communities/communities/${club.id}/`, { token: owner.token })).body.members_count).toBe(31);
    // Joins and leaves mixed, with a duplicate join of each leaver: still exact.
    const leavers = joiners.slice(0, 10);
    await Promise.all([
      ...leavers.map((u) => app.rest('POST', `/api/communities/communities/${club.id}/leave/`, { token: u.token })),
      ...joiners.slice(10, 20).map((u) => app.rest('POST', `/api/communities/communities/${club.id}/join/`, { token: u.token })),
    ]);
    const detail = await app.rest('GET', `/api/communities/communities/${club.id}/`, { token: owner.token });
    expect(detail.body.members_count).toBe(21);
    const members = await app.rest('GET', `/api/communities/communities/${club.id}/members/`, { token: owner.token, query: { page_size: 100 } });
    expect(members.body.count).toBe(21);
  }, 120_000); // 30 registrations: argon2id hashing dominates on a busy machine
});

describe('summaries for other modules', () => {
  test('when summaries are loaded for several ids, then one map holds each existing community in the contract shape', async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const a = await aCommunity(app, alice);
    const b = await aCommunity(app, alice);
    await joinCommunity(app, bob, b.id);
    const missing = crypto.randomUUID();
    const map = await loadCommunitySummaries([a.id, b.id, missing, a.id]);
    expect(map.size).toBe(2);
    expect(map.get(b.id)).toEqual({ id: b.id, name: b.name, description: b.description, avatar: null, members_count: 2, posts_count: 0, category: b.category });
    expect(await isCommunityMember(b.id, bob.id)).toBe(true);
    expect(await isCommunityMember(a.id, bob.id)).toBe(false);
    expect((await loadCommunitySummaries([])).size).toBe(0);
  });
});

describe('community channel', () => {
  test('when a socket subscribes to a community, then it is in its room; an unknown id is 404', async () => {
    const alice = await aResident(app);
    const club = await aCommunity(app, alice);
    const s = await app.socket(alice.token);
    expect(await s.timeout(5000).emitWithAck('subscribe', { channel: 'community', id: club.id })).toEqual({ status: 200, body: { channel: 'community', id: club.id } });
    expect(app.server.io.of('/').sockets.get(s.id!)?.rooms.has(channelRoom('community', club.id))).toBe(true);
    expect(await s.timeout(5000).emitWithAck('subscribe', { channel: 'community', id: crypto.randomUUID() })).toEqual({ status: 404, body: { detail: 'Not found.' } });
  });

  test('when an anonymous socket subscribes to a community, then 401 and it is not in the room', async () => {
    const alice = await aResident(app);
    const club = await aCommunity(app, alice);
    const anonymous = await app.socket();
    expect(await anonymous.timeout(5000).emitWithAck('subscribe', { channel: 'community', id: club.id })).toEqual({ status: 401, body: { detail: 'Authentication credentials were not provided.' } });
    expect(app.server.io.of('/').sockets.get(anonymous.id!)?.rooms.has(channelRoom('community', club.id))).toBe(false);
  });
});
