import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { sql } from '../helpers/sql.js';
import { aNeighbourhood } from '../builders/posts.js';
import { apeSizeZeroMp3 } from '../helpers/hostile-audio.js';
import { AUDIO_NOT_READ_IN_TIME, AUDIO_WORK_TIMEOUT_MS_DEFAULT, configureAudioWork } from '../../src/core/media/audio-work.js';
import { reprocessMedia, type ReprocessCounts } from '../../src/modules/media/reprocess.service.js';

/**
 * Issue 31: one 52-byte audio post (an MPEG frame header, 16 zero bytes, an APEv2 footer of size 0) looped the tag
 * stripper forever on the event loop: /health stopped answering and every request of the node hung. Audio is now
 * read in a worker thread with a deadline (src/core/media/audio-work.ts): the file costs its own upload a 400, on
 * both transports (a socket client sends the file as a binary attachment, which reaches the same schema), and the
 * node keeps answering. A deadline of 1 ms stands in for a reader that never ends: the job is cut off, not waited for.
 * `npm run media:reprocess` reads stored audio through the same threads and deadline.
 */
const socketFile = (bytes: Buffer, name: string) => ({ fieldname: 'audio_file', originalname: name, mimetype: 'audio/mpeg', size: bytes.length, buffer: bytes });

/** An audio post over REST and over the socket: the two answers. */
async function postAudioBothWays(on: TestApp, bytes: Buffer) {
  const { founder } = await aNeighbourhood(on);
  const rest = await on.http().post('/api/feed/posts/').set('Authorization', `Bearer ${founder.token}`).field('post_type', 'audio').attach('audio_file', bytes, 'note.mp3');
  const socket = await on.emit('posts.create', { post_type: 'audio', audio_file: socketFile(bytes, 'note.mp3') }, { token: founder.token });
  return { rest: { status: rest.status, body: rest.body }, socket };
}

async function healthStatus(on: TestApp): Promise<number> {
  return (await on.http().get('/health')).status;
}

/** A WAV header followed by `n` empty `junk` chunks (8 bytes each). */
function wavOfEmptyChunks(n: number): Buffer {
  const out = Buffer.alloc(12 + 8 * n);
  out.write('RIFF', 0, 'latin1');
  out.writeUInt32LE(out.length - 8, 4);
  out.write('WAVE', 8, 'latin1');
  for (let at = 12; at < out.length; at += 8) out.write('junk', at, 'latin1');
  return out;
}

/** `n` silent MPEG frames of 417 bytes. */
function mp3Frames(n: number): Buffer {
  const frame = Buffer.alloc(417);
  frame.set([0xff, 0xfb, 0x90, 0x64]);
  return Buffer.concat(Array.from({ length: n }, () => frame));
}

// The deadline is one setting of the node (configured at start): one app at a time, the cut-off first, so that the
// normal app's uploads run on threads started after the tight app's were terminated.
describe('with a deadline of 1 ms', () => {
  let tight: TestApp;
  beforeAll(async () => {
    tight = await startTestApp({ RATE_LIMITS: 'off', AUDIO_WORK_TIMEOUT_MS: '1', SOCKET_MAX_PAYLOAD_BYTES: String(32 * 1024 * 1024) });
  });
  afterAll(async () => {
    await tight?.stop();
  });

  test('when an audio file is not read within the deadline, then its upload is answered 400 on both transports and the node goes on answering', async () => {
    // 10 MB of frames: reading them takes milliseconds, far past the deadline.
    const { rest, socket } = await postAudioBothWays(tight, mp3Frames(25_000));
    expect(rest).toEqual({ status: 400, body: { audio_file: [AUDIO_NOT_READ_IN_TIME] } });
    expect(socket).toEqual(rest);
    expect(await healthStatus(tight)).toBe(200);
  });
});

describe('with the default deadline', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ RATE_LIMITS: 'off' });
  });
  afterAll(async () => {
    await app?.stop();
  });

  test('when the 52-byte MP3 of issue 31 is posted over REST and over the socket, then each is answered 400 (no duration) and /health still answers', async () => {
    const { rest, socket } = await postAudioBothWays(app, apeSizeZeroMp3());
    expect(rest).toEqual({ status: 400, body: { audio_file: ['Upload a valid audio file: its duration could not be read.'] } });
    expect(socket).toEqual(rest);
    expect(await healthStatus(app)).toBe(200);
  });

  test('when threads were cut off at their deadline before, then a new one reads the next upload, which is stored', async () => {
    const { rest, socket } = await postAudioBothWays(app, mp3Frames(115));
    expect([rest.status, socket.status]).toEqual([201, 201]);
    expect(rest.body.audio_data).toMatchObject({ duration_seconds: 3 });
    expect(socket.body.audio_data).toMatchObject({ duration_seconds: 3 });
  });
});

describe('npm run media:reprocess (reprocessMedia) on such files', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ RATE_LIMITS: 'off' });
  });
  afterAll(async () => {
    configureAudioWork({ timeoutMs: AUDIO_WORK_TIMEOUT_MS_DEFAULT });
    await app?.stop();
  });

  /** An audio post whose row names `bytes` stored under an old release's name, as media:reprocess finds it. */
  async function legacyAudio(bytes: Buffer): Promise<{ postId: string; key: string }> {
    const { founder } = await aNeighbourhood(app);
    const post = await app.http().post('/api/feed/posts/').set('Authorization', `Bearer ${founder.token}`).field('post_type', 'audio').attach('audio_file', mp3Frames(115), 'a.mp3');
    expect(post.status).toBe(201);
    const key = `posts/audio/${crypto.randomUUID()}.bin`;
    await fs.mkdir(path.join(app.dataDir, 'media', 'posts/audio'), { recursive: true });
    await fs.writeFile(path.join(app.dataDir, 'media', key), bytes);
    await sql('UPDATE post_audio SET file = $1 WHERE post_id = $2', [key, post.body.id]);
    return { postId: post.body.id, key };
  }
  const audioColumn = (counts: ReprocessCounts[]) => counts.find((c) => c.column === 'post_audio.file')!;
  const fileOf = async (postId: string) => (await sql('SELECT file FROM post_audio WHERE post_id = $1', [postId]))[0].file as string;

  test('when the 52-byte MP3 of issue 31 is stored, then the run ends and stores it renamed, its malformed footer as it was', async () => {
    const { postId } = await legacyAudio(apeSizeZeroMp3());
    const counts = audioColumn(await reprocessMedia());
    expect(counts.rewritten).toBeGreaterThanOrEqual(1);
    const file = await fileOf(postId);
    expect(file).toMatch(/^posts\/audio\/[0-9a-f]{32}\.mp3$/);
    expect((await fs.readFile(path.join(app.dataDir, 'media', file))).equals(apeSizeZeroMp3())).toBe(true);
  });

  test('when a stored file is not read within the deadline (1 ms here), then the run goes on, counts it unreadable and leaves file and row as they were', async () => {
    // A million empty chunks: the stripper walks each (tens of milliseconds), far past the deadline.
    const { postId, key } = await legacyAudio(wavOfEmptyChunks(1_000_000));
    configureAudioWork({ timeoutMs: 1 });
    try {
      const counts = audioColumn(await reprocessMedia());
      expect(counts.unreadable).toBeGreaterThanOrEqual(1);
    } finally {
      configureAudioWork({ timeoutMs: AUDIO_WORK_TIMEOUT_MS_DEFAULT });
    }
    expect(await fileOf(postId)).toBe(key);
    expect((await fs.stat(path.join(app.dataDir, 'media', key))).size).toBe(12 + 8 * 1_000_000);
  });
});
