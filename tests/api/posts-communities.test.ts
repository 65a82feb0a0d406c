import crypto from 'node:crypto';
import { eventually, nextEvent, noEvent, startTestApp, type TestApp } from '../helpers/test-app.js';
import { aResident } from '../builders/locations.js';
import { aNeighbourhood, aPost, aResidentOf } from '../builders/posts.js';
import { aCommunity, joinCommunity } from '../builders/communities.js';
import { sql } from '../helpers/sql.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'off' });
});
afterAll(async () => {
  await app.stop();
});

const postsCount = async (communityId: string) => (await sql('SELECT posts_count FROM communities WHERE id = $1', [communityId]))[0].posts_count;

describe('community posts', () => {
  test('when a member posts in a community, then it has no location, the community counts it, members are notified and its room hears it', async () => {
    const owner = await aResident(app);
    const club = await aCommunity(app, owner);
    const member = await aResident(app); // no location needed for a community post
    const other = await aResident(app);
    for (const u of [member, other]) await joinCommunity(app, u, club.id);
    // A signed-in watcher (anonymous sockets may not watch a community).
    const room = await app.socket((await aResident(app)).token);
    expect(await room.timeout(5000).emitWithAck('subscribe', { channel: 'community', id: club.id })).toMatchObject({ status: 200 });
    const otherSocket = await app.socket(other.token);
    const memberSocket = await app.socket(member.token);
    const created = nextEvent(room, 'post:created');
    const told = nextEvent(otherSocket, 'notification:created');
    const authorQuiet = noEvent(memberSocket, 'notification:created', 800);

    const res = await app.rest('POST', '/api/feed/posts/', { token: member.token, body: { post_type: 'text', content: 'Meeting on Friday', community_id: club.id } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ community: club.id, community_name: club.name, location: null, location_name: null });
    expect(await created).toEqual(res.body);
    expect(await told).toMatchObject({ notification_type: 'new_post', target_type: 'Post', target_id: res.body.id, actor: { id: member.id } });
    await authorQuiet;
    expect(await postsCount(club.id)).toBe(1);
    const ownerNotes = await app.rest('GET', '/api/notifications/', { token: owner.token });
    expect(ownerNotes.body.results.filter((n: { notification_type: string }) => n.notification_type === 'new_post')).toHaveLength(1);
    expect((await app.rest('GET', `/api/communities/communities/${club.id}/`, { token: owner.token })).body.posts_count).toBe(1);

    const deletedInRoom = nextEvent(room, 'post:deleted');
    expect((await app.rest('DELETE', `/api/feed/posts/${res.body.id}/`, { token: member.token })).status).toBe(204);
    expect(await deletedInRoom).toEqual({ id: res.body.id });
    expect(await postsCount(club.id)).toBe(0);
  });

  test('when a non-member posts, then 400 Community Membership Required with the community id; an unknown community is a field error', async () => {
    const owner = await aResident(app);
    const club = await aCommunity(app, owner);
    const stranger = await aResident(app);
    const res = await app.rest('POST', '/api/feed/posts/', { token: stranger.token, body: { post_type: 'text', content: 'hi', community_id: club.id } });
    expect(res).toMatchObject({ status: 400, body: { error: 'Community Membership Required', message: expect.any(String), action: 'join_community', community_id: club.id } });
    expect(await app.emit('posts.create', { post_type: 'text', content: 'hi', community_id: club.id }, { token: stranger.token })).toEqual({ status: 400, body: res.body });
    const unknown = await app.rest('POST', '/api/feed/posts/', { token: stranger.token, body: { post_type: 'text', content: 'hi', community_id: crypto.randomUUID() } });
    expect(unknown).toMatchObject({ status: 400, body: { community_id: ['Community not found.'] } });
    expect(await postsCount(club.id)).toBe(0);
  });

  test('when 20 members post at once, then posts_count is exactly 20', async () => {
    const owner = await aResident(app);
    const club = await aCommunity(app, owner);
    const answers = await Promise.all(Array.from({ length: 20 }, () => app.rest('POST', '/api/feed/posts/', { token: owner.token, body: { post_type: 'text', content: 'x', community_id: club.id } })));
    expect(answers.every((a) => a.status === 201)).toBe(true);
    expect(await postsCount(club.id)).toBe(20);
  });

  test('when a community has 2,000 members, then one post notifies every other member, after the post answered', async () => {
    const owner = await aResident(app);
    const club = await aCommunity(app, owner);
    // Members straight into the table (registering 2,000 users would take minutes).
    await sql(
      `WITH u AS (
         INSERT INTO users (email, username, display_name, password_hash, referral_code)
         SELECT n || '@example.test', n, n, '!', substr(md5(n), 1, 12)
         FROM (SELECT 'm' || replace(gen_random_uuid()::text, '-', '') AS n FROM generate_series(1, 2000)) g RETURNING id)
       INSERT INTO community_members (community_id, user_id) SELECT $1::uuid, id FROM u`,
      [club.id],
    );
    const res = await app.rest('POST', '/api/feed/posts/', { token: owner.token, body: { post_type: 'text', content: 'Big news', community_id: club.id } });
    expect(res.status).toBe(201);
    // Members are told after the commit, in batches (community-fanout.service.ts): a bounded wait, not a sleep.
    const newPosts = async () => (await sql(`SELECT count(*)::int AS n FROM notifications WHERE target_id = $1 AND notification_type = 'new_post'`, [res.body.id]))[0].n;
    expect(await eventually(async () => (await newPosts()) >= 2000, 30_000)).toBe(true);
    expect(await newPosts()).toBe(2000);
  }, 60_000);
});

describe('community_share', () => {
  test('when a community is shared, then shared_community carries its summary; an unknown one is a field error', async () => {
    const place = await aNeighbourhood(app);
    const club = await aCommunity(app, place.founder);
    const post = await aPost(app, place.founder, { post_type: 'community_share', content: 'Join us', shared_community_id: club.id });
    expect(post.shared_community).toEqual({ id: club.id, name: club.name, description: club.description, avatar: null, members_count: 1, posts_count: 0, category: { id: expect.any(String), name: expect.any(String) } });
    expect(post).toMatchObject({ location: place.locationId, community: null, shared_product: null, shared_store: null });
    const unknown = await app.rest('POST', '/api/feed/posts/', { token: place.founder.token, body: { post_type: 'community_share', shared_community_id: crypto.randomUUID() } });
    expect(unknown).toMatchObject({ status: 400, body: { shared_community_id: ['Community not found.'] } });
    // The shared community is deleted: the post stays, sharing nothing.
    expect((await app.rest('DELETE', `/api/communities/communities/${club.id}/`, { token: place.founder.token })).status).toBe(204);
    expect((await app.rest('GET', `/api/feed/posts/${post.id}/`)).body.shared_community).toBeNull();
  });
});

describe('neighbourhood posts stay where they are', () => {
  test('when a resident posts without community_id, then community fields are null and the community room hears nothing', async () => {
    const place = await aNeighbourhood(app);
    const club = await aCommunity(app, place.founder);
    // A signed-in watcher who lives elsewhere (the founder would hear the post as a resident of the place).
    const room = await app.socket((await aResident(app)).token);
    expect(await room.timeout(5000).emitWithAck('subscribe', { channel: 'community', id: club.id })).toMatchObject({ status: 200 });
    const quiet = noEvent(room, 'post:created', 700);
    const bob = await aResidentOf(app, place);
    const post = await aPost(app, bob);
    expect(post).toMatchObject({ community: null, community_name: null, location: place.locationId });
    await quiet;
  });
});
