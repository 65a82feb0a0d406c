import crypto from 'node:crypto';
import { jest } from '@jest/globals';
import { createClient, type HyperlocalClient, type Status } from '@hyperlocal/client';
import { describeWithRedis, startTestApp, type TestApp } from '../helpers/test-app.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { aNeighbourhood, aPost, aResidentOf } from '../builders/posts.js';
import { aConversation, aMessage } from '../builders/messages.js';
import { eventuallyTrue, recordEvents, type Heard } from '../helpers/client.js';

/**
 * @hyperlocal/client keeps an app's event stream gapless: a client that goes offline (on purpose, by its socket being
 * cut, by a server restart) while posts, messages and notifications are made and a post is deleted gets each of them
 * exactly once when it comes back, in the order they happened, and says `live` only after that.
 */
jest.setTimeout(60_000);

interface World {
  reader: Awaited<ReturnType<typeof aResidentOf>>;
  founder: Awaited<ReturnType<typeof aNeighbourhood>>['founder'];
  conversationId: string;
}

/** A place, a resident who reads on the client, a neighbour who writes, and their conversation. */
async function aWorld(app: TestApp): Promise<World> {
  const place = await aNeighbourhood(app);
  const reader = await aResidentOf(app, place);
  const conversation = await aConversation(app, place.founder, reader);
  return { reader, founder: place.founder, conversationId: conversation.id };
}

async function aLiveClient(baseUrl: string, world: World): Promise<{ client: HyperlocalClient; heard: Heard[] }> {
  const client = createClient({ baseUrl, transports: ['websocket'] });
  const heard = recordEvents(client, ['post:created', 'post:deleted', 'message:created', 'notification:created']);
  await client.login({ username: world.reader.username, password: world.reader.password });
  expect(await eventuallyTrue(() => client.status === 'live', 10_000)).toBe(true);
  return { client, heard };
}

/**
 * The scenario every way of going offline shares: one post seen live, then offline; meanwhile two posts, a message
 * (with its notification) and the deletion of the post seen live; back online, each arrives once, in order, while
 * `catching-up`, before `live`; and a post after that arrives live.
 */
async function missNothing(writer: TestApp, client: HyperlocalClient, heard: Heard[], world: World, offline: { go(): Promise<void>; back(): Promise<void> }) {
  const seenLive = await aPost(writer, world.founder, { content: 'seen live' });
  expect(await eventuallyTrue(() => heard.some((h) => h.id === seenLive.id), 5000)).toBe(true);

  await offline.go();
  expect(await eventuallyTrue(() => client.status !== 'live', 5000)).toBe(true);
  const from = heard.length;
  const first = await aPost(writer, world.founder, { content: `missed one ${crypto.randomUUID()}` });
  const message = await aMessage(writer, world.founder, world.conversationId, 'Are you coming tonight?');
  const second = await aPost(writer, world.founder, { content: `missed two ${crypto.randomUUID()}` });
  expect((await writer.rest('DELETE', `/api/feed/posts/${seenLive.id}/`, { token: world.founder.token })).status).toBe(204);
  expect(heard.length).toBe(from);

  await offline.back();
  expect(await eventuallyTrue(() => client.status === 'live', 20_000)).toBe(true);
  const replayed = heard.slice(from);
  const notification = replayed.find((h) => h.event === 'notification:created');
  expect(notification).toBeDefined();
  const order = replayed.filter((h) => h.event !== 'status').map((h) => `${h.event} ${h.id}`);
  // The message and its notification are written by one request: either may come first; everything else in order.
  expect([order.slice(0, 1), new Set(order.slice(1, 3)), order.slice(3)]).toEqual([
    [`post:created ${first.id}`],
    new Set([`message:created ${message.id}`, `notification:created ${notification!.id}`]),
    [`post:created ${second.id}`, `post:deleted ${seenLive.id}`],
  ]);
  expect(replayed.filter((h) => h.event !== 'status').every((h) => h.status === 'catching-up')).toBe(true);
  expect(replayed[replayed.length - 1]).toMatchObject({ event: 'status', id: 'live' });

  const after = await aPost(writer, world.founder, { content: 'after coming back' });
  expect(await eventuallyTrue(() => heard.some((h) => h.id === after.id), 5000)).toBe(true);
  // Nothing twice, ever: not the post seen live before, not what was replayed.
  const ids = heard.filter((h) => h.event !== 'status').map((h) => `${h.event} ${h.id}`);
  expect(ids.length).toBe(new Set(ids).size);
  expect(heard.find((h) => h.id === after.id)?.status).toBe('live');
}

describe('a client that goes offline and comes back', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ RATE_LIMITS: 'off' });
  });
  afterAll(async () => {
    await app?.stop();
  });

  test('when the app calls disconnect() and later connect(), then it gets what it missed exactly once, in order, before live', async () => {
    const world = await aWorld(app);
    const { client, heard } = await aLiveClient(app.url, world);
    try {
      await missNothing(app, client, heard, world, {
        go: async () => client.disconnect(),
        back: async () => client.connect(),
      });
      expect(client.status).toBe('live');
    } finally {
      client.close();
    }
  });

  test('when its socket is cut (the network drops, reconnections fail), then it comes back by itself and misses nothing', async () => {
    const proxy: TcpProxy = await startTcpProxy({ host: '127.0.0.1', port: app.server.port });
    const world = await aWorld(app);
    const { client, heard } = await aLiveClient(`http://127.0.0.1:${proxy.port}`, world);
    try {
      await missNothing(app, client, heard, world, {
        go: () => proxy.cut(),
        back: () => proxy.restore(),
      });
    } finally {
      client.close();
      await proxy.close();
    }
  });
});

describeWithRedis('a client whose server restarts', () => {
  // Two nodes on one database and Redis: the client's node B goes down and comes back on its port, while node A
  // takes the writes (B's sockets would hear them through Redis, had it any).
  const env = { RATE_LIMITS: 'off', JWT_SECRET: `client-restart-${crypto.randomUUID()}` };
  let a: TestApp;
  let b: TestApp | undefined;
  const startB = async (extra: Record<string, string> = {}) =>
    jest.isolateModulesAsync(async () => {
      const isolated = await import('../helpers/test-app.js');
      b = await isolated.startTestApp({ ...env, ...extra });
    });
  beforeAll(async () => {
    a = await startTestApp(env);
    await startB();
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  test('when its node stops and starts again on the same address, then the client reconnects and misses nothing', async () => {
    const world = await aWorld(a);
    const { client, heard } = await aLiveClient(b!.url, world);
    const port = b!.server.port;
    const statuses: Status[] = [];
    client.on('status', (s) => statuses.push(s));
    try {
      await missNothing(a, client, heard, world, {
        go: async () => {
          await b!.stop();
          b = undefined;
        },
        back: () => startB({ PORT: String(port) }),
      });
      expect(statuses).toEqual(expect.arrayContaining(['connecting', 'catching-up', 'live']));
      expect(client.signedIn).toBe(true);
    } finally {
      client.close();
    }
  });
});
