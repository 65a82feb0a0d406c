import crypto from 'node:crypto';
import type { Socket } from 'socket.io-client';
import type { Server } from 'socket.io';
import { nextEvent, startTestApp, type TestApp } from '../helpers/test-app.js';
import { sql } from '../helpers/sql.js';
import { openApiFit } from '../helpers/openapi-fit.js';
import { aResident } from '../builders/locations.js';
import { aConversation } from '../builders/messages.js';
import type { TestUser } from '../builders/users.js';
import { aComment, aNeighbourhood, aPost, aResidentOf } from '../builders/posts.js';
import { aCommunity, joinCommunity } from '../builders/communities.js';
import { aBlock } from '../builders/safety.js';
import { channelRoom } from '../../src/core/channels.js';
import { userRoom } from '../../src/realtime/rooms.js';
import { platform } from '../../src/platform/index.js';
import { recordDeletions } from '../../src/modules/deletions/deletions.service.js';
import { deleteExpiredDeletions, expiredDeletionsJob } from '../../src/modules/deletions/cleanup.job.js';
import { runJob } from '../../src/jobs/index.js';
import { useLateCommitMargin } from '../../src/modules/sync/sync.service.js';

/**
 * realtime.sync's `deleted` (DESIGN.md section 5): what the caller could see and that went away after `since`,
 * once, oldest first, in the same cursor as the other kinds; and a deleted community's room hears its end and is
 * emptied (across nodes: tests/api/realtime-cluster.test.ts).
 */
let app: TestApp;
let doc: any;
beforeAll(async () => {
  app = await startTestApp();
  doc = (await app.rest('GET', '/api/docs/openapi.json')).body;
});
afterAll(async () => {
  useLateCommitMargin();
  await app.stop();
});
beforeEach(() => useLateCommitMargin(0));

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const syncOver = (socket: Socket, input: Record<string, unknown>) => socket.timeout(10000).emitWithAck('realtime.sync', input);
const syncRest = (user: TestUser, query: Record<string, unknown>) => app.rest('GET', '/api/realtime/sync/', { token: user.token, query });
const gone = (type: string, ids: string[]) => ids.map((id) => ({ type, id })).sort((a, b) => a.id.localeCompare(b.id));
const goneIn = (body: { deleted: Array<{ type: string; id: string }> }) => body.deleted.map(({ type, id }) => ({ type, id })).sort((a, b) => a.id.localeCompare(b.id));

/** A moment strictly between what happened before and what happens after (timestamps are compared strictly). */
async function aMomentNow(): Promise<string> {
  await pause(5);
  const at = new Date().toISOString();
  await pause(5);
  return at;
}

/**
 * Whether `socket` (of `userId`) hears an emit to `room` made on `io` now. A marker to the user's own room is
 * emitted right after the probe from the same node, and arrives after it: once the marker is in, the answer is
 * known (no waiting on a timer).
 */
async function hearsRoom(io: Server, socket: Socket, userId: string, room: string): Promise<boolean> {
  const probe = crypto.randomUUID();
  let heard = false;
  const onProbe = (p: string) => {
    if (p === probe) heard = true;
  };
  socket.on('test:probe', onProbe);
  const marker = new Promise<void>((resolve) => {
    const onMarker = (p: string) => {
      if (p !== probe) return;
      socket.off('test:marker', onMarker);
      resolve();
    };
    socket.on('test:marker', onMarker);
  });
  io.to(room).emit('test:probe', probe);
  io.to(userRoom(userId)).emit('test:marker', probe);
  await marker;
  socket.off('test:probe', onProbe);
  return heard;
}

/** Every `event` payload a socket hears until `count` have come. */
function collect<T = any>(socket: Socket, event: string, count: number): Promise<T[]> {
  const got: T[] = [];
  return new Promise((resolve) => {
    const on = (payload: T) => {
      got.push(payload);
      if (got.length < count) return;
      socket.off(event, on);
      resolve(got);
    };
    socket.on(event, on);
  });
}

