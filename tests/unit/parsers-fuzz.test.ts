// @run-alone: thousands of parses each bounded in CPU time (tests/runner/run-alone.mjs).
import fc from 'fast-check';
import { AUDIO_TYPES, type AudioType } from '../../src/core/media/media-names.js';
import { parseWorkFor, stripAudioTags } from '../../src/core/media/audio-tags.js';
import { detectAudioType, detectImageType } from '../../src/core/uploads.js';
import { WithoutReadyForQuery } from '../../src/platform/embedded-db-wire.js';
import { clientAddress } from '../../src/core/client-address.js';
import { decodeCursor } from '../../src/modules/sync/sync-cursor.js';
import { AUDIO_SEEDS, apeSizeZeroMp3, type AudioSeed } from '../helpers/hostile-audio.js';

/**
 * Property-based fuzzing of every hand-written parser of bytes that come from outside (issue 31): the audio tag
 * stripper (MP3 ID3v2/ID3v1/APEv2, WAV chunks, M4A boxes), the upload type sniffers, the embedded database's message
 * framer and the text parsers of headers and cursors. Each gets thousands of random inputs and of mutations of valid
 * files whose size fields lie (0, 2^32 - 1, just past the end, just short of a header, into another tag), whose tags
 * and chunks repeat or overlap, cut short or spliced, and each call must end:
 * - with its work counted: the tag stripper's loop turns stay within one per 8 bytes of input (plus a constant),
 *   whatever the sizes say, so its time is proportional to the input;
 * - within a CPU-time bound (PER_CALL_MS; wall time is stretched by a loaded machine), a backstop for the parsers
 *   that have no counter; a loop that never ends would hang this file rather than fail it, which the step cap of
 *   audio-tags.ts turns into a thrown error for the stripper.
 * (The image-header parser that checks pixels before decoding, src/core/media/, is fuzzed by its own tests; images
 * themselves are decoded by libvips, and multipart bodies are parsed by busboy within multer's limits,
 * src/http/multipart.ts: neither is hand-written here.)
 * Seeded, so a failure is reproduced by the same run; fast-check prints the seed and the shrunk input.
 */
const RUNS = 2000;
// CPU time of this process, not wall time, which a loaded machine stretches without the parser doing any more work.
const PER_CALL_MS = 1_000;
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const SEED = 31;

/** Runs `call` and fails if it took longer than the bound. */
function bounded<T>(call: () => T): T {
  const started = cpuMs();
  const out = call();
  const took = cpuMs() - started;
  if (took > PER_CALL_MS) throw new Error(`one call took ${took.toFixed(1)} ms of CPU (bound ${PER_CALL_MS} ms)`);
  return out;
}

const LYING_SIZES = [0, 1, 7, 8, 9, 31, 32, 33, 127, 128, 0x7f_ff_ff_ff, 0x80_00_00_00, 0xff_ff_ff_fe, 0xff_ff_ff_ff];

type Mutation =
  | { kind: 'size'; field: number; value: number | 'len' | 'len+1' | 'len-8' }
  | { kind: 'byte'; at: number; value: number }
  | { kind: 'repeat'; from: number; length: number; times: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'splice'; at: number; bytes: Uint8Array }
  | { kind: 'overlap'; from: number; to: number; length: number };

const mutation = (seed: AudioSeed): fc.Arbitrary<Mutation> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('size' as const), field: fc.nat(seed.sizeFields.length - 1), value: fc.oneof(fc.constantFrom(...LYING_SIZES), fc.constantFrom('len' as const, 'len+1' as const, 'len-8' as const), fc.nat({ max: 0xff_ff_ff_ff })) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('byte' as const), at: fc.nat(), value: fc.nat(255) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('repeat' as const), from: fc.nat(), length: fc.integer({ min: 1, max: 200 }), times: fc.integer({ min: 1, max: 8 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('splice' as const), at: fc.nat(), bytes: fc.uint8Array({ maxLength: 64 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('overlap' as const), from: fc.nat(), to: fc.nat(), length: fc.integer({ min: 4, max: 160 }) }) },
  );

function writeSize(buf: Buffer, at: number, encoding: AudioSeed['sizeFields'][number]['encoding'], value: number): void {
  if (at < 0 || at + 4 > buf.length) return;
  if (encoding === 'u32le') buf.writeUInt32LE(value >>> 0, at);
  else if (encoding === 'u32be') buf.writeUInt32BE(value >>> 0, at);
  else buf.set([(value >> 21) & 0x7f, (value >> 14) & 0x7f, (value >> 7) & 0x7f, value & 0x7f], at);
}

