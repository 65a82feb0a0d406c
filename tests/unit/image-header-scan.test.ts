// @run-alone: thousands of scans each bounded in CPU time, and 10 MB scans bounded in wall time (tests/runner/run-alone.mjs).
import fc from 'fast-check';
import sharp from 'sharp';
import { MalformedImage, scanImageHeader } from '../../src/core/media/image-header-scan.js';
import type { ImageType } from '../../src/core/media/media-names.js';
import { gifWithHugeFrame, interlacedPalettePngClaiming, pngChunk, progressiveJpegClaiming, webpClaiming } from '../helpers/hostile-images.js';
import { phonePhoto } from '../helpers/phone-photo.js';

/**
 * The image header scanner (src/core/media/image-header-scan.ts) reads every size an upload's headers declare before
 * a decoder runs (issue 31). It parses bytes a stranger sent, so besides reading the sizes right it must end, in time
 * proportional to its input, whatever those bytes say: fuzzed here with thousands of random inputs and of mutations
 * of real files (sizes of 0, 2^32 - 1, past the end; chunks repeated, cut short, spliced), each call within a bound
 * and ending either with a header or with MalformedImage (never an out-of-range read or another error).
 * Seeded, so a failure is reproduced by the same run; fast-check prints the seed and the shrunk input.
 */
const RUNS = 2000;
// CPU time of this process, not wall time: on a loaded machine a 140-byte scan was once descheduled for 169 ms. A
// scan that loops or goes back over its input is caught by the bound (or by the 10 MB linearity cases below).
const PER_CALL_MS = 1_000;
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const SEED = 3131;

const pixels = (width: number, height: number, background = '#336699') => sharp({ create: { width, height, channels: 3, background } });
const frames = async (format: 'gif' | 'webp', count: number, width = 24, height = 16) => {
  const still = await Promise.all(Array.from({ length: count }, (_, i) => pixels(width, height, i % 2 ? '#ff0000' : '#00ff00').png().toBuffer()));
  return sharp(still, { join: { animated: true } })[format]().toBuffer();
};

interface Seed {
  name: string;
  type: ImageType;
  bytes: Buffer;
}

let seeds: Seed[];
beforeAll(async () => {
  seeds = [
    { name: 'baseline JPEG', type: 'image/jpeg', bytes: await pixels(40, 30).jpeg().toBuffer() },
    { name: 'progressive JPEG', type: 'image/jpeg', bytes: await pixels(40, 30).jpeg({ progressive: true }).toBuffer() },
    { name: 'phone photo (EXIF, XMP, comment)', type: 'image/jpeg', bytes: await phonePhoto() },
    { name: 'PNG', type: 'image/png', bytes: await pixels(40, 30).png().toBuffer() },
    { name: 'interlaced palette PNG', type: 'image/png', bytes: await pixels(40, 30).png({ palette: true, progressive: true }).toBuffer() },
    { name: 'GIF', type: 'image/gif', bytes: await pixels(40, 30).gif().toBuffer() },
    { name: 'animated GIF', type: 'image/gif', bytes: await frames('gif', 3) },
    { name: 'lossy WebP', type: 'image/webp', bytes: await pixels(40, 30).webp().toBuffer() },
    { name: 'lossless WebP', type: 'image/webp', bytes: await pixels(40, 30).webp({ lossless: true }).toBuffer() },
    { name: 'animated WebP', type: 'image/webp', bytes: await frames('webp', 3) },
  ];
});

