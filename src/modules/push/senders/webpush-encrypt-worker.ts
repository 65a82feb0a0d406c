import { parentPort } from 'node:worker_threads';
import webpush from 'web-push';
import type { EncryptJob, EncryptResult } from './webpush-encrypt.js';

/**
 * The worker thread of webpush-encrypt.ts: web-push's aes128gcm encryption (an ECDH key pair and secret, HKDF,
 * AES-GCM: most of a Web Push's CPU) for batches of pushes, off the service's event loop.
 */
const port = parentPort!;

port.on('message', (jobs: EncryptJob[]) => {
  const results: EncryptResult[] = jobs.map((job) => {
    try {
      const details = webpush.generateRequestDetails({ endpoint: job.endpoint, keys: job.keys }, job.payload, job.options);
      return { id: job.id, ok: true, headers: details.headers as Record<string, string>, body: details.body ? new Uint8Array(details.body) : null };
    } catch (err) {
      return { id: job.id, ok: false, message: (err as Error).message };
    }
  });
  port.postMessage(results);
});
port.postMessage({ ready: true });
