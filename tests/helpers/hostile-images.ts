import zlib from 'node:zlib';
import sharp from 'sharp';

/**
 * Tiny images whose headers lie about their size (issue 31, "Tiny images that cost a gigabyte"), made here byte by
 * byte so that what each one claims is known exactly. Each is under 600 bytes; decoded as the old pipeline did, each
 * grew the service by 0.6 to 1.2 GB. The benchmark (`npm run bench -- media`) floods the service with them.
 */

/** A GIF whose logical screen is 8 x 8 but whose one frame (image descriptor) says `width` x `height`. */
export function gifWithHugeFrame(width = 10_000, height = 10_000): Buffer {
  const screen = Buffer.from([...Buffer.from('GIF89a', 'latin1'), 8, 0, 8, 0, 0x80, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff]);
  const control = Buffer.from([0x21, 0xf9, 4, 0, 0, 0, 0, 0]);
  const descriptor = Buffer.alloc(10);
  descriptor[0] = 0x2c;
  descriptor.writeUInt16LE(width, 5);
  descriptor.writeUInt16LE(height, 7);
  // LZW, minimum code size 2: clear (4), one pixel of colour 0, end of information (5), 3-bit codes packed LSB first.
  const pixels = Buffer.from([2, 2, 0x44, 0x01, 0]);
  return Buffer.concat([screen, control, descriptor, pixels, Buffer.from([0x3b])]);
}

/** A progressive JPEG of 16 x 16 whose frame header (SOF2) is rewritten to say `width` x `height`. */
export async function progressiveJpegClaiming(width = 10_000, height = 10_000): Promise<Buffer> {
  const jpeg = Buffer.from(await sharp({ create: { width: 16, height: 16, channels: 3, background: '#808080' } }).jpeg({ progressive: true, quality: 50 }).toBuffer());
  const sof = findMarker(jpeg, 0xc2);
  // SOFn: FF C2, length (2), precision (1), height (2), width (2).
  jpeg.writeUInt16BE(height, sof + 5);
  jpeg.writeUInt16BE(width, sof + 7);
  return jpeg;
}

/**
 * An interlaced (Adam7) palette PNG whose header says `width` x `height`, with a few bytes of image data: 1,048,592
 * x 16 is 16.8 megapixels, under any pixel limit, but a row of a million pixels.
 */
export function interlacedPalettePngClaiming(width = 1_048_592, height = 16): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 3; // colour type: palette
  ihdr[12] = 1; // Adam7 interlace
  const palette = Buffer.from([0, 0, 0, 255, 255, 255]);
  const data = zlib.deflateSync(Buffer.alloc(64));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('PLTE', palette),
    pngChunk('IDAT', data),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A lossless WebP of 16 x 16 whose VP8L header is rewritten to say `width` x `height` (each at most 16,384). */
export async function webpClaiming(width: number, height: number): Promise<Buffer> {
  const webp = Buffer.from(await sharp({ create: { width: 16, height: 16, channels: 3, background: '#808080' } }).webp({ lossless: true }).toBuffer());
  const at = webp.indexOf('VP8L', 12, 'latin1');
  if (at < 0) throw new Error('no VP8L chunk');
  // Signature 0x2f, then 14 bits of width - 1, 14 bits of height - 1, alpha and version bits, little-endian.
  const bits = webp.readUInt32LE(at + 9);
  webp.writeUInt32LE(((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14) | (bits & 0xf0000000), at + 9);
  return webp;
}

/** The three hostile files of issue 31, by name. */
export async function hostileImages(): Promise<Array<{ name: string; bytes: Buffer; type: 'image/gif' | 'image/jpeg' | 'image/png' }>> {
  return [
    { name: 'GIF, 8 x 8 screen, one frame of 10,000 x 10,000', bytes: gifWithHugeFrame(), type: 'image/gif' },
    { name: 'progressive JPEG claiming 10,000 x 10,000', bytes: await progressiveJpegClaiming(), type: 'image/jpeg' },
    { name: 'interlaced palette PNG of 1,048,592 x 16', bytes: interlacedPalettePngClaiming(), type: 'image/png' },
  ];
}

export function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), data])));
  return Buffer.concat([head, data, crc]);
}

function findMarker(jpeg: Buffer, marker: number): number {
  for (let i = 2; i + 4 <= jpeg.length; ) {
    if (jpeg[i] !== 0xff) throw new Error('not at a marker');
    if (jpeg[i + 1] === marker) return i;
    i += 2 + jpeg.readUInt16BE(i + 2);
  }
  throw new Error(`no marker ${marker.toString(16)}`);
}
