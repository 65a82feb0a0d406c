import type { Redis } from 'ioredis';
import { createAdapter, createShardedAdapter } from '@socket.io/redis-adapter';
import { platform } from '../platform/index.js';
import { guardPublishes } from './redis-publisher.js';

/**
 * The Socket.IO adapter that carries events between nodes (REDIS_ADAPTER):
 * - `classic`: every node PUBLISHes every broadcast on one channel, and every node receives and decodes all
 *   of them, whether or not it has a socket in the target room.
 * - `sharded`: Redis 7 sharded pub/sub (SPUBLISH/SSUBSCRIBE), one channel per room (`dynamic` mode): a node
 *   subscribes to a room's channel while it has a socket in that room, so it receives only the broadcasts
 *   for rooms it serves. Costs a SSUBSCRIBE/SUNSUBSCRIBE per room joined or emptied on the node.
 * Both keep node-to-node messages (serverSideEmit, fetchSockets) on a shared channel.
 */
export type AdapterKind = 'classic' | 'sharded';

export function clusterAdapter(redis: Redis, kind: AdapterKind, key?: string) {
  const pub = guardPublishes(redis.duplicate(), (err) => platform.log.warn({ err }, 'a realtime event could not reach the other nodes'));
  const sub = redis.duplicate();
  // Their failures are the platform client's too (logged there); each reconnects and resubscribes on its own.
  pub.on('error', () => undefined);
  sub.on('error', () => undefined);
  const factory =
    kind === 'sharded'
      ? createShardedAdapter(pub, sub, { channelPrefix: key ?? 'socket.io', subscriptionMode: 'dynamic' })
      : createAdapter(pub, sub, key ? { key } : {});
  return {
    factory,
    /** The two connections (the benchmark counts what the subscriber receives). */
    pub,
    sub,
    close() {
      // quit, not disconnect: the adapter's (un)subscribe commands may still be queued (a server stopped
      // right after it started), and disconnect rejects them with no one listening, an unhandled
      // rejection that ends the process. quit lets them finish first.
      void quitWhenConnected(pub);
      void quitWhenConnected(sub);
    },
  };
}

/**
 * Quit once the connection is up. A server stopped right after it started (tests, a failed start) would
 * otherwise quit a client that is still connecting, and ioredis rejects the adapter's queued (p)subscribe with
 * "Connection is closed", a rejection the adapter leaves unhandled.
 */
async function quitWhenConnected(client: Redis, waitMs = 2000): Promise<void> {
  if (client.status === 'connecting' || client.status === 'connect' || client.status === 'wait') {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, waitMs);
      client.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  await client.quit().catch(() => undefined);
}
