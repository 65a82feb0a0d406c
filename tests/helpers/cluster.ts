import crypto from 'node:crypto';
import { jest } from '@jest/globals';
import type { Socket } from 'socket.io-client';
import { startTestApp, type TestApp } from './test-app.js';
import type { RealtimeOptions } from '../../src/realtime/server.js';

/**
 * Two nodes of the service against the same PostgreSQL and Redis, each on its own port. Node B is loaded in
 * an isolated module registry: its own platform, domain-event bus and Socket.IO server, exactly as if it ran
 * in another process, so an event raised on node A can reach B's sockets only through Redis. Code the test
 * imports itself (builders, `domainEvents`, `platform`) is node A's.
 */
export interface TestCluster {
  a: TestApp;
  b: TestApp;
  stop(): Promise<void>;
}

/**
 * The time a hook that starts a cluster may take: two nodes, each with its migrations check, its Redis adapters and
 * its listeners, take seconds on an idle machine and more than jest's default 30 s on a loaded CI machine.
 */
export const CLUSTER_START_TIMEOUT_MS = 90_000;

/**
 * `shared` goes to both nodes (plus one signing key, as in a deployment); `onlyA` to node A (e.g. ADMIN_EMAIL);
 * `realtimeA` are node A's realtime options (e.g. a `sendToOtherNodes` that loses messages).
 */
export async function startCluster(
  shared: Record<string, string> = {},
  onlyA: Record<string, string> = {},
  options: { realtimeA?: RealtimeOptions } = {},
): Promise<TestCluster> {
  const env = { JWT_SECRET: `cluster-secret-${crypto.randomUUID()}`, ...shared };
  const a = await startTestApp({ ...env, ...onlyA }, { realtime: options.realtimeA });
  let b!: TestApp;
  try {
    await jest.isolateModulesAsync(async () => {
      const isolated = await import('./test-app.js');
      b = await isolated.startTestApp(env);
    });
  } catch (err) {
    await a.stop();
    throw err;
  }
  return {
    a,
    b,
    async stop() {
      await b.stop();
      await a.stop();
    },
  };
}

/**
 * Whether `socket` hears an emit to `rooms` made on node `from` (a probe of room membership across nodes:
 * the emit travels through the adapter exactly as a domain event's push does).
 */
export async function hears(from: TestApp, socket: Socket, rooms: string | string[], ms = 300): Promise<boolean> {
  const probe = crypto.randomUUID();
  return new Promise<boolean>((resolve) => {
    const onProbe = (p: string) => {
      if (p !== probe) return;
      clearTimeout(timer);
      socket.off('test:probe', onProbe);
      resolve(true);
    };
    const timer = setTimeout(() => {
      socket.off('test:probe', onProbe);
      resolve(false);
    }, ms);
    socket.on('test:probe', onProbe);
    from.server.io.to(rooms).emit('test:probe', probe);
  });
}
