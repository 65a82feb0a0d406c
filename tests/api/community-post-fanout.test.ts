import { eventually, nextEvent, startTestApp, type TestApp } from '../helpers/test-app.js';
import { aResident } from '../builders/locations.js';
import { aCommunity, joinCommunity } from '../builders/communities.js';
import { sql } from '../helpers/sql.js';
import { drainCommunityPostFanout, fanOutNextBatch, resumeStalledFanouts } from '../../src/modules/posts/community-fanout.service.js';

/**
 * A community post's `new_post` fan-out runs after the post's commit, in batches, from one outbox row
 * (community_post_fanouts): the post answers whatever the community's size, every member but the author is told
 * once, and a fan-out left behind by a crash is resumed by the job without telling anyone twice.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'off' });
});
afterAll(async () => {
  await app.stop();
});

/**
 * `n` members straight into the tables (registering thousands of users would take minutes), 5,000 a statement
 * (each stays well inside the app pool's statement timeout).
 */
async function addMembers(communityId: string, n: number, opts: { idsFirst?: boolean } = {}): Promise<void> {
  for (let left = n; left > 0; left -= 5000) await addSomeMembers(communityId, Math.min(left, 5000), opts.idsFirst ?? false);
}

/**
 * `idsFirst`: their ids start with eight zeros, so they sort before any registered user's (random) id, and a fan-out,
 * which walks members by id, reaches every one of them before a registered member.
 */
async function addSomeMembers(communityId: string, n: number, idsFirst: boolean): Promise<void> {
  await sql(
    `WITH u AS (
       INSERT INTO users (id, email, username, display_name, password_hash, referral_code)
       SELECT CASE WHEN $3 THEN ('00000000' || substr(n, 10))::uuid ELSE gen_random_uuid() END, n || '@example.test', n, n, '!', substr(md5(n), 1, 12)
       FROM (SELECT 'f' || replace(gen_random_uuid()::text, '-', '') AS n FROM generate_series(1, $2::int)) g RETURNING id)
     INSERT INTO community_members (community_id, user_id) SELECT $1::uuid, id FROM u`,
    [communityId, n, idsFirst],
  );
}

const newPostsPerMember = (postId: string) =>
  sql<{ members: number; notified: number; most: number }>(
    `SELECT count(*)::int AS members, count(n.user_id)::int AS notified, coalesce(max(n.times), 0)::int AS most
     FROM community_members m
     JOIN posts p ON p.id = $1 AND p.community_id = m.community_id
     LEFT JOIN (SELECT user_id, count(*) AS times FROM notifications WHERE target_id = $1 AND notification_type = 'new_post' GROUP BY user_id) n
       ON n.user_id = m.user_id
     WHERE m.user_id <> p.user_id`,
    [postId],
  ).then((rows) => rows[0]);

const fanoutRow = async (postId: string) => (await sql('SELECT after_user_id FROM community_post_fanouts WHERE post_id = $1', [postId]))[0] ?? null;

/** A post that a node committed and then lost before fanning it out: the post and its outbox row, written directly. */
async function aPostLeftBehind(communityId: string, authorId: string, stalledSeconds: number): Promise<string> {
  const [post] = await sql<{ id: string }>(
    `INSERT INTO posts (user_id, post_type, content, community_id) VALUES ($1, 'text', 'left behind', $2) RETURNING id`,
    [authorId, communityId],
  );
  await sql(
    `INSERT INTO community_post_fanouts (post_id, community_id, actor_id, message, created_at, progressed_at)
     VALUES ($1, $2, $3, 'someone posted', now() - make_interval(secs => $4), now() - make_interval(secs => $4))`,
    [post.id, communityId, authorId, stalledSeconds],
  );
  return post.id;
}

describe('community post fan-out', () => {
  test('when a community has 70,000 members, then the post answers 201 and every member but the author is told new_post exactly once', async () => {
    const owner = await aResident(app);
    const club = await aCommunity(app, owner);
    // Past 65,535: one bind parameter per member cannot be sent at all.
    await addMembers(club.id, 70_000);

    const res = await app.rest('POST', '/api/feed/posts/', { token: owner.token, body: { post_type: 'text', content: 'Everyone!', community_id: club.id } });

    expect(res.status).toBe(201);
    expect(await eventually(async () => (await fanoutRow(res.body.id)) === null, 120_000)).toBe(true);
    expect(await newPostsPerMember(res.body.id)).toEqual({ members: 70_000, notified: 70_000, most: 1 });
    expect(await sql(`SELECT 1 FROM notifications WHERE target_id = $1 AND user_id = $2`, [res.body.id, owner.id])).toEqual([]);
  }, 180_000);

  test('when a node left a fan-out half done, then the job resumes it from its cursor and nobody is told twice, however many runners race', async () => {
    const owner = await aResident(app);
    const club = await aCommunity(app, owner);
    const member = await aResident(app);
    await joinCommunity(app, member, club.id);
    // The 600 sort first: the two batches below cannot have reached `member`, whose phone then hears the rest.
    await addMembers(club.id, 600, { idsFirst: true });
    const postId = await aPostLeftBehind(club.id, owner.id, 60);
    // The node wrote two batches of 100 before it died.
    expect(await fanOutNextBatch(postId, 100)).toBe(true);
    expect(await fanOutNextBatch(postId, 100)).toBe(true);
    await sql(`UPDATE community_post_fanouts SET progressed_at = now() - interval '1 minute' WHERE post_id = $1`, [postId]);
    const phone = await app.socket(member.token);
    const told = new Promise((resolve) => phone.on('notification:created', (n: { target_id: string }) => n.target_id === postId && resolve(n)));

    // The job on two nodes and a late worker at once: the row lock lets one write each batch.
    await Promise.all([resumeStalledFanouts(), resumeStalledFanouts(), drainCommunityPostFanout(postId)]);

    expect(await fanoutRow(postId)).toBeNull();
    expect(await newPostsPerMember(postId)).toEqual({ members: 601, notified: 601, most: 1 });
    expect(await told).toMatchObject({ notification_type: 'new_post', target_type: 'Post', target_id: postId, actor: { id: owner.id } });
  }, 60_000);

  test('when a fan-out moved recently, then the job leaves it to the node working on it', async () => {
    const owner = await aResident(app);
    const club = await aCommunity(app, owner);
    await addMembers(club.id, 3);
    const postId = await aPostLeftBehind(club.id, owner.id, 0);

    await resumeStalledFanouts(60);

    expect(await fanoutRow(postId)).toEqual({ after_user_id: null });
    expect((await newPostsPerMember(postId)).notified).toBe(0);
    expect(await drainCommunityPostFanout(postId)).toBe(1);
    expect(await newPostsPerMember(postId)).toEqual({ members: 3, notified: 3, most: 1 });
  });

  test('when the post is deleted before its members are told, then its fan-out goes with it', async () => {
    const owner = await aResident(app);
    const club = await aCommunity(app, owner);
    await addMembers(club.id, 5);
    const postId = await aPostLeftBehind(club.id, owner.id, 60);
    await sql('DELETE FROM posts WHERE id = $1', [postId]);

    expect(await fanoutRow(postId)).toBeNull();
    await resumeStalledFanouts();
    expect(await sql(`SELECT 1 FROM notifications WHERE target_id = $1`, [postId])).toEqual([]);
  });
});