describe('what the scanner reads', () => {
  test('when real files are scanned, then each gives its size, its frames and whether it is a progressive JPEG', async () => {
    const read = (name: string) => {
      const seed = seeds.find((s) => s.name === name)!;
      return scanImageHeader(seed.bytes, seed.type);
    };
    expect(read('baseline JPEG')).toEqual({ width: 40, height: 30, frames: 1, progressive: false });
    expect(read('progressive JPEG')).toEqual({ width: 40, height: 30, frames: 1, progressive: true });
    // The EXIF thumbnail's and the XMP's bytes are skipped by their segments' lengths.
    expect(read('phone photo (EXIF, XMP, comment)')).toEqual({ width: 60, height: 40, frames: 1, progressive: false });
    expect(read('interlaced palette PNG')).toEqual({ width: 40, height: 30, frames: 1, progressive: false });
    expect(read('GIF')).toEqual({ width: 40, height: 30, frames: 1, progressive: false });
    expect(read('animated GIF')).toEqual({ width: 24, height: 16, frames: 3, progressive: false });
    expect(read('lossy WebP')).toEqual({ width: 40, height: 30, frames: 1, progressive: false });
    expect(read('lossless WebP')).toEqual({ width: 40, height: 30, frames: 1, progressive: false });
    expect(read('animated WebP')).toEqual({ width: 24, height: 16, frames: 3, progressive: false });
  });

  test('when a GIF frame is larger than its screen, or placed past it, then the canvas the decoder would grow to is given', () => {
    expect(scanImageHeader(gifWithHugeFrame(10_000, 10_000), 'image/gif')).toMatchObject({ width: 10_000, height: 10_000 });
    const placed = gifWithHugeFrame(4, 4);
    placed.writeUInt16LE(60_000, 28); // the image descriptor's left offset (after header, screen, colour table, control)
    expect(scanImageHeader(placed, 'image/gif')).toMatchObject({ width: 60_004, height: 8 });
  });

  test('when the headers lie about the size, then the size they claim is given (JPEG SOF2, PNG IHDR, WebP VP8L)', async () => {
    expect(scanImageHeader(await progressiveJpegClaiming(10_000, 10_000), 'image/jpeg')).toEqual({ width: 10_000, height: 10_000, frames: 1, progressive: true });
    expect(scanImageHeader(interlacedPalettePngClaiming(), 'image/png')).toMatchObject({ width: 1_048_592, height: 16 });
    expect(scanImageHeader(await webpClaiming(16_000, 9_000), 'image/webp')).toMatchObject({ width: 16_000, height: 9_000 });
  });

  test('when a second image follows a JPEG (a multi-picture file), then its frame header counts too', async () => {
    const small = await pixels(40, 30).jpeg().toBuffer();
    const appended = Buffer.concat([small, await progressiveJpegClaiming(9_000, 9_000)]);
    expect(scanImageHeader(appended, 'image/jpeg')).toEqual({ width: 9_000, height: 9_000, frames: 1, progressive: true });
  });

  test('when an APNG frame control chunk declares a frame past the canvas, then it counts', async () => {
    const png = await pixels(40, 30).png().toBuffer();
    const fctl = Buffer.alloc(26);
    fctl.writeUInt32BE(20_000, 4); // width
    fctl.writeUInt32BE(10, 8); // height
    const withFrame = Buffer.concat([png.subarray(0, 33), pngChunk('fcTL', fctl), png.subarray(33)]);
    expect(scanImageHeader(withFrame, 'image/png')).toMatchObject({ width: 20_000, height: 30 });
  });

  test.each<[string, ImageType, Buffer]>([
    ['an empty file', 'image/jpeg', Buffer.alloc(0)],
    ['a JPEG with no frame header', 'image/jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xd9])],
    ['a PNG whose first chunk is not IHDR', 'image/png', Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), pngChunk('IDAT', Buffer.alloc(4))])],
    ['a GIF cut inside its screen descriptor', 'image/gif', Buffer.from('GIF89a\x08\x00', 'latin1')],
    ['a GIF with no frame', 'image/gif', Buffer.from('GIF89a\x08\x00\x08\x00\x00\x00\x00\x3b', 'latin1')],
    ['a WebP with no bitstream', 'image/webp', Buffer.from('RIFF\x04\x00\x00\x00WEBP', 'latin1')],
  ])('when the bytes are %s, then MalformedImage', (_name, type, bytes) => {
    expect(() => scanImageHeader(bytes, type)).toThrow(MalformedImage);
  });
});

// --- fuzzing ---------------------------------------------------------------------------------------------------------

/** Runs the scanner: it must answer a header or MalformedImage, within the bound. */
function scanBounded(bytes: Buffer, type: ImageType): void {
  const started = cpuMs();
  try {
    const header = scanImageHeader(bytes, type);
    expect(header.width).toBeGreaterThan(0);
    expect(header.height).toBeGreaterThan(0);
    expect(header.frames).toBeGreaterThanOrEqual(1);
  } catch (err) {
    if (!(err instanceof MalformedImage)) throw err;
  }
  const took = cpuMs() - started;
  if (took > PER_CALL_MS) throw new Error(`one scan of ${bytes.length} bytes took ${took.toFixed(1)} ms of CPU (bound ${PER_CALL_MS} ms)`);
}

const LYING_SIZES = [0, 1, 2, 3, 7, 8, 9, 12, 16, 0x7f, 0xff, 0x100, 0xffff, 0x7f_ff_ff_ff, 0x80_00_00_00, 0xff_ff_ff_fe, 0xff_ff_ff_ff];
const ENCODINGS = ['u8', 'u16le', 'u16be', 'u24le', 'u32le', 'u32be'] as const;

