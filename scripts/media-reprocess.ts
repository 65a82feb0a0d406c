/**
 * `npm run media:reprocess`: rewrites media stored by older releases under today's rules (see
 * src/modules/media/reprocess.service.ts). Uses the same configuration as `npm start` (DATABASE_URL or the embedded
 * database in DATA_DIR, S3_* or DATA_DIR/media); safe to run while the service runs, and to run again.
 */
import { loadConfig } from '../src/platform/config.js';
import { startPlatform, stopPlatform } from '../src/platform/index.js';
import { reprocessMedia, type ReprocessCounts } from '../src/modules/media/reprocess.service.js';
import { configureAudioWork } from '../src/core/media/audio-work.js';

const line = (c: ReprocessCounts) =>
  `${c.column}: ${c.scanned} scanned, ${c.rewritten} rewritten, ${c.removed} removed (not media), ${c.missing} missing from storage, ${c.current} already current, ${c.unreadable} left as they were (audio not read in time)`;

const config = loadConfig();
// Audio is read in a worker thread with the service's deadline: a file that would hang the reader is skipped, not
// waited on forever (issue 31).
configureAudioWork({ timeoutMs: config.AUDIO_WORK_TIMEOUT_MS });
await startPlatform(config);
try {
  const totals = await reprocessMedia((c) => console.log(line(c)));
  console.log('\ndone:');
  for (const c of totals) console.log('  ' + line(c));
} finally {
  await stopPlatform();
}
