import path from 'node:path';
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createDatabaseIfMissing } from '../lib/harness.js';
import { httpLoad, socketLoad, type LoadOptions, type LoadResult } from '../lib/load.js';

/**
 * `npm run bench -- kernel`: the cost of the request path itself. For the server database and for the
 * embedded one, bench/kernel/target.ts runs the service and bare baselines in one child process; this
 * process is the load generator (20 concurrent keep-alive clients, or 20 sockets each emitting with ack),
 * so the child's CPU time per request is the server's alone.
 */
export interface KernelRow {
  database: 'server' | 'embedded';
  target: string;
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
  /** Child process CPU time (user + system) per answered request, in microseconds. */
  cpuUsPerRequest: number;
  /** Child process RSS after the run, MiB. */
  rssMiB: number;
  /** rps / the bare baseline's rps for the same kind of call. */
  ofBare: number | null;
}

export const DEFAULT_KERNEL_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/hyperlocal_kernel_bench';
const TARGET = path.join(path.dirname(fileURLToPath(import.meta.url)), 'target.ts');

interface Ready {
  serviceUrl: string;
  bareUrl: string;
}

function startTarget(databaseUrl: string | null): Promise<{ child: ChildProcess; ready: Ready }> {
  const child = fork(TARGET, [], {
    execArgv: ['--import', 'tsx', ...(process.env.KERNEL_BENCH_NODE_OPTIONS?.split(' ').filter(Boolean) ?? [])],
    env: { ...process.env, KERNEL_BENCH_DATABASE_URL: databaseUrl ?? '', DATABASE_URL: '', REDIS_URL: '' },
    // The service logs at info (as in production) to its stdout: discarded, it must not mix with the table.
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`kernel bench target exited with ${code}`)));
    child.once('message', (msg: Ready & { type: string }) => resolve({ child, ready: msg }));
  });
}

function usage(child: ChildProcess): Promise<{ cpu: NodeJS.CpuUsage; rss: number }> {
  return new Promise((resolve) => {
    const onMessage = (msg: { type: string; cpu: NodeJS.CpuUsage; rss: number }) => {
      if (msg.type !== 'usage') return;
      child.off('message', onMessage);
      resolve(msg);
    };
    child.on('message', onMessage);
    child.send({ type: 'usage' });
  });
}

async function stopTarget(child: ChildProcess): Promise<void> {
  child.removeAllListeners('exit');
  const exited = new Promise((r) => child.once('exit', r));
  child.send({ type: 'stop' });
  await exited;
}

async function register(serviceUrl: string): Promise<string> {
  const name = `kernel_${Date.now().toString(36)}`;
  const res = await fetch(`${serviceUrl}/api/auth/register/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `${name}@bench.invalid`, username: name, display_name: name, password: 'kernel-bench-password' }),
  });
  if (res.status !== 201) throw new Error(`register answered ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function measured(child: ChildProcess, run: () => Promise<LoadResult>) {
  const before = await usage(child);
  const result = await run();
  const after = await usage(child);
  // The warm-up requests are in the CPU delta too, so it is divided by every request the window saw;
  // the closed loop keeps the rate steady, so timed requests x (1 + warmup/duration) approximates all of them.
  return { result, cpuUs: after.cpu.user - before.cpu.user + after.cpu.system - before.cpu.system, rss: after.rss };
}

export async function runKernel(opts: LoadOptions & { databases: Array<'server' | 'embedded'> }): Promise<KernelRow[]> {
  const rows: KernelRow[] = [];
  for (const database of opts.databases) {
    let databaseUrl: string | null = null;
    if (database === 'server') {
      databaseUrl = process.env.DATABASE_URL || DEFAULT_KERNEL_DATABASE_URL;
      await createDatabaseIfMissing(databaseUrl);
    }
    const { child, ready } = await startTarget(databaseUrl);
    try {
      const token = await register(ready.serviceUrl);
      const auth = { authorization: `Bearer ${token}` };
      const warmOnly = { ...opts, durationMs: 1, warmupMs: opts.warmupMs };
      const cases: Array<{ name: string; kind: string; bare: boolean; run: (o: LoadOptions) => Promise<LoadResult> }> = [
        { name: 'bare: GET /api/users/profile/ (express + pg)', kind: 'profile', bare: true, run: (o) => httpLoad(`${ready.bareUrl}/api/users/profile/`, auth, o) },
        { name: 'GET /api/users/profile/', kind: 'profile', bare: false, run: (o) => httpLoad(`${ready.serviceUrl}/api/users/profile/`, auth, o) },
        { name: 'GET /health', kind: 'health', bare: false, run: (o) => httpLoad(`${ready.serviceUrl}/health`, {}, o) },
        { name: 'bare: socket users.profile (socket.io + pg)', kind: 'socket', bare: true, run: (o) => socketLoad(ready.bareUrl, token, 'users.profile', o) },
        { name: 'socket users.profile', kind: 'socket', bare: false, run: (o) => socketLoad(ready.serviceUrl, token, 'users.profile', o) },
      ];
      const targets = cases.map((c) => ({ ...c, warm: () => c.run(warmOnly), run: () => c.run(opts) }));
      // One untimed pass over every case first: JIT and pool connections warm for all, not only for the later ones.
      for (const target of targets) await target.warm();
      const bareRps = new Map<string, number>();
      for (const target of targets) {
        const { result, cpuUs, rss } = await measured(child, target.run);
        if (target.bare) bareRps.set(target.kind, result.rps);
        const all = result.requests * (1 + opts.warmupMs / opts.durationMs);
        rows.push({
          database,
          target: target.name,
          requests: result.requests,
          errors: result.errors,
          rps: result.rps,
          p50: result.p50,
          p99: result.p99,
          cpuUsPerRequest: all ? cpuUs / all : NaN,
          rssMiB: rss / 2 ** 20,
          ofBare: !target.bare && bareRps.has(target.kind) ? result.rps / bareRps.get(target.kind)! : null,
        });
      }
    } finally {
      await stopTarget(child);
    }
  }
  return rows;
}

export function formatKernelTable(rows: KernelRow[], opts: LoadOptions): string {
  const header = ['database', 'case', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'RSS MiB', 'of bare', 'errors'];
  const body = rows.map((r) => [
    r.database,
    r.target,
    r.rps.toFixed(0),
    r.p50.toFixed(2),
    r.p99.toFixed(2),
    r.cpuUsPerRequest.toFixed(0),
    r.rssMiB.toFixed(0),
    r.ofBare === null ? '' : `${(r.ofBare * 100).toFixed(0)} %`,
    String(r.errors),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [
    `\n== kernel (${opts.concurrency} concurrent clients, ${opts.durationMs / 1000} s per case after ${opts.warmupMs / 1000} s warm-up, RATE_LIMITS=off, LOG_LEVEL=info)`,
    line(header),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...body.map(line),
  ].join('\n');
}