/**
 * Where a seed keeps its length and size fields: JPEG segment lengths and frame sizes, PNG chunk lengths and IHDR,
 * GIF screen, descriptors and sub-block lengths, WebP RIFF and chunk sizes. Mutations write lies there most often.
 */
function sizeFields(seed: Seed): number[] {
  const b = seed.bytes;
  const at: number[] = [];
  if (seed.type === 'image/jpeg') {
    for (let i = 2; i + 4 <= b.length && b[i] === 0xff; i += 2 + b.readUInt16BE(i + 2)) {
      at.push(i + 2);
      if (b[i + 1]! >= 0xc0 && b[i + 1]! <= 0xcf) at.push(i + 5, i + 7);
      if (b[i + 1] === 0xda) break;
    }
  } else if (seed.type === 'image/png') {
    for (let i = 8; i + 8 <= b.length; i += 12 + b.readUInt32BE(i)) at.push(i, i + 8, i + 12);
  } else if (seed.type === 'image/gif') {
    at.push(6, 8);
    for (let i = 13; i < b.length; i++) if (b[i] === 0x2c) at.push(i + 1, i + 3, i + 5, i + 7, i + 11);
  } else {
    at.push(4);
    for (let i = 12; i + 8 <= b.length; i += 8 + b.readUInt32LE(i + 4) + (b.readUInt32LE(i + 4) & 1)) at.push(i + 4, i + 8, i + 12, i + 14, i + 17, i + 20);
  }
  return at.filter((i) => i < b.length);
}

type Mutation =
  | { kind: 'size'; field: number; anywhere: number; encoding: (typeof ENCODINGS)[number]; value: number | 'len' | 'len+1' }
  | { kind: 'byte'; at: number; value: number }
  | { kind: 'repeat'; from: number; length: number; times: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'splice'; at: number; bytes: Uint8Array };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('size' as const),
      field: fc.nat(),
      anywhere: fc.nat(9),
      encoding: fc.constantFrom(...ENCODINGS),
      value: fc.oneof(fc.constantFrom(...LYING_SIZES), fc.constantFrom('len' as const, 'len+1' as const), fc.nat({ max: 0xff_ff_ff_ff })),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('byte' as const), at: fc.nat(), value: fc.nat(255) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('repeat' as const), from: fc.nat(), length: fc.integer({ min: 1, max: 300 }), times: fc.integer({ min: 1, max: 20 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('splice' as const), at: fc.nat(), bytes: fc.uint8Array({ maxLength: 64 }) }) },
);

function writeSize(buf: Buffer, at: number, encoding: (typeof ENCODINGS)[number], value: number): void {
  const width = { u8: 1, u16le: 2, u16be: 2, u24le: 3, u32le: 4, u32be: 4 }[encoding];
  if (at < 0 || at + width > buf.length) return;
  if (encoding === 'u8') buf[at] = value & 0xff;
  else if (encoding === 'u16le') buf.writeUInt16LE(value & 0xffff, at);
  else if (encoding === 'u16be') buf.writeUInt16BE(value & 0xffff, at);
  else if (encoding === 'u24le') buf.writeUIntLE(value & 0xff_ff_ff, at, 3);
  else if (encoding === 'u32le') buf.writeUInt32LE(value >>> 0, at);
  else buf.writeUInt32BE(value >>> 0, at);
}

/** The seed with the mutations applied in order (positions taken modulo the current length). */
function mutate(seed: Seed, fields: number[], mutations: Mutation[]): Buffer {
  let buf = Buffer.from(seed.bytes);
  for (const m of mutations) {
    const len = buf.length;
    if (len === 0) break;
    if (m.kind === 'size') {
      // Nine times in ten a known size field, else anywhere.
      const at = m.anywhere > 0 && fields.length > 0 ? fields[m.field % fields.length]! : m.field % len;
      writeSize(buf, at, m.encoding, m.value === 'len' ? len : m.value === 'len+1' ? len + 1 : m.value);
    } else if (m.kind === 'byte') buf[m.at % len] = m.value;
    else if (m.kind === 'repeat') {
      const from = m.from % len;
      const piece = buf.subarray(from, from + m.length);
      buf = Buffer.concat([buf.subarray(0, from + piece.length), ...Array.from({ length: m.times }, () => piece), buf.subarray(from + piece.length)]);
    } else if (m.kind === 'truncate') buf = buf.subarray(0, m.at % (len + 1));
    else {
      const at = m.at % (len + 1);
      buf = Buffer.concat([buf.subarray(0, at), Buffer.from(m.bytes), buf.subarray(at)]);
    }
  }
  return buf;
}

