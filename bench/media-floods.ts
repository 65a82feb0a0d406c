/**
 * Part of `npm run bench -- media` (issue 31): 20 uploads at once, each to a fresh service process started as
 * `npm start` starts it (its environment and Node flags, bench/media-start.ts), of
 * - hostile files: the tiny images whose headers lie about their size (tests/helpers/hostile-images.ts: a GIF whose
 *   8 x 8 screen holds a 10,000 x 10,000 frame, a progressive JPEG claiming 10,000 x 10,000, an interlaced palette
 *   PNG of 1,048,592 x 16), taken in turn;
 * - ordinary phone photos: the benchmark's 12-megapixel JPEG (media-fixture.ts; tests/helpers/phone-photo.ts's photo
 *   is 60 x 40 pixels, which would measure nothing).
 * Reported: the answers, the service's resident memory before, its peak during the flood (VmHWM, reset before the
 * flood through /proc/PID/clear_refs) and its resident memory a minute after the last answer (`--settle=SECONDS`), with
 * how much of it is V8's heap and Buffers then.
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostileImages } from '../tests/helpers/hostile-images.js';
import { phonePhoto } from '../tests/helpers/phone-photo.js';
import { twelveMegapixelJpeg } from './media-fixture.js';
import { multipartBody, procStatus, register, send, serviceFlags } from './media.js';
import { serviceEnv, startScript } from './media-start.js';

const here = path.dirname(fileURLToPath(import.meta.url));

export interface FloodOptions {
  files: number;
  settleSeconds: number;
}

export interface FloodRow {
  what: string;
  files: number;
  statuses: Record<string, number>;
  seconds: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  rssAfterMb: number;
  /** After settling: V8's heap in use and the memory of Buffers and ArrayBuffers (freed only when V8 collects them). */
  heapUsedAfterMb: number;
  arrayBuffersAfterMb: number;
  settleSeconds: number;
}

function memoryOf(child: ChildProcess): Promise<NodeJS.MemoryUsage> {
  return new Promise((resolve) => {
    const onMessage = (m: unknown) => {
      const memory = (m as { memory?: NodeJS.MemoryUsage }).memory;
      if (!memory) return;
      child.off('message', onMessage);
      resolve(memory);
    };
    child.on('message', onMessage);
    child.send('memory');
  });
}

async function startService(): Promise<{ child: ChildProcess; url: string }> {
  const start = await startScript();
  const child = fork(path.join(here, 'media-server.ts'), [], {
    execArgv: [...start.nodeFlags, '--import', 'tsx', ...serviceFlags],
    env: serviceEnv(start.env),
    stdio: ['ignore', serviceFlags.length ? 'inherit' : 'ignore', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { url: string }).url));
    child.once('exit', (code) => reject(new Error(`media server exited ${code}`)));
  });
  return { child, url };
}

async function flood(what: string, files: Buffer[], opts: FloodOptions): Promise<FloodRow> {
  const { child, url } = await startService();
  try {
    const tokens = await Promise.all(files.map((_, i) => register(url, i)));
    const bodies = await Promise.all(files.map((f) => multipartBody(f)));
    const upload = (token: string, { body, contentType }: { body: Buffer; contentType: string }) =>
      send(`${url}/api/users/profile/`, { method: 'PATCH', headers: { Authorization: `Bearer ${token}`, 'Content-Type': contentType, 'Content-Length': String(body.length) } }, body);
    // Warm-up with a small photo: sharp and the statements loaded, little memory touched.
    const warm = await multipartBody(await phonePhoto());
    await upload(tokens[0]!, warm);
    await new Promise((r) => setTimeout(r, 1000));
    const rssBeforeMb = await procStatus(child.pid!, 'VmRSS');
    // "5" resets the peak resident size (VmHWM) to the current one (proc(5), clear_refs).
    await fs.writeFile(`/proc/${child.pid}/clear_refs`, '5');
    const statuses: Record<string, number> = {};
    const t0 = performance.now();
    await Promise.all(
      tokens.map(async (token, i) => {
        const status = await upload(token, bodies[i]!);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const rssPeakMb = await procStatus(child.pid!, 'VmHWM');
    await new Promise((r) => setTimeout(r, opts.settleSeconds * 1000));
    const rssAfterMb = await procStatus(child.pid!, 'VmRSS');
    const memory = await memoryOf(child);
    const mb = (bytes: number) => bytes / 1048576;
    return { what, files: files.length, statuses, seconds, rssBeforeMb, rssPeakMb, rssAfterMb, heapUsedAfterMb: mb(memory.heapUsed), arrayBuffersAfterMb: mb(memory.arrayBuffers), settleSeconds: opts.settleSeconds };
  } finally {
    child.disconnect();
    await new Promise((r) => child.once('exit', r));
  }
}

export async function runFloods(opts: FloodOptions): Promise<FloodRow[]> {
  const hostile = await hostileImages();
  const photo = await twelveMegapixelJpeg();
  return [
    await flood(`hostile: ${hostile.map((h) => `${h.bytes.length} B`).join(', ')} in turn`, Array.from({ length: opts.files }, (_, i) => hostile[i % hostile.length]!.bytes), opts),
    await flood(`phone photos: 12 MP JPEG, ${(photo.length / 1048576).toFixed(1)} MB`, Array.from({ length: opts.files }, () => photo), opts),
  ];
}

export function formatFloods(rows: FloodRow[]): string {
  const mb = (n: number) => `${n.toFixed(0)} MB`;
  return [
    `media floods: ${rows[0]?.files ?? 0} uploads at once, each flood on a fresh service (env ${JSON.stringify(process.env.BENCH_SERVICE_ENV ?? '')})`,
    '| flood | answers | seconds | RSS before | RSS peak | RSS after | of which JS heap, Buffers |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.what} | ${JSON.stringify(r.statuses)} | ${r.seconds.toFixed(1)} | ${mb(r.rssBeforeMb)} | ${mb(r.rssPeakMb)} | ${mb(r.rssAfterMb)} (${r.settleSeconds} s after) | ${mb(r.heapUsedAfterMb)}, ${mb(r.arrayBuffersAfterMb)} |`,
    ),
  ].join('\n');
}
