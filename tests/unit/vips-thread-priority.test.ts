import os from 'node:os';
import fs from 'node:fs';
import sharp from 'sharp';
import { processImage } from '../../src/core/media/image-pipeline.js';
import { VIPS_THREAD_NICENESS, loweredVipsThreads } from '../../src/core/media/vips-thread-priority.js';

/** libvips' threads run image work below the event loop's priority (core/media/vips-thread-priority.ts). */
const onLinux = process.platform === 'linux' ? test : test.skip;

onLinux('when images have been processed, then every libvips worker thread runs at nice 10 and the event loop thread is untouched', async () => {
  const image = await sharp({ create: { width: 600, height: 400, channels: 3, background: '#808080' } }).jpeg().toBuffer();
  await Promise.all([processImage(image, 'image/jpeg'), processImage(image, 'image/jpeg')]);
  const vipsThreads = fs.readdirSync('/proc/self/task').filter((t) => fs.readFileSync(`/proc/self/task/${t}/comm`, 'utf8').trim() === 'libvips worker').map(Number);
  expect(vipsThreads.length).toBeGreaterThan(0);
  expect(loweredVipsThreads()).toEqual(expect.arrayContaining(vipsThreads));
  for (const tid of vipsThreads) expect(os.getPriority(tid)).toBe(VIPS_THREAD_NICENESS);
  expect(os.getPriority(process.pid)).toBe(0);
});
