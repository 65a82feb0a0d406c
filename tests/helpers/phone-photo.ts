import zlib from 'node:zlib';
import sharp from 'sharp';

/**
 * Upload fixtures made here, byte by byte, so that what a test looks for is known exactly.
 *
 * `phonePhoto()` is what a phone writes: a JPEG whose EXIF has the camera's make, model and serial number, the GPS
 * position where it was taken and orientation 6 (the sensor's pixels are landscape, the photo is portrait), plus an
 * XMP packet that repeats the position and a JPEG comment. Its stored pixels are 60 x 40: the left half red, the
 * right half blue, so an image shown upright (rotated 90 degrees clockwise) is 40 x 60 with red on top.
 */
export const PHOTO_SERIAL = 'SN-PHONE-98765';
export const PHOTO_MAKE = 'PhoneMaker';
export const PHOTO_XMP_MARK = 'http://ns.adobe.com/xap/1.0/';
export const PHOTO_COMMENT = 'taken at 12 Secret Lane';
export const PHOTO_SIZE = { stored: { width: 60, height: 40 }, upright: { width: 40, height: 60 } };

export async function phonePhoto(): Promise<Buffer> {
  const half = (colour: string) => sharp({ create: { width: 30, height: 40, channels: 3, background: colour } }).png().toBuffer();
  const pixels = await sharp({ create: { width: 60, height: 40, channels: 3, background: '#000' } })
    .composite([
      { input: await half('#ff0000'), left: 0, top: 0 },
      { input: await half('#0000ff'), left: 30, top: 0 },
    ])
    .jpeg({ quality: 95 })
    .toBuffer();
  const exif = segment(0xe1, Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff()]));
  const xmp = segment(
    0xe1,
    Buffer.from(
      `${PHOTO_XMP_MARK}\0<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">` +
        `<rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="55,57.2N" exif:GPSLongitude="3,11.0W"/></rdf:RDF></x:xmpmeta>`,
      'latin1',
    ),
  );
  const comment = segment(0xfe, Buffer.from(PHOTO_COMMENT, 'latin1'));
  // Right after SOI, where cameras write them (before sharp's own JFIF APP0 is fine for every decoder).
  return Buffer.concat([pixels.subarray(0, 2), exif, xmp, comment, pixels.subarray(2)]);
}

function segment(marker: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head[0] = 0xff;
  head[1] = marker;
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

type Entry = { tag: number; type: 2 | 3 | 4 | 5; count: number; value: Buffer };
const ascii = (tag: number, s: string): Entry => ({ tag, type: 2, count: s.length + 1, value: Buffer.from(s + '\0', 'latin1') });
const short = (tag: number, n: number): Entry => ({ tag, type: 3, count: 1, value: Buffer.from([n >> 8, n & 0xff, 0, 0]) });
const long = (tag: number, n: number): Entry => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return { tag, type: 4, count: 1, value: b };
};
const rationals = (tag: number, pairs: Array<[number, number]>): Entry => {
  const b = Buffer.alloc(8 * pairs.length);
  pairs.forEach(([n, d], i) => {
    b.writeUInt32BE(n, i * 8);
    b.writeUInt32BE(d, i * 8 + 4);
  });
  return { tag, type: 5, count: pairs.length, value: b };
};

/** A big-endian TIFF block: IFD0 (make, model, orientation, pointers), the Exif IFD (serial), the GPS IFD. */
function tiff(): Buffer {
  const gps: Entry[] = [
    ascii(0x0001, 'N'),
    rationals(0x0002, [[55, 1], [57, 1], [1234, 100]]),
    ascii(0x0003, 'W'),
    rationals(0x0004, [[3, 1], [11, 1], [0, 1]]),
  ];
  const exifIfd: Entry[] = [ascii(0xa431, PHOTO_SERIAL)];
  // Offsets are from the start of the TIFF header; IFD0 starts at 8.
  const ifdSize = (entries: Entry[]) => 2 + entries.length * 12 + 4 + entries.reduce((n, e) => n + (e.value.length > 4 ? e.value.length : 0), 0);
  const ifd0Entries = (exifAt: number, gpsAt: number): Entry[] => [
    ascii(0x010f, PHOTO_MAKE),
    ascii(0x0110, 'Phone 12'),
    short(0x0112, 6),
    long(0x8769, exifAt),
    long(0x8825, gpsAt),
  ];
  const ifd0Len = ifdSize(ifd0Entries(0, 0));
  const exifAt = 8 + ifd0Len;
  const gpsAt = exifAt + ifdSize(exifIfd);
  const header = Buffer.from([0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8]);
  return Buffer.concat([header, ifd(ifd0Entries(exifAt, gpsAt), 8), ifd(exifIfd, exifAt), ifd(gps, gpsAt)]);
}

function ifd(entries: Entry[], at: number): Buffer {
  const fixed = 2 + entries.length * 12 + 4;
  const table = Buffer.alloc(fixed);
  table.writeUInt16BE(entries.length, 0);
  const extra: Buffer[] = [];
  let extraAt = at + fixed;
  entries.forEach((e, i) => {
    const o = 2 + i * 12;
    table.writeUInt16BE(e.tag, o);
    table.writeUInt16BE(e.type, o + 2);
    table.writeUInt32BE(e.count, o + 4);
    if (e.value.length <= 4) e.value.copy(table, o + 8);
    else {
      table.writeUInt32BE(extraAt, o + 8);
      extra.push(e.value);
      extraAt += e.value.length;
    }
  });
  return Buffer.concat([table, ...extra]);
}

/** A valid 1 KB-class PNG whose header claims `width` x `height` pixels (a decompression bomb's shape). */
export async function pngClaiming(width: number, height: number): Promise<Buffer> {
  const png = Buffer.from(await sharp({ create: { width: 8, height: 8, channels: 3, background: '#fff' } }).png().toBuffer());
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  // IHDR's CRC covers its type and data (bytes 12..29), stored at 29.
  png.writeUInt32BE(zlib.crc32(png.subarray(12, 29)), 29);
  return png;
}
