/**
 * The baseline of `npm run bench -- media`: sharp alone, in a bare script, doing the same image work the service does
 * for each upload (decode with the orientation applied and the longest side capped at 4096, encode the JPEG, the 320
 * and 1280 px WebP variants and a ThumbHash), `concurrency` files at a time, on the same file, until `count` are done.
 * Prints one JSON line: {uploadsPerSecond, seconds}. No HTTP, no multipart, no storage, no queue.
 */
import fs from 'node:fs/promises';
import sharp from 'sharp';
import { rgbaToThumbHash } from 'thumbhash';

const [file, countArg, concurrencyArg] = process.argv.slice(2);
const input = await fs.readFile(file!);
const count = Number(countArg);
const concurrency = Number(concurrencyArg);

async function processOnce(): Promise<void> {
  const { data, info } = await sharp(input, { autoOrient: true }).resize({ width: 4096, height: 4096, fit: 'inside', withoutEnlargement: true }).raw().toBuffer({ resolveWithObject: true });
  const raw = { raw: { width: info.width, height: info.height, channels: info.channels } } as const;
  await Promise.all([
    sharp(data, raw).jpeg({ quality: 85 }).toBuffer(),
    sharp(data, raw).resize(100, 100, { fit: 'inside' }).ensureAlpha().raw().toBuffer({ resolveWithObject: true }).then((t) => rgbaToThumbHash(t.info.width, t.info.height, t.data)),
    sharp(data, raw).resize(320, 320, { fit: 'inside' }).webp({ quality: 80 }).toBuffer(),
    sharp(data, raw).resize(1280, 1280, { fit: 'inside' }).webp({ quality: 80 }).toBuffer(),
  ]);
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
console.log(JSON.stringify({ uploadsPerSecond: count / seconds, seconds }));