describe('a post deleted while a phone was away', () => {
  test('when its author deletes it, then the neighbour\'s next sync lists it in deleted once, the same over both transports, and a stranger elsewhere learns nothing', async () => {
    const home = await aNeighbourhood(app);
    const alice = await aResidentOf(app, home);
    const author = await aResidentOf(app, home);
    const stranger = await aResidentOf(app);
    const post = await aPost(app, author);
    const kept = await aPost(app, author);
    const phone = await app.socket(alice.token);
    expect((await syncOver(phone, { since: new Date(Date.now() - 60_000).toISOString() })).body.posts.map((p: { id: string }) => p.id)).toEqual([post.id, kept.id]);
    phone.close();
    const since = await aMomentNow();

    expect(await app.emit('posts.delete', { post_id: post.id }, { token: author.token })).toEqual({ status: 204, body: null });

    const back = await app.socket(alice.token);
    const overSocket = await syncOver(back, { since });
    expect(overSocket.status).toBe(200);
    expect(overSocket.body.deleted).toEqual([{ type: 'post', id: post.id, deleted_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/) }]);
    expect(Date.parse(overSocket.body.deleted[0].deleted_at)).toBeGreaterThan(Date.parse(since));
    expect(overSocket.body.full_refresh).toBe(false);
    const overRest = await syncRest(alice, { since });
    expect({ status: overRest.status, body: overRest.body }).toEqual(overSocket);
    // Once: the answer's cursor does not give it again.
    expect((await syncOver(back, { cursor: overSocket.body.cursor })).body.deleted).toEqual([]);

    const strangers = (await syncRest(stranger, { since })).body;
    expect(strangers.deleted).toEqual([]);
    expect(JSON.stringify(strangers)).not.toContain(post.id);
    // Its author's other devices hear of it too (the author lives there).
    expect((await syncRest(author, { since })).body.deleted).toEqual(overSocket.body.deleted);
  });
});

describe('a comment deleted', () => {
  test('when its author deletes a comment with a reply, then both are in deleted for the post\'s audience and for a socket watching the post, and not for anyone else', async () => {
    const home = await aNeighbourhood(app);
    const alice = await aResidentOf(app, home);
    const bob = await aResidentOf(app, home);
    const watcher = await aResidentOf(app);
    const stranger = await aResidentOf(app);
    const post = await aPost(app, bob);
    const comment = await aComment(app, bob, post.id);
    const reply = await aComment(app, alice, post.id, { parent: comment.id });
    const untouched = await aComment(app, alice, post.id);
    const since = await aMomentNow();

    expect(await app.emit('comments.delete', { comment_id: comment.id }, { token: bob.token })).toEqual({ status: 204, body: null });

    const socket = await app.socket(alice.token);
    const overSocket = await syncOver(socket, { since });
    expect(goneIn(overSocket.body)).toEqual(gone('comment', [comment.id, reply.id]));
    const overRest = await syncRest(alice, { since });
    expect({ status: overRest.status, body: overRest.body }).toEqual(overSocket);
    expect(JSON.stringify(overSocket.body)).not.toContain(untouched.id);

    // Someone elsewhere who has the post open (its room is where comments are pushed) hears it too.
    const watching = await app.socket(watcher.token);
    expect(await watching.timeout(5000).emitWithAck('subscribe', { channel: 'post', id: post.id })).toMatchObject({ status: 200 });
    expect(goneIn((await syncOver(watching, { since })).body)).toEqual(gone('comment', [comment.id, reply.id]));
    // Without the post open, the same user has no reason to know.
    expect((await syncRest(watcher, { since })).body.deleted).toEqual([]);
    expect((await syncOver(await app.socket(stranger.token), { since })).body.deleted).toEqual([]);
  });
});

describe('a block made while a phone was away', () => {
  test('when alice blocks bob, then each one\'s next sync lists the other\'s posts and comments it could see in deleted once, at the block\'s moment, over both transports; carol loses nothing; unblocked, they are listed no more', async () => {
    const home = await aNeighbourhood(app);
    const [alice, bob, carol] = [await aResidentOf(app, home), await aResidentOf(app, home), await aResidentOf(app, home)];
    const byCarol = await aPost(app, carol);
    const [byAlice, byBob] = [await aPost(app, alice), await aPost(app, bob)];
    const [aliceComment, bobComment] = [await aComment(app, alice, byCarol.id), await aComment(app, bob, byCarol.id)];
    // Under bob's own post: his post stands for it, as a deleted post's tombstone stands for its comments.
    await aComment(app, bob, byBob.id);
    const bobElsewhere = await aPost(app, await aResidentOf(app));
    const bobCommentElsewhere = await aComment(app, bob, bobElsewhere.id);
    const since = await aMomentNow();

    await aBlock(app, alice, bob);
    // Both blocking each other is still one moment: every item once.
    await aBlock(app, bob, alice);

    const phone = await app.socket(alice.token);
    const overSocket = await syncOver(phone, { since });
    expect(overSocket.status).toBe(200);
    expect(goneIn(overSocket.body)).toEqual([...gone('post', [byBob.id]), ...gone('comment', [bobComment.id])].sort((a, b) => a.id.localeCompare(b.id)));
    const moments = new Set(overSocket.body.deleted.map((d: { deleted_at: string }) => d.deleted_at));
    expect(moments.size).toBe(1);
    expect(Date.parse([...moments][0] as string)).toBeGreaterThan(Date.parse(since));
    const overRest = await syncRest(alice, { since });
    expect({ status: overRest.status, body: overRest.body }).toEqual(overSocket);
    // Once: the answer's cursor does not give them again.
    expect((await syncOver(phone, { cursor: overSocket.body.cursor })).body.deleted).toEqual([]);
    // A comment of bob's under a post outside alice's rooms was never on her screen.
    expect(JSON.stringify(overSocket.body)).not.toContain(bobCommentElsewhere.id);

    // It works both ways: bob's phone drops alice's post and comment.
    expect(goneIn((await syncRest(bob, { since })).body)).toEqual([...gone('post', [byAlice.id]), ...gone('comment', [aliceComment.id])].sort((a, b) => a.id.localeCompare(b.id)));
    // Carol, who blocked nobody, loses nothing, and a sync from after the block lists nothing.
    expect((await syncRest(carol, { since })).body.deleted).toEqual([]);
    expect((await syncRest(alice, { since: await aMomentNow() })).body.deleted).toEqual([]);

    // Unblocked both ways, the posts are back: nothing is listed as gone any more.
    for (const [who, other] of [[alice, bob], [bob, alice]] as const) {
      expect((await app.rest('DELETE', `/api/safety/blocks/${other.id}/`, { token: who.token })).status).toBe(204);
    }
    expect((await syncRest(alice, { since })).body.deleted).toEqual([]);
  });
});

