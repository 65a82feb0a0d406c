import type { Socket } from 'socket.io-client';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';
import { aCommunity } from '../builders/communities.js';
import { sql } from '../helpers/sql.js';

/**
 * A socket holds at most SOCKET_MAX_SUBSCRIPTIONS (default 100) subscriptions (DESIGN.md section 5): one more is
 * acked 429 {detail}; unsubscribing frees a slot; a room already held does not count twice.
 */
let app: TestApp;
let postIds: string[];
beforeAll(async () => {
  // Operation limits off: this file sends more than SOCKET_EVENTS_PER_SECOND events a second on one socket.
  app = await startTestApp({ RATE_LIMITS: 'off' });
  const author = await aUser(app);
  const club = await aCommunity(app, author);
  // 102 posts to watch, written directly (the cap does not depend on what a post holds).
  postIds = (
    await sql<{ id: string }>(
      `INSERT INTO posts (user_id, post_type, content, community_id) SELECT $1, 'text', 'watch me', $2 FROM generate_series(1, 102) RETURNING id`,
      [author.id, club.id],
    )
  ).map((r) => r.id);
});
afterAll(async () => {
  await app.stop();
});

const subscribe = (socket: Socket, id: string) => socket.timeout(5000).emitWithAck('subscribe', { channel: 'post', id });
const unsubscribe = (socket: Socket, id: string) => socket.timeout(5000).emitWithAck('unsubscribe', { channel: 'post', id });
const TOO_MANY = { status: 429, body: { detail: 'Too many subscriptions on this connection (at most 100): unsubscribe from one first.' } };

async function aSocketWatching(ids: string[]): Promise<Socket> {
  const socket = await app.socket((await aUser(app)).token);
  for (const id of ids) expect(await subscribe(socket, id)).toEqual({ status: 200, body: { channel: 'post', id } });
  return socket;
}

describe('subscriptions per socket', () => {
  test('when a socket holds 100 subscriptions, then the 101st is acked 429 with a detail and not joined', async () => {
    const socket = await aSocketWatching(postIds.slice(0, 100));

    expect(await subscribe(socket, postIds[100])).toEqual(TOO_MANY);
    // Not held: unsubscribing from it is 404.
    expect(await unsubscribe(socket, postIds[100])).toMatchObject({ status: 404 });
  });

  test('when a socket at the cap unsubscribes from one room, then a new subscription fits again, and only one', async () => {
    const socket = await aSocketWatching(postIds.slice(0, 100));
    expect(await unsubscribe(socket, postIds[0])).toEqual({ status: 200, body: { channel: 'post', id: postIds[0] } });

    expect(await subscribe(socket, postIds[100])).toMatchObject({ status: 200 });
    expect(await subscribe(socket, postIds[101])).toEqual(TOO_MANY);
  });

  test('when a socket subscribes again to a room it holds, then it is 200 and takes no second slot', async () => {
    const socket = await aSocketWatching(postIds.slice(0, 99));
    expect(await subscribe(socket, postIds[0])).toMatchObject({ status: 200 });
    expect(await subscribe(socket, postIds[0])).toMatchObject({ status: 200 });

    // 99 rooms held: one more fits, the next does not.
    expect(await subscribe(socket, postIds[99])).toMatchObject({ status: 200 });
    expect(await subscribe(socket, postIds[99])).toMatchObject({ status: 200 });
    expect(await subscribe(socket, postIds[100])).toEqual(TOO_MANY);
  });

  test('when 102 subscribes are sent at once, then exactly 100 are joined', async () => {
    const socket = await app.socket((await aUser(app)).token);

    // 102 room checks at once on a pool of 5: a bound for a loaded machine, not a timing assertion.
    const answers = await Promise.all(postIds.map((id) => socket.timeout(30_000).emitWithAck('subscribe', { channel: 'post', id })));

    expect(answers.filter((a) => a.status === 200)).toHaveLength(100);
    expect(answers.filter((a) => a.status === 429)).toEqual([TOO_MANY, TOO_MANY]);
  });
});
