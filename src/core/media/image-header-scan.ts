import type { ImageType } from './media-names.js';

/**
 * What an uploaded image's own headers say it will cost to decode, read from its bytes before any decoder runs
 * (issue 31). libvips' pixel limit (`limitInputPixels`) sees only the size the format's first header gives: a GIF
 * whose 8 x 8 screen holds a 10,000 x 10,000 frame passes it, and the GIF decoder then grows its canvas to the
 * frame. So every size any header declares is read here:
 * - JPEG: every frame header (SOF0-SOF15 but DHT, JPG and DAC), also in images appended after the first one's end
 *   (a multi-picture file or a gain map); whether any is progressive (a progressive JPEG keeps its whole
 *   coefficient array in memory, whatever scale it is decoded at).
 * - PNG: IHDR, and each APNG frame control chunk (fcTL).
 * - GIF: the logical screen and every image descriptor, with its offset (a frame past the screen widens the canvas).
 * - WebP: the VP8X canvas, every ANMF frame with its offset, and each VP8 / VP8L bitstream header.
 *
 * This reads bytes a stranger sent: every loop moves forward by at least one byte and nothing is allocated per
 * byte, so it finishes in time proportional to the input whatever the sizes in it say
 * (tests/unit/image-header-scan.test.ts fuzzes it). A size field that points past the end stops the walk: the
 * decoder meets the same end.
 */
export interface ImageHeader {
  /** The box every declared frame and canvas fits in, offsets included: the largest picture a decoder may make. */
  width: number;
  height: number;
  /**
   * Frames a decoder makes pages of (GIF image descriptors, WebP ANMF chunks); 1 for a still image. An APNG's frames
   * are in the box but counted as one: libvips decodes only its default image.
   */
  frames: number;
  /** A progressive (or otherwise multi-scan) JPEG: its decoder holds every coefficient of the image at once. */
  progressive: boolean;
}

/** The bytes do not make an image of their type (no frame header with a size, a header cut short). */
export class MalformedImage extends Error {}

export function scanImageHeader(bytes: Buffer, type: ImageType): ImageHeader {
  const box = new Box();
  switch (type) {
    case 'image/jpeg':
      return scanJpeg(bytes, box);
    case 'image/png':
      return scanPng(bytes, box);
    case 'image/gif':
      return scanGif(bytes, box);
    case 'image/webp':
      return scanWebp(bytes, box);
  }
}

/** The bounding box of everything declared, and how many frames were. */
class Box {
  width = 0;
  height = 0;
  frames = 0;
  progressive = false;
  /** A picture of `width` x `height` placed at (`left`, `top`); one with a side of zero has no pixels to decode. */
  add(width: number, height: number, left = 0, top = 0): void {
    if (width === 0 || height === 0) return;
    this.width = Math.max(this.width, left + width);
    this.height = Math.max(this.height, top + height);
  }
  result(): ImageHeader {
    if (this.width === 0) throw new MalformedImage('no image header with a size');
    return { width: this.width, height: this.height, frames: Math.max(1, this.frames), progressive: this.progressive };
  }
}

const SOI = 0xd8;
const EOI = 0xd9;
/** SOF0-SOF15 are 0xC0-0xCF, except DHT (C4), JPG (C8) and DAC (CC). */
const isFrameHeader = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
/** Markers with no length: SOI, EOI, RST0-7, TEM. */
const isStandalone = (marker: number) => marker === SOI || marker === EOI || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01;