/** The seed with the mutations applied in order (positions taken modulo the current length). */
function mutate(seed: AudioSeed, mutations: Mutation[]): Buffer {
  let buf = Buffer.from(seed.bytes);
  for (const m of mutations) {
    const len = buf.length;
    if (m.kind === 'size') {
      const field = seed.sizeFields[m.field]!;
      const value = m.value === 'len' ? len : m.value === 'len+1' ? len + 1 : m.value === 'len-8' ? Math.max(0, len - 8) : m.value;
      writeSize(buf, field.at, field.encoding, value);
    } else if (len === 0) continue;
    else if (m.kind === 'byte') buf[m.at % len] = m.value;
    else if (m.kind === 'repeat') {
      const from = m.from % len;
      const piece = buf.subarray(from, from + m.length);
      buf = Buffer.concat([buf.subarray(0, from), ...Array.from({ length: m.times + 1 }, () => piece), buf.subarray(from + piece.length)]);
    } else if (m.kind === 'truncate') buf = buf.subarray(0, m.at % (len + 1));
    else if (m.kind === 'splice') buf = Buffer.concat([buf.subarray(0, m.at % len), m.bytes, buf.subarray(m.at % len)]);
    else {
      // One structure's bytes written over another's: a tag header inside a tag, a footer inside a chunk.
      buf = Buffer.from(buf);
      buf.copy(buf, m.to % len, m.from % len, (m.from % len) + m.length);
    }
  }
  return buf;
}

/** Loop turns the stripper may take: one per 8 bytes at most (no structure it walks is shorter), plus a few. */
const stepBound = (input: Buffer) => Math.floor(input.length / 8) * 4 + 8;

function expectStrippedWithinBounds(input: Buffer, type: AudioType): void {
  const work = parseWorkFor(input);
  const { body } = bounded(() => stripAudioTags(input, type, work));
  if (work.steps > stepBound(input)) throw new Error(`${work.steps} loop turns for ${input.length} bytes`);
  // What is stored is never larger than what came (tags are cut or blanked, never grown).
  if (body.length > input.length) throw new Error(`${body.length} bytes out of ${input.length} in`);
}

const AUDIO_TYPE_LIST = Object.keys(AUDIO_TYPES) as AudioType[];

