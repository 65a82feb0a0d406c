import net from 'node:net';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The Redis adapter fires publishes and forgets them: during a Redis outage each one rejects with no one
 * listening, and Node ends the process on an unhandled rejection. Run in a child process, as the service
 * runs (jest intercepts unhandled rejections): a guarded client survives and logs the loss; an unguarded one
 * (the control) dies.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function publishWhileRedisIsDown(port: number, guarded: boolean) {
  const script = `
    import { Redis } from 'ioredis';
    import { guardPublishes } from './src/realtime/redis-publisher.ts';
    // No retries and no offline queue: the publish fails at once, as it does after the retries run out.
    const client = new Redis({ port: ${port}, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
    client.on('error', () => undefined);
    if (${guarded}) guardPublishes(client, (err) => console.log('lost:', err.message));
    void client.publish('socket.io#/#', 'payload');
    setTimeout(() => { client.disconnect(); console.log('alive'); }, 200);
  `;
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 30000 });
}

test('when Redis is down, then a fire-and-forget publish of a guarded client is logged and the process lives', async () => {
  const run = publishWhileRedisIsDown(await deadPort(), true);
  expect(run.stdout).toContain('lost:');
  expect(run.stdout).toContain('alive');
  expect(run.status).toBe(0);
});

test('when Redis is down, then an unguarded fire-and-forget publish ends the process (the control)', async () => {
  const run = publishWhileRedisIsDown(await deadPort(), false);
  expect(run.stdout).not.toContain('alive');
  expect(run.status).not.toBe(0);
});