function scanJpeg(bytes: Buffer, box: Box): ImageHeader {
  const length = bytes.length;
  let at = 0;
  while (at < length) {
    // Like libjpeg, skip anything up to the next 0xFF, then fill bytes (0xFF 0xFF ...), to the marker code. A loop
    // over the bytes rather than indexOf: a file of 0xFF 0x00 pairs would otherwise make millions of native calls.
    while (at < length && bytes[at] !== 0xff) at++;
    while (at < length && bytes[at] === 0xff) at++;
    if (at >= length) break;
    const marker = bytes[at]!;
    at++;
    // A stuffed 0xFF in entropy-coded data; a marker with no length (SOI, EOI, RSTn, TEM). After EOI another image
    // may follow (a multi-picture file, an Ultra HDR gain map): its markers are read like the first one's.
    if (marker === 0x00 || isStandalone(marker)) continue;
    if (at + 2 > length) break;
    const segment = bytes.readUInt16BE(at);
    if (segment < 2) throw new MalformedImage('a segment shorter than its length field');
    if (isFrameHeader(marker)) {
      if (at + 7 > length) throw new MalformedImage('a frame header cut short');
      box.add(bytes.readUInt16BE(at + 5), bytes.readUInt16BE(at + 3));
      box.frames = 1;
      // SOF2, SOF6, SOF10, SOF14 are progressive; the hierarchical and lossless ones (SOF3, 5, 7, ...) libjpeg
      // does not decode, and counting them as progressive only routes them to the single-decode path.
      if (marker !== 0xc0 && marker !== 0xc1 && marker !== 0xc9) box.progressive = true;
    }
    // After SOS's header the entropy-coded data follows: the search for the next 0xFF above walks through it.
    at += segment;
  }
  return box.result();
}

const PNG_SIGNATURE_LENGTH = 8;
/** A chunk type or FourCC as the big-endian number its four bytes make (compared without making a string). */
const fourcc = (name: string) => Buffer.from(name, 'latin1').readUInt32BE(0);
const IHDR = fourcc('IHDR');
const fcTL = fourcc('fcTL');
const IEND = fourcc('IEND');
const VP8X = fourcc('VP8X');
const ANMF = fourcc('ANMF');
const VP8 = fourcc('VP8 ');
const VP8L = fourcc('VP8L');

function scanPng(bytes: Buffer, box: Box): ImageHeader {
  let at = PNG_SIGNATURE_LENGTH;
  let first = true;
  while (at + 8 <= bytes.length) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.readUInt32BE(at + 4);
    const data = at + 8;
    if (first && type !== IHDR) throw new MalformedImage('PNG without IHDR first');
    if (type === IHDR || type === fcTL) {
      // IHDR: width, height. fcTL (an APNG frame): sequence number, width, height, x offset, y offset.
      const fields = type === IHDR ? data : data + 4;
      const end = type === IHDR ? fields + 8 : fields + 16;
      if (end > bytes.length || length < end - data) throw new MalformedImage('IHDR or fcTL cut short');
      if (type === IHDR) box.add(bytes.readUInt32BE(fields), bytes.readUInt32BE(fields + 4));
      else box.add(bytes.readUInt32BE(fields), bytes.readUInt32BE(fields + 4), bytes.readUInt32BE(fields + 8), bytes.readUInt32BE(fields + 12));
    }
    if (type === IEND) break;
    first = false;
    // Length, type, data, CRC: at least 12 bytes forward.
    at = data + length + 4;
  }
  if (first) throw new MalformedImage('PNG without IHDR');
  return box.result();
}

function scanGif(bytes: Buffer, box: Box): ImageHeader {
  // Header (6), logical screen descriptor (7): width, height, flags, background, aspect.
  if (bytes.length < 13) throw new MalformedImage('GIF header cut short');
  box.add(bytes.readUInt16LE(6), bytes.readUInt16LE(8));
  let at = 13 + colourTableLength(bytes[10]!);
  let frames = 0;
  while (at < bytes.length) {
    const block = bytes[at]!;
    if (block === 0x3b) break; // trailer
    if (block === 0x21) {
      at = skipSubBlocks(bytes, at + 2); // extension: introducer, label, sub-blocks
    } else if (block === 0x2c) {
      // Image descriptor: left, top, width, height, flags; then an optional colour table, the LZW code size, data.
      if (at + 10 > bytes.length) break;
      box.add(bytes.readUInt16LE(at + 5), bytes.readUInt16LE(at + 7), bytes.readUInt16LE(at + 1), bytes.readUInt16LE(at + 3));
      frames++;
      at = skipSubBlocks(bytes, at + 10 + colourTableLength(bytes[at + 9]!) + 1);
    } else break; // not a GIF block: the decoder stops here too
  }
  if (frames === 0) throw new MalformedImage('GIF without a frame');
  box.frames = frames;
  return box.result();
}