describe('a community deleted with its posts', () => {
  test('when its owner deletes it, then the room hears post:deleted for each post and community:deleted, its sockets leave the room, and a member who synced before finds its posts in deleted', async () => {
    const owner = await aResidentOf(app);
    const alice = await aResidentOf(app);
    const follower = await aResidentOf(app);
    const stranger = await aResidentOf(app);
    const club = await aCommunity(app, owner);
    await joinCommunity(app, alice, club.id);
    const posts = [await aPost(app, owner, { community_id: club.id }), await aPost(app, alice, { community_id: club.id })];
    const otherClub = await aCommunity(app, stranger);
    const elsewhere = await aPost(app, stranger, { community_id: otherClub.id });

    // Alice's phone synced (it has both posts), then went away.
    const phone = await app.socket(alice.token);
    const before = await syncOver(phone, { since: new Date(Date.now() - 60_000).toISOString() });
    expect(before.body.posts.map((p: { id: string }) => p.id)).toEqual(posts.map((p) => p.id));
    phone.close();
    const since = await aMomentNow();

    // Someone watches the community live.
    const live = await app.socket(follower.token);
    expect(await live.timeout(5000).emitWithAck('subscribe', { channel: 'community', id: club.id })).toMatchObject({ status: 200 });
    const room = channelRoom('community', club.id);
    expect(await hearsRoom(app.server.io, live, follower.id, room)).toBe(true);
    const postDeleted = collect(live, 'post:deleted', 2);
    const communityDeleted = nextEvent(live, 'community:deleted');

    expect((await app.rest('DELETE', `/api/communities/communities/${club.id}/`, { token: owner.token })).status).toBe(204);

    expect((await postDeleted).map((p) => p.id).sort()).toEqual(posts.map((p) => p.id).sort());
    expect(await communityDeleted).toEqual({ id: club.id });
    expect(await hearsRoom(app.server.io, live, follower.id, room)).toBe(false);
    expect(await app.server.io.in(room).fetchSockets()).toEqual([]);

    // The member's memberships went with the community; its posts are still listed for her.
    const back = await app.socket(alice.token);
    const overSocket = await syncOver(back, { since });
    expect(goneIn(overSocket.body)).toEqual(gone('post', posts.map((p) => p.id)));
    const overRest = await syncRest(alice, { since });
    expect({ status: overRest.status, body: overRest.body }).toEqual(overSocket);
    // Someone who never belonged to it learns nothing, and the other community is untouched.
    const strangers = (await syncRest(stranger, { since })).body;
    expect(strangers.deleted).toEqual([]);
    expect(await sql('SELECT 1 FROM posts WHERE id = $1', [elsewhere.id])).toHaveLength(1);
  });

  test('when a community with more than a page of posts is deleted, then deleted pages with has_more and the cursor, every post once', async () => {
    const owner = await aResidentOf(app);
    const member = await aResidentOf(app);
    const club = await aCommunity(app, owner);
    await joinCommunity(app, member, club.id);
    const postIds = (
      await sql<{ id: string }>(
        `INSERT INTO posts (user_id, post_type, content, community_id) SELECT $1, 'text', 'p' || g, $2 FROM generate_series(1, 130) g RETURNING id`,
        [owner.id, club.id],
      )
    ).map((r) => r.id);
    const since = await aMomentNow();
    expect((await app.rest('DELETE', `/api/communities/communities/${club.id}/`, { token: owner.token })).status).toBe(204);

    const socket = await app.socket(member.token);
    const seen: string[] = [];
    const sizes: number[] = [];
    let answer = await syncOver(socket, { since });
    for (;;) {
      expect(answer.status).toBe(200);
      sizes.push(answer.body.deleted.length);
      seen.push(...answer.body.deleted.map((d: { id: string }) => d.id));
      if (!answer.body.has_more) break;
      const rest = await syncRest(member, { cursor: answer.body.cursor });
      answer = await syncOver(socket, { cursor: answer.body.cursor });
      expect({ status: rest.status, body: rest.body }).toEqual(answer);
    }
    expect(sizes).toEqual([100, 30]);
    expect([...seen].sort()).toEqual([...postIds].sort());
  });
});

