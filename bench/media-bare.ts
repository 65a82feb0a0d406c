/**
 * The baseline of `npm run bench -- media`: sharp alone, in a bare script, doing the same image work the service does
 * for each upload (its own `processImage`: the header check, one decode with the orientation applied, sRGB and the
 * longest side capped at 4096, the JPEG, the 320 and 1280 px WebP variants and a ThumbHash), `concurrency` files at a time, on the same file, until `count` are done.
 * Prints one JSON line: {uploadsPerSecond, seconds, cpuSecondsPerUpload} (this process's CPU time, user and system,
 * divided by the images done). No HTTP, no multipart, no storage, no queue.
 */
import fs from 'node:fs/promises';
import { processImage } from '../src/core/media/image-pipeline.js';

const [file, countArg, concurrencyArg] = process.argv.slice(2);
const input = await fs.readFile(file!);
const count = Number(countArg);
const concurrency = Number(concurrencyArg);

/** The service's own image function: the baseline and the service can never drift apart in the work they do. */
async function processOnce(): Promise<void> {
  await processImage(input, 'image/jpeg');
}

let started = 0;
const t0 = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (started < count) {
      started++;
      await processOnce();
    }
  }),
);
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage();
console.log(JSON.stringify({ uploadsPerSecond: count / seconds, seconds, cpuSecondsPerUpload: (cpu.user + cpu.system) / 1e6 / count }));
