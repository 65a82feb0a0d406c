/**
 * `npx tsx bench/audio-work.ts`: what reading uploaded audio in worker threads costs (src/core/media/audio-work.ts,
 * issue 31) against doing the same work on the event loop, as before: the first job (a thread starts), then the
 * mean time a job of a 3-second MP3 (48 KB) and of a 25 MB MP3 (the upload limit) takes, and the event loop's
 * longest delay meanwhile. processAudio moves the bytes to the thread (the caller's Buffer is empty afterwards), so
 * each job gets a copy made before the clock starts. Figures: docs/modules/media.md.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseBuffer } from 'music-metadata';
import { processAudio } from '../src/core/media/audio-work.js';
import { stripAudioTags } from '../src/core/media/audio-tags.js';

const frame = Buffer.alloc(417);
frame.set([0xff, 0xfb, 0x90, 0x64]);
const mp3 = (bytes: number) => Buffer.concat(Array.from({ length: Math.floor(bytes / 417) }, () => frame));

let started = performance.now();
await processAudio(mp3(48_000), 'audio/mpeg', { readDuration: true });
console.log(`first job (a thread starts): ${(performance.now() - started).toFixed(0)} ms`);

for (const [name, file, jobs] of [['48 KB', mp3(48_000), 200], ['25 MB', mp3(25 * 1024 * 1024), 10]] as const) {
  const copies = Array.from({ length: jobs }, () => Buffer.from(file));
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  started = performance.now();
  for (const copy of copies) await processAudio(copy, 'audio/mpeg', { readDuration: true });
  const threaded = (performance.now() - started) / jobs;
  delay.disable();
  started = performance.now();
  for (let i = 0; i < jobs; i++) {
    const { body } = stripAudioTags(file, 'audio/mpeg');
    await parseBuffer(body, { mimeType: 'audio/mpeg', size: body.length }, { duration: true, skipCovers: true });
  }
  const inline = (performance.now() - started) / jobs;
  console.log(
    `${name}: ${threaded.toFixed(2)} ms a job in a thread (event-loop delay max ${(delay.max / 1e6).toFixed(1)} ms), ${inline.toFixed(2)} ms on the event loop`,
  );
}
process.exit(0);