describe('fuzzing the scanner', () => {
  test('when any bytes at all are scanned as any type, then each scan ends within the bound with a header or MalformedImage', () => {
    const types: ImageType[] = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), fc.constantFrom(...types), (bytes, type) => scanBounded(Buffer.from(bytes), type)),
      { numRuns: RUNS, seed: SEED },
    );
  });

  test('when random bytes follow each format\'s magic, then each scan ends within the bound with a header or MalformedImage', () => {
    const magic: Array<[ImageType, Buffer]> = [
      ['image/jpeg', Buffer.from([0xff, 0xd8, 0xff])],
      ['image/png', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')],
      ['image/gif', Buffer.from('GIF89a', 'latin1')],
      ['image/webp', Buffer.from('RIFF\xff\xff\xff\xffWEBPVP8X', 'latin1')],
    ];
    fc.assert(
      fc.property(fc.constantFrom(...magic), fc.uint8Array({ maxLength: 4096 }), ([type, head], tail) => scanBounded(Buffer.concat([head, Buffer.from(tail)]), type)),
      { numRuns: RUNS, seed: SEED },
    );
  });

  test('when real files of every format have their sizes lie (0, 2^32 - 1, past the end), their chunks repeated, cut or spliced, then each scan ends within the bound with a header or MalformedImage', () => {
    const fieldsOf = new Map(seeds.map((s) => [s.name, sizeFields(s)]));
    fc.assert(
      fc.property(fc.nat(seeds.length - 1), fc.array(mutation, { minLength: 1, maxLength: 8 }), (i, mutations) => {
        const seed = seeds[i]!;
        scanBounded(mutate(seed, fieldsOf.get(seed.name)!, mutations), seed.type);
      }),
      { numRuns: RUNS * 3, seed: SEED },
    );
  });

  test('when an upload-sized file (10 MB) repeats one chunk, sub-block or marker over and over, then its scan is still within the bound (time proportional to the bytes)', async () => {
    const tenMb = 10 * 1024 * 1024;
    const fill = (piece: Buffer) => Buffer.alloc(tenMb - (tenMb % piece.length), piece);
    const png = seeds.find((s) => s.name === 'PNG')!.bytes;
    const cases: Array<[string, ImageType, Buffer]> = [
      ['JPEG: stuffed 0xFF 0x00 pairs', 'image/jpeg', Buffer.concat([seeds[0]!.bytes.subarray(0, -2), fill(Buffer.from([0xff, 0x00]))])],
      ['JPEG: fill bytes 0xFF', 'image/jpeg', Buffer.concat([Buffer.from([0xff, 0xd8]), fill(Buffer.from([0xff]))])],
      ['JPEG: EOI and SOI repeated', 'image/jpeg', Buffer.concat([seeds[0]!.bytes, fill(Buffer.from([0xff, 0xd9, 0xff, 0xd8]))])],
      ['JPEG: empty COM segments', 'image/jpeg', Buffer.concat([Buffer.from([0xff, 0xd8]), fill(Buffer.from([0xff, 0xfe, 0x00, 0x02]))])],
      ['PNG: empty chunks', 'image/png', Buffer.concat([png.subarray(0, 33), fill(pngChunk('tEXt', Buffer.alloc(0)))])],
      ['GIF: one-byte sub-blocks', 'image/gif', Buffer.concat([gifWithHugeFrame(4, 4).subarray(0, -1), Buffer.from([0x21, 0xfe]), fill(Buffer.from([1, 0x41]))])],
      ['GIF: image descriptors', 'image/gif', Buffer.concat([gifWithHugeFrame(4, 4).subarray(0, 19), fill(Buffer.from([0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 0]))])],
      ['WebP: empty ANMF frames', 'image/webp', Buffer.concat([Buffer.from('RIFF\xff\xff\xff\xffWEBP', 'latin1'), fill(Buffer.from('ANMF\x10\x00\x00\x00' + '\x00'.repeat(16), 'latin1'))])],
    ];
    for (const [name, type, bytes] of cases) {
      const started = performance.now();
      try {
        scanImageHeader(bytes, type);
      } catch (err) {
        if (!(err instanceof MalformedImage)) throw err;
      }
      const took = performance.now() - started;
      // About 10 MB: 50-300 ms on the 2-core machine; the bound is generous for a loaded machine and far from what a
      // scan that went back over what it read (quadratic: hours at this size) would take.
      expect({ name, withinBound: took < 5_000 }).toEqual({ name, withinBound: true });
    }
  });
});
