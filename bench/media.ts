/**
 * `npm run bench -- media [--uploads=60] [--concurrency=20]`: a flood of 12-megapixel JPEG uploads
 * (PATCH /api/users/profile/ with a profile_picture, one user per concurrent client: a user may have 2 uploads in
 * flight) against the same image work done by sharp alone in a bare script (bench/media-bare.ts), in the same run:
 * the bare script before and after the service, their mean the baseline.
 * Reported: uploads per second and the ratio to bare sharp; GET /health latency (one probe at a time, every 20 ms)
 * during the flood; the service process's peak RSS (VmHWM) and its RSS before the flood; any answer but 200; CPU
 * seconds per upload (the bare script's process; the service's process with its embedded database's, during the
 * flood) and the service's full garbage collections during the flood.
 * The service runs with the Node flags of `npm start` (package.json), so it is measured as it is run.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { twelveMegapixelJpeg } from './media-fixture.js';
import { percentile } from './lib/stats.js';
import { serviceEnv, startScript } from './media-start.js';

const here = path.dirname(fileURLToPath(import.meta.url));

export interface MediaOptions {
  uploads: number;
  concurrency: number;
}

export interface MediaRow {
  what: string;
  uploadsPerSecond: number;
  ratioToBare?: number;
  healthP50Ms?: number;
  healthP99Ms?: number;
  healthMaxMs?: number;
  rssBeforeMb?: number;
  rssPeakMb: number;
  /** CPU time (user and system) per upload done: what the work costs, which a busy machine shifts less than a rate. */
  cpuSecondsPerUpload: number;
  /** Full (mark-compact) garbage collections of the service during the flood: each pauses its event loop. */
  fullGcs?: number;
  statuses?: Record<string, number>;
}

export const procStatus = async (pid: number, field: 'VmHWM' | 'VmRSS'): Promise<number> => {
  const text = await fs.readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(text)?.[1] ?? 0);
  return kb / 1024;
};

/** Peak RSS of a child while it runs: the kernel's own high-water mark, read until it exits. */
function watchPeak(child: ChildProcess): { peak: () => number } {
  let peak = 0;
  const timer = setInterval(() => void procStatus(child.pid!, 'VmHWM').then((mb) => (peak = Math.max(peak, mb))), 100);
  child.once('exit', () => clearInterval(timer));
  return { peak: () => peak };
}

async function runBare(file: string, opts: MediaOptions): Promise<MediaRow> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'media-bare.ts'), file, String(opts.uploads), String(opts.concurrency)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const watch = watchPeak(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  await new Promise((resolve) => child.once('exit', resolve));
  const { uploadsPerSecond, cpuSecondsPerUpload } = JSON.parse(out.trim().split('\n').pop()!);
  return { what: 'sharp alone (bare script)', uploadsPerSecond, cpuSecondsPerUpload, rssPeakMb: watch.peak() };
}

/**
 * Extra Node flags for the service process, to profile it under the load it is measured with (its stdout is then
 * shown): BENCH_SERVICE_FLAGS='--cpu-prof --cpu-prof-dir=/tmp/prof' or '--trace-gc'.
 */
export const serviceFlags = (process.env.BENCH_SERVICE_FLAGS ?? '').split(' ').filter(Boolean);

/** CPU seconds (user and system) used so far by a process and its children (the service and its database process). */
async function processTreeCpuSeconds(pid: number): Promise<number> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  if (!stat) return 0;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ is 100 on Linux)
  const children = await fs.readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  const theirs = await Promise.all(children.split(' ').filter(Boolean).map((c) => processTreeCpuSeconds(Number(c))));
  return own + theirs.reduce((a, b) => a + b, 0);
}

/** The service's full garbage collections so far (media-server.ts counts them). */
function fullGcsOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (m: unknown) => {
      if (typeof (m as { fullGcs?: unknown }).fullGcs !== 'number') return;
      child.off('message', onMessage);
      resolve((m as { fullGcs: number }).fullGcs);
    };
    child.on('message', onMessage);
    child.send('full-gcs');
  });
}