/** A GIF colour table's length from the flags byte that announces it (bit 7: present; bits 0-2: 2^(n+1) entries). */
const colourTableLength = (flags: number) => (flags & 0x80 ? 3 * 2 ** ((flags & 0x07) + 1) : 0);

/** Past a chain of GIF data sub-blocks (a length byte, then that many bytes; a length of 0 ends it). */
function skipSubBlocks(bytes: Buffer, at: number): number {
  while (at < bytes.length) {
    const length = bytes[at]!;
    at += 1 + length;
    if (length === 0) break;
  }
  return at;
}

function scanWebp(bytes: Buffer, box: Box): ImageHeader {
  // RIFF, its size, WEBP; then chunks: a FourCC, a little-endian size, the data, a pad byte to an even size.
  const end = Math.min(bytes.length, bytes.length >= 8 ? 8 + bytes.readUInt32LE(4) : 0);
  let frames = 0;
  let at = 12;
  while (at + 8 <= end) {
    const chunk = bytes.readUInt32BE(at);
    const size = bytes.readUInt32LE(at + 4);
    const data = at + 8;
    if (chunk === VP8X) {
      // Flags (4), canvas width - 1 (24 bits), canvas height - 1 (24 bits).
      if (data + 10 > bytes.length) throw new MalformedImage('VP8X cut short');
      box.add(bytes.readUIntLE(data + 4, 3) + 1, bytes.readUIntLE(data + 7, 3) + 1);
    } else if (chunk === ANMF) {
      // X / 2, Y / 2, width - 1, height - 1 (24 bits each), duration, flags; then the frame's own chunks.
      if (data + 16 > bytes.length) throw new MalformedImage('ANMF cut short');
      box.add(bytes.readUIntLE(data + 6, 3) + 1, bytes.readUIntLE(data + 9, 3) + 1, 2 * bytes.readUIntLE(data, 3), 2 * bytes.readUIntLE(data + 3, 3));
      frames++;
      let inner = data + 16;
      const innerEnd = Math.min(end, data + size);
      while (inner + 8 <= innerEnd) {
        const innerSize = bytes.readUInt32LE(inner + 4);
        addBitstream(bytes, bytes.readUInt32BE(inner), inner + 8, box);
        inner += 8 + innerSize + (innerSize & 1);
      }
    } else addBitstream(bytes, chunk, data, box);
    // At least 8 bytes forward.
    at = data + size + (size & 1);
  }
  box.frames = Math.max(1, frames);
  return box.result();
}

/** The size a VP8 (lossy) or VP8L (lossless) bitstream's own header gives; other chunks say nothing of size. */
function addBitstream(bytes: Buffer, chunk: number, data: number, box: Box): void {
  if (chunk === VP8) {
    // Frame tag (3), start code 9D 01 2A, then 14-bit width and height (2 scale bits above each).
    if (data + 10 > bytes.length) throw new MalformedImage('VP8 header cut short');
    box.add(bytes.readUInt16LE(data + 6) & 0x3fff, bytes.readUInt16LE(data + 8) & 0x3fff);
  } else if (chunk === VP8L) {
    // Signature 0x2F, then 14 bits of width - 1 and 14 bits of height - 1, little-endian.
    if (data + 5 > bytes.length) throw new MalformedImage('VP8L header cut short');
    const bits = bytes.readUInt32LE(data + 1);
    box.add((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
}
