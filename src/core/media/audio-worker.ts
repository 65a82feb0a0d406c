import { parentPort } from 'node:worker_threads';
import { parseBuffer } from 'music-metadata';
import { stripAudioTags } from './audio-tags.js';
import type { AudioJob, AudioJobResult } from './audio-work.js';

/**
 * The worker thread of audio-work.ts: everything that reads a stranger's audio bytes (our tag stripper, then
 * music-metadata for the duration) runs here, one job at a time, never on the service's event loop. A file that
 * makes either of them loop costs this thread, which the service terminates at its deadline.
 */
const port = parentPort!;

async function durationOf(body: Buffer, type: AudioJob['type']): Promise<number | null> {
  try {
    const metadata = await parseBuffer(body, { mimeType: type, size: body.length }, { duration: true, skipCovers: true });
    const seconds = metadata.format.duration;
    return seconds !== undefined && Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
  } catch {
    return null; // a container music-metadata cannot read: the caller decides what an unknown duration means
  }
}

/** The body as an ArrayBuffer of its own, to hand back without a copy (a view on a larger buffer is copied once). */
function ownBuffer(body: Buffer): ArrayBuffer {
  if (body.byteOffset === 0 && body.byteLength === body.buffer.byteLength) return body.buffer as ArrayBuffer;
  return body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer;
}

port.on('message', async (job: AudioJob) => {
  let result: AudioJobResult;
  try {
    const { body } = stripAudioTags(Buffer.from(job.bytes), job.type);
    const durationSeconds = job.readDuration ? await durationOf(body, job.type) : null;
    const out = ownBuffer(body);
    result = { ok: true, body: out, durationSeconds };
    port.postMessage(result, [out]);
  } catch (err) {
    result = { ok: false, reason: err instanceof Error ? err.message : String(err) };
    port.postMessage(result);
  }
});
port.postMessage({ ready: true });