describe('messages', () => {
  test('when a message tombstone is recorded (the one writer every later source uses), then its conversation\'s participants find it in deleted and no one else does', async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const eve = await aResident(app);
    const { id: conversationId } = await aConversation(app, alice, bob);
    const since = await aMomentNow();
    const messageId = crypto.randomUUID();
    await recordDeletions(platform.db, [{ type: 'message', id: messageId, authorId: bob.id, conversationId }]);

    for (const participant of [alice, bob]) {
      expect((await syncRest(participant, { since })).body.deleted).toEqual([{ type: 'message', id: messageId, deleted_at: expect.any(String) }]);
    }
    expect((await syncRest(eve, { since })).body.deleted).toEqual([]);
  });
});

describe('retention', () => {
  test('when since is older than the 30 days of deletions kept, then full_refresh says so; the job drops older tombstones only, once', async () => {
    const home = await aNeighbourhood(app);
    const alice = await aResidentOf(app, home);
    const old = await aPost(app, alice);
    const fresh = await aPost(app, alice);
    for (const post of [old, fresh]) expect((await app.rest('DELETE', `/api/feed/posts/${post.id}/`, { token: alice.token })).status).toBe(204);
    await sql(`UPDATE deletions SET deleted_at = now() - interval '31 days' WHERE item_id = $1`, [old.id]);

    const day = 86_400_000;
    const longAgo = (await syncRest(alice, { since: new Date(Date.now() - 31 * day).toISOString() })).body;
    expect(longAgo.full_refresh).toBe(true);
    const recent = (await syncRest(alice, { since: new Date(Date.now() - 29 * day).toISOString() })).body;
    expect(recent.full_refresh).toBe(false);
    expect(recent.deleted.map((d: { id: string }) => d.id)).toEqual([fresh.id]);

    expect(await runJob(expiredDeletionsJob)).toBe(true);
    expect((await sql<{ item_id: string }>('SELECT item_id FROM deletions WHERE item_id = ANY($1)', [[old.id, fresh.id]])).map((r) => r.item_id)).toEqual([fresh.id]);
    expect(await deleteExpiredDeletions()).toBe(0);
  });
});

describe('cursors', () => {
  test('when a cursor issued before deleted existed comes back, then it is accepted and deleted starts at its oldest position', async () => {
    const home = await aNeighbourhood(app);
    const alice = await aResidentOf(app, home);
    const since = await aMomentNow();
    const post = await aPost(app, alice);
    expect((await app.rest('DELETE', `/api/feed/posts/${post.id}/`, { token: alice.token })).status).toBe(204);
    const at = `${since.replace(/Z$/, '')}000Z`;
    const position = [at, 'ffffffff-ffff-ffff-ffff-ffffffffffff'];
    const before = { v: 1, notifications: position, messages: position, orders: position, posts: position };
    const answer = await syncRest(alice, { cursor: Buffer.from(JSON.stringify(before)).toString('base64url') });
    expect(answer.status).toBe(200);
    expect(answer.body.deleted.map((d: { id: string }) => d.id)).toEqual([post.id]);
  });
});

describe('the OpenAPI document', () => {
  const { successSchema, resolve, expectBodyFits } = openApiFit(() => doc);

  test('when realtime.sync is documented, then its 200 lists deleted items {type, id, deleted_at} and full_refresh, and a real answer fits', async () => {
    const schema = successSchema('/api/realtime/sync/');
    expect(schema.required).toEqual(expect.arrayContaining(['deleted', 'full_refresh']));
    const item = resolve(schema.properties.deleted.items);
    expect(item.properties.type.enum).toEqual(['post', 'comment', 'message']);
    expect(item.required).toEqual(expect.arrayContaining(['type', 'id', 'deleted_at']));
    expect(schema.properties.full_refresh.type).toBe('boolean');

    const alice = await aResidentOf(app);
    const since = await aMomentNow();
    const post = await aPost(app, alice);
    expect((await app.rest('DELETE', `/api/feed/posts/${post.id}/`, { token: alice.token })).status).toBe(204);
    const real = (await syncRest(alice, { since })).body;
    expect(real.deleted).toHaveLength(1);
    expectBodyFits(schema, real, 'realtime.sync');
  });
});