async function runService(image: Buffer, opts: MediaOptions): Promise<MediaRow> {
  const start = await startScript();
  const child = fork(path.join(here, 'media-server.ts'), [], {
    execArgv: [...start.nodeFlags, '--import', 'tsx', ...serviceFlags],
    env: serviceEnv(start.env),
    stdio: ['ignore', serviceFlags.length ? 'inherit' : 'ignore', 'inherit', 'ipc'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.once('message', (m) => resolve((m as { url: string }).url));
      child.once('exit', (code) => reject(new Error(`media server exited ${code}`)));
    });
    const tokens = await Promise.all(Array.from({ length: opts.concurrency }, (_, i) => register(url, i)));
    // The multipart body is encoded once: the load generator shares this machine's cores with the service, and
    // re-encoding 1.6 MB per request (FormData) would take them from the service being measured.
    const { body, contentType } = await multipartBody(image);
    const upload = (token: string) =>
      send(`${url}/api/users/profile/`, { method: 'PATCH', headers: { Authorization: `Bearer ${token}`, 'Content-Type': contentType, 'Content-Length': String(body.length) } }, body);
    await upload(tokens[0]!); // warm-up: sharp's first load, the first statement plans
    const rssBeforeMb = await procStatus(child.pid!, 'VmRSS');
    const watch = watchPeak(child);

    const health: number[] = [];
    let flooding = true;
    const prober = (async () => {
      while (flooding) {
        const t = performance.now();
        await send(`${url}/health`, { method: 'GET' });
        health.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const statuses: Record<string, number> = {};
    let started = 0;
    const fullGcsBefore = await fullGcsOf(child);
    const cpuBefore = await processTreeCpuSeconds(child.pid!);
    const t0 = performance.now();
    await Promise.all(
      tokens.map(async (token) => {
        while (started < opts.uploads) {
          started++;
          const status = await upload(token);
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const cpuSeconds = (await processTreeCpuSeconds(child.pid!)) - cpuBefore;
    const fullGcs = (await fullGcsOf(child)) - fullGcsBefore;
    flooding = false;
    await prober;
    await new Promise((r) => setTimeout(r, 200));
    const sorted = [...health].sort((a, b) => a - b);
    return {
      what: 'service (PATCH /api/users/profile/)',
      uploadsPerSecond: (statuses['200'] ?? 0) / seconds,
      healthP50Ms: percentile(sorted, 50),
      healthP99Ms: percentile(sorted, 99),
      healthMaxMs: sorted[sorted.length - 1],
      rssBeforeMb,
      rssPeakMb: Math.max(watch.peak(), await procStatus(child.pid!, 'VmHWM')),
      cpuSecondsPerUpload: cpuSeconds / started,
      fullGcs,
      statuses,
    };
  } finally {
    child.disconnect();
    await new Promise((r) => child.once('exit', r));
  }
}

/**
 * One request over node:http with keep-alive, answering its status once the body is read. The load generator shares
 * the machine's cores with the service, which the bare baseline does not: fetch (undici, web streams) took about
 * 0.15 of a core at this rate, node:http about half of that.
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
export function send(url: string, options: http.RequestOptions, body?: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { ...options, agent }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export async function multipartBody(image: Buffer): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  form.append('profile_picture', new Blob([image], { type: 'image/jpeg' }), 'IMG_0001.JPG');
  const encoded = new Response(form);
  return { body: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type')! };
}

export async function register(url: string, i: number): Promise<string> {
  const username = `media${i}x${Date.now().toString(36)}`;
  const res = await fetch(`${url}/api/auth/register/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: `${username}@bench.test`, username, display_name: 'Bench', password: 'bench-password-123' }),
  });
  const body = (await res.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`register answered ${res.status}`);
  return body.access_token;
}

export async function runMedia(opts: MediaOptions): Promise<{ rows: MediaRow[]; imageBytes: number }> {
  const image = await twelveMegapixelJpeg();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-media-fixture-'));
  const file = path.join(dir, 'photo.jpg');
  await fs.writeFile(file, image);
  try {
    const bareBefore = await runBare(file, opts);
    const service = await runService(image, opts);
    const bareAfter = await runBare(file, opts);
    const bare = (bareBefore.uploadsPerSecond + bareAfter.uploadsPerSecond) / 2;
    service.ratioToBare = service.uploadsPerSecond / bare;
    return { rows: [bareBefore, service, bareAfter], imageBytes: image.length };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

export function formatMedia(result: { rows: MediaRow[]; imageBytes: number }, opts: MediaOptions): string {
  const f = (n: number | undefined, d = 1) => (n === undefined ? '' : n.toFixed(d));
  const lines = [
    `media: ${opts.uploads} uploads of a 12-megapixel JPEG (${(result.imageBytes / 1048576).toFixed(1)} MB), ${opts.concurrency} at a time, ${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`,
    '| run | uploads/s | of bare sharp | /health p50 | /health p99 | /health max | RSS before | RSS peak | CPU s/upload | full GCs | answers |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...result.rows.map(
      (r) =>
        `| ${r.what} | ${f(r.uploadsPerSecond, 2)} | ${r.ratioToBare === undefined ? '' : f(r.ratioToBare, 2)} | ${f(r.healthP50Ms)} ms | ${f(r.healthP99Ms)} ms | ${f(r.healthMaxMs)} ms | ${f(r.rssBeforeMb, 0)} MB | ${f(r.rssPeakMb, 0)} MB | ${f(r.cpuSecondsPerUpload, 3)} | ${r.fullGcs ?? ''} | ${r.statuses ? JSON.stringify(r.statuses) : ''} |`.replace(/\|  ms \|  ms \|  ms \|/, '| | | |').replace(/\|  MB \|/, '| |'),
    ),
  ];
  return lines.join('\n');
}
