/**
 * Socket event round trip: `users.profile` over an authenticated socket of the running service, next to
 * a bare Socket.IO server in the same process (an echo handler, and a handler that calls the operation's own
 * service function `getProfile` with a ready-made caller), so a noisy machine shifts all of them alike.
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/hyperlocal_bench npx tsx bench/socket-roundtrip.ts [--n=2000] [--concurrency=20] [--seconds=5]
 *
 * Latency: one emitter, one event at a time (what one client waits). Throughput: `concurrency` sockets, each
 * emitting its next event when the previous one is answered, for `seconds`. The REDIS_URL of the environment
 * is not used: one node, in-memory adapter.
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { io as ioClient, type Socket } from 'socket.io-client';
import { loadConfig } from '../src/platform/config.js';
import type { AuthedContext } from '../src/core/context.js';
import { platform } from '../src/platform/index.js';
import { getProfile } from '../src/modules/users/users.service.js';
import { startServer } from '../src/server.js';
import { createDatabaseIfMissing, DEFAULT_DATABASE_URL } from './lib/harness.js';
import { percentile } from './lib/stats.js';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const N = arg('n', 2000);
const CONCURRENCY = arg('concurrency', 20);
const SECONDS = arg('seconds', 5);

const connect = (url: string, token?: string) =>
  new Promise<Socket>((resolve, reject) => {
    const s = ioClient(url, { path: '/socket.io/', transports: ['websocket'], auth: token ? { token } : {}, reconnection: false, forceNew: true });
    s.once('connect', () => resolve(s));
    s.once('connect_error', reject);
  });

/** Statements sent through the service's pool (counted in this script only; the service is not changed). */
let statements = 0;
function countStatements(): void {
  const pool = platform.database.pool as unknown as { query: (...args: unknown[]) => unknown };
  const query = pool.query.bind(pool);
  pool.query = (...args: unknown[]) => {
    statements++;
    return query(...args);
  };
}

interface Row {
  name: string;
  statementsPerEvent: number;
  p50: number;
  p99: number;
  perSecond: number;
  cpuMsPerEvent: number;
}

async function measure(name: string, sockets: Socket[], event: string, input: unknown, check: (ack: any) => void): Promise<Row> {
  const one = sockets[0];
  for (let i = 0; i < 200; i++) check(await one.emitWithAck(event, input)); // warm-up
  const samples: number[] = [];
  const statementsBefore = statements;
  for (let i = 0; i < N; i++) {
    const t0 = process.hrtime.bigint();
    check(await one.emitWithAck(event, input));
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  samples.sort((a, b) => a - b);
  const statementsPerEvent = (statements - statementsBefore) / N;
  let count = 0;
  const cpu0 = process.cpuUsage();
  const until = Date.now() + SECONDS * 1000;
  await Promise.all(
    sockets.map(async (s) => {
      while (Date.now() < until) {
        check(await s.emitWithAck(event, input));
        count++;
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  return { name, statementsPerEvent, p50: percentile(samples, 50), p99: percentile(samples, 99), perSecond: count / SECONDS, cpuMsPerEvent: (cpu.user + cpu.system) / 1000 / count };
}

async function main() {
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_DATABASE_URL;
  await createDatabaseIfMissing(databaseUrl);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'hyperlocal-bench-socket-'));
  const config = loadConfig({}, { NODE_ENV: 'production', PORT: 0, HOST: '127.0.0.1', DATABASE_URL: databaseUrl, DATA_DIR: dataDir, JWT_SECRET: crypto.randomUUID(), LOG_LEVEL: 'silent' });
  const service = await startServer(config, { jobs: false });
  countStatements();

  // Bare Socket.IO servers in the same process: the floor a socket event cannot go below.
  const bareHttp = http.createServer();
  const bare = new Server(bareHttp, { path: '/socket.io/' });
  bare.on('connection', (socket) => {
    socket.on('echo', (input: unknown, ack: (r: unknown) => void) => ack({ status: 200, body: input }));
    // The operation's own handler, called with a ready-made caller: the work minus the realtime kernel.
    socket.on('profile_handler', async (input: { id: string }, ack: (r: unknown) => void) => {
      const ctx: AuthedContext = { transport: 'socket', requestId: crypto.randomUUID(), user: { id: input.id, username: '', email: '', isStaff: false, isAdmin: false, isVerified: false }, authError: false, ip: '127.0.0.1', userAgent: '', baseUrl: 'http://127.0.0.1', cookies: {} };
      ack({ status: 200, body: await getProfile(ctx) });
    });
  });
  await new Promise<void>((resolve) => bareHttp.listen(0, '127.0.0.1', resolve));
  const bareUrl = `http://127.0.0.1:${(bareHttp.address() as AddressInfo).port}`;

  const username = `bench${crypto.randomUUID().replace(/-/g, '').slice(0, 10)}`;
  const res = await fetch(`${service.url}/api/auth/register/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `${username}@example.test`, username, display_name: username, password: 'correct-horse-battery' }),
  });
  if (res.status !== 201) throw new Error(`register answered ${res.status}: ${await res.text()}`);
  const { access_token: token, user } = (await res.json()) as { access_token: string; user: { id: string } };

  const serviceSockets = await Promise.all(Array.from({ length: CONCURRENCY }, () => connect(service.url, token)));
  const bareSockets = await Promise.all(Array.from({ length: CONCURRENCY }, () => connect(bareUrl)));
  const ok = (ack: { status: number }) => {
    if (ack.status !== 200) throw new Error(`answered ${ack.status}`);
  };

  const rows = [
    await measure('bare Socket.IO echo', bareSockets, 'echo', { hello: 'world' }, ok),
    await measure('bare Socket.IO + getProfile()', bareSockets, 'profile_handler', { id: user.id }, ok),
    await measure('service users.profile', serviceSockets, 'users.profile', {}, ok),
  ];
  console.log(`n=${N} sequential, ${CONCURRENCY} sockets x ${SECONDS}s for throughput, ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(2)}`);
  console.table(rows.map((r) => ({ case: r.name, 'p50 ms': r.p50.toFixed(3), 'p99 ms': r.p99.toFixed(3), 'events/s': Math.round(r.perSecond), 'CPU ms/event': r.cpuMsPerEvent.toFixed(3), 'SQL/event': r.statementsPerEvent.toFixed(2) })));
  const [echo, sqlBare, profile] = rows;
  console.log(`users.profile / echo: p50 ${(profile.p50 / echo.p50).toFixed(2)}x, throughput ${(echo.perSecond / profile.perSecond).toFixed(2)}x fewer`);
  console.log(`users.profile / bare handler calling getProfile(): p50 ${(profile.p50 / sqlBare.p50).toFixed(2)}x, throughput ${(sqlBare.perSecond / profile.perSecond).toFixed(2)}x fewer`);

  for (const s of [...serviceSockets, ...bareSockets]) s.close();
  await bare.close();
  await service.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
