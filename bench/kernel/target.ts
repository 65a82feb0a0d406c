import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import http from 'node:http';
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import jwt from 'jsonwebtoken';
import { Server as SocketServer } from 'socket.io';
import { loadConfig } from '../../src/platform/config.js';
import { platform } from '../../src/platform/index.js';
import { startServer } from '../../src/server.js';
import { ACCESS_USER_SQL } from '../../src/modules/accounts/tokens.js';
import { profileQuery } from '../../src/modules/users/users.queries.js';

/**
 * The measured process of `npm run bench -- kernel` (spawned by bench/kernel/run.ts with an IPC channel and
 * its stdout discarded, so the service logs at `info` as in production without flooding the bench's output).
 * It serves, side by side in this one process:
 * - the service, started as tests and `npm start` start it (`startServer(loadConfig(...))`), RATE_LIMITS=off;
 * - a bare Express + pg route: Bearer token, jwt.verify, the same SQL the service runs for the profile read;
 * - a bare Socket.IO server: token checked at the handshake, a `users.profile` handler running the same SQL.
 * The bare ones share the service's pool (same size, same database), so only the code in between differs.
 * Messages: the parent asks `{type: 'usage'}` and gets this process's CPU time and RSS.
 */
const BENCH_SECRET = 'kernel-bench-secret-' + crypto.randomUUID();

async function main() {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'hyperlocal-kernel-bench-'));
  const databaseUrl = process.env.KERNEL_BENCH_DATABASE_URL || undefined;
  const config = loadConfig(
    {},
    {
      PORT: 0,
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      NODE_ENV: 'production',
      LOG_LEVEL: process.env.KERNEL_BENCH_LOG_LEVEL ?? 'info',
      RATE_LIMITS: 'off',
      JWT_SECRET: BENCH_SECRET,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    },
  );
  const service = await startServer(config, { jobs: false });
  const pool = platform.database.pool;
  // The bare baselines verify as a careful hand-written service would: one KeyObject, made once.
  const key = crypto.createSecretKey(Buffer.from(BENCH_SECRET, 'utf8'));
  const verify = (token: string | undefined) => {
    if (!token) return null;
    try {
      const claims = jwt.verify(token, key, { algorithms: ['HS256'] }) as jwt.JwtPayload;
      return typeof claims.sub === 'string' ? claims : null;
    } catch {
      return null;
    }
  };
  // The service's profile SQL, taken once: the bare route must not pay for building it.
  const NOBODY = '00000000-0000-4000-8000-000000000000';
  const profileSql = profileQuery(NOBODY);
  const profile = async (claims: jwt.JwtPayload) => {
    const auth = await pool.query({ text: ACCESS_USER_SQL, values: [claims.sub, claims.sid ?? null] });
    if (!auth.rows[0]?.is_active) return null;
    const { rows } = await pool.query({ text: profileSql.text, values: profileSql.values.map((v) => (v === NOBODY ? claims.sub : v)) });
    return rows[0] ?? null;
  };

  const bare = express();
  bare.get('/api/users/profile/', async (req, res) => {
    const claims = verify(/^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1]);
    if (!claims) return void res.status(401).json({ detail: 'Given token not valid for any token type' });
    const row = await profile(claims);
    if (!row) return void res.status(401).json({ detail: 'Given token not valid for any token type' });
    res.json(row);
  });
  const bareServer = http.createServer(bare);
  const bareIo = new SocketServer(bareServer, { path: '/socket.io/' });
  bareIo.use((socket, next) => {
    const claims = verify((socket.handshake.auth as { token?: string }).token);
    if (!claims) return next(new Error('unauthorized'));
    socket.data.claims = claims;
    next();
  });
  bareIo.on('connection', (socket) => {
    socket.on('users.profile', async (_input: unknown, ack: (r: unknown) => void) => {
      const row = await profile(socket.data.claims);
      ack(row ? { status: 200, body: row } : { status: 401, body: { detail: 'Given token not valid for any token type' } });
    });
  });
  await new Promise<void>((resolve) => bareServer.listen(0, '127.0.0.1', resolve));

  process.on('message', (msg: { type: string }) => {
    if (msg.type === 'usage') process.send!({ type: 'usage', cpu: process.cpuUsage(), rss: process.memoryUsage().rss });
    if (msg.type === 'stop') {
      bareIo.close();
      void service.stop().then(() => fs.rm(dataDir, { recursive: true, force: true })).finally(() => process.exit(0));
    }
  });
  process.send!({
    type: 'ready',
    serviceUrl: service.url,
    bareUrl: `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}`,
    embedded: !databaseUrl,
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