describe('the audio tag stripper under fuzzing', () => {
  test('when it is given the 52-byte file of issue 31, then it ends within the bounds', () => {
    expectStrippedWithinBounds(apeSizeZeroMp3(), 'audio/mpeg');
  });

  test.each(AUDIO_SEEDS.map((s) => [s.name, s] as const))('when a %s has lying sizes, repeated, overlapping or cut tags, then every call ends within the bounds', (_name, seed) => {
    fc.assert(
      fc.property(fc.array(mutation(seed), { minLength: 1, maxLength: 8 }), (mutations) => {
        const input = mutate(seed, mutations);
        expectStrippedWithinBounds(input, seed.type);
        // The same bytes under the other containers' rules (a sniffed type is only the first bytes' word).
        for (const other of AUDIO_TYPE_LIST) if (other !== seed.type) expectStrippedWithinBounds(input, other);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  test('when its size fields are set to every lying value one by one, then every call ends within the bounds', () => {
    for (const seed of AUDIO_SEEDS) {
      for (const field of seed.sizeFields) {
        for (const value of [...LYING_SIZES, seed.bytes.length, seed.bytes.length + 1, field.at, field.at + 4]) {
          const input = Buffer.from(seed.bytes);
          writeSize(input, field.at, field.encoding, value);
          expectStrippedWithinBounds(input, seed.type);
        }
      }
    }
  });

  test('when it is given random bytes behind each container\'s magic, then every call ends within the bounds', () => {
    const magic: Record<'audio/mpeg' | 'audio/wav' | 'audio/mp4', Buffer[]> = {
      'audio/mpeg': [Buffer.from('ID3'), Buffer.from([0xff, 0xfb, 0x90, 0x64])],
      'audio/wav': [Buffer.from('RIFF\0\0\0\0WAVE', 'latin1')],
      'audio/mp4': [Buffer.from('\0\0\0\x10ftypM4A ', 'latin1')],
    };
    // Tails made of the markers the stripper looks for, so that random data meets its branches.
    const token = fc.oneof(
      fc.uint8Array({ maxLength: 40 }),
      fc.constantFrom(...['ID3', 'TAG', 'TAG+', 'APETAGEX', 'RIFF', 'data', 'LIST', 'moov', 'trak', 'udta', 'meta'].map((t) => Uint8Array.from(Buffer.from(t, 'latin1')))),
      fc.constantFrom(...LYING_SIZES).map((n) => {
        const b = Buffer.alloc(4);
        b.writeUInt32LE(n >>> 0);
        return Uint8Array.from(b);
      }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...(Object.keys(magic) as Array<keyof typeof magic>)), fc.nat(1), fc.array(token, { maxLength: 60 }), (type, which, tail) => {
        const head = magic[type][which % magic[type].length]!;
        expectStrippedWithinBounds(Buffer.concat([head, ...tail.map((t) => Buffer.from(t))]), type);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  test('when a file of 1 MB ends in a thousand stacked tags, then each is cut in one turn, and a lying one below them ends the walk', () => {
    const emptyApe = Buffer.from(apeSizeZeroMp3().subarray(20));
    emptyApe.writeUInt32LE(32, 12);
    const id3v1 = Buffer.alloc(128);
    id3v1.write('TAG', 0, 'latin1');
    const frames = Buffer.alloc(1024 * 1024);
    const stacked = Buffer.concat([frames, apeSizeZeroMp3().subarray(20), ...Array.from({ length: 1000 }, (_, i) => (i % 2 ? emptyApe : id3v1))]);
    const work = parseWorkFor(stacked);
    expect(stripAudioTags(stacked, 'audio/mpeg', work).body.length).toBe(frames.length + 32);
    expect(work.steps).toBeLessThanOrEqual(1001);
    expectStrippedWithinBounds(stacked, 'audio/mpeg');
  });
});

describe('the upload type sniffers under fuzzing', () => {
  test('when they are given random bytes, then they answer a type or null, reading a fixed number of bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const buf = Buffer.from(bytes);
        const image = bounded(() => detectImageType(buf));
        const audio = bounded(() => detectAudioType(buf));
        return (image === null || typeof image === 'string') && (audio === null || typeof audio === 'string');
      }),
      { numRuns: RUNS * 2, seed: SEED },
    );
  });
});

describe('the embedded database message framer under fuzzing', () => {
  test('when backend messages with lying lengths arrive in random chunks, then every write ends and nothing is forwarded twice', () => {
    const message = fc.tuple(fc.constantFrom(0x5a, 0x44, 0x43, 0x45, 0x54), fc.oneof(fc.constantFrom(0, 1, 3, 4, 5, 0x7f_ff_ff_ff, 0xff_ff_ff_ff), fc.nat(64)), fc.uint8Array({ maxLength: 40 }));
    fc.assert(
      fc.property(fc.array(message, { maxLength: 30 }), fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 10 }), (messages, cuts) => {
        const stream = Buffer.concat(
          messages.map(([type, length, body]) => {
            const head = Buffer.alloc(5);
            head[0] = type;
            head.writeUInt32BE(length >>> 0, 1);
            return Buffer.concat([head, body]);
          }),
        );
        let forwarded = 0;
        const framer = new WithoutReadyForQuery((data) => (forwarded += data.length));
        for (let at = 0, i = 0; at < stream.length; i++) {
          const size = cuts[i % cuts.length]!;
          bounded(() => framer.write(stream.subarray(at, at + size)));
          at += size;
        }
        framer.end();
        return forwarded <= stream.length;
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});

describe('the text parsers of headers and cursors under fuzzing', () => {
  test('when X-Forwarded-For is random text, then the client address is found within the bound', () => {
    const hop = fc.oneof(fc.constantFrom('127.0.0.1', '::1', '::ffff:127.0.0.1', '10.0.0.1', '', ' ', 'unknown'), fc.string({ maxLength: 20 }));
    fc.assert(
      fc.property(fc.array(hop, { maxLength: 200 }), fc.constantFrom('127.0.0.1', '::1', '203.0.113.9'), (hops, peer) => {
        const address = bounded(() => clientAddress(peer, hops.join(',')));
        return typeof address === 'string';
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  test('when a sync cursor is random text or mangled JSON, then it is decoded or refused within the bound', () => {
    const json = fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify({ v: 1, posts: v })).toString('base64url'));
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 400 }), json), (cursor) => {
        const decoded = bounded(() => decodeCursor(cursor));
        return decoded === null || typeof decoded === 'object';
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
