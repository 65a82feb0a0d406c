import type { AudioType } from './media-names.js';

/**
 * Tags that can name people or places are removed from uploaded audio where that needs no re-encoding
 * (DESIGN.md section 8; docs/modules/media.md lists what remains):
 * - MP3: ID3v2 tags at the start, ID3v1 (and its enhanced form) and APEv2 at the end;
 * - WAV: every chunk but the format, fact and sample data (`LIST/INFO`, `id3 `, `bext` with its originator);
 * - M4A: the `udta` and `meta` boxes of the movie and its tracks (title, artist, Apple's `©xyz` location) become
 *   `free` boxes of the same size with zeroed contents, so no sample offset moves.
 * OGG, WebM and raw AAC are stored as they came: their comment blocks sit inside checksummed pages or an EBML tree
 * that cannot be rewritten safely without a full parser.
 * Malformed structure is left as it is past the point where it stops making sense: a decoder reads what we store
 * exactly as it read the upload.
 */
export interface ProcessedAudio {
  kind: 'audio';
  type: AudioType;
  body: Buffer;
}

export function stripAudioTags(input: Buffer, type: AudioType): ProcessedAudio {
  const body = type === 'audio/mpeg' ? stripMp3(input) : type === 'audio/wav' ? stripWav(input) : type === 'audio/mp4' ? blankMp4Metadata(input) : input;
  return { kind: 'audio', type, body };
}

const latin1 = (buf: Buffer, start: number, end: number) => buf.subarray(start, end).toString('latin1');
const syncsafe = (buf: Buffer, at: number) => ((buf[at]! & 0x7f) << 21) | ((buf[at + 1]! & 0x7f) << 14) | ((buf[at + 2]! & 0x7f) << 7) | (buf[at + 3]! & 0x7f);

function stripMp3(input: Buffer): Buffer {
  let start = 0;
  // Some writers put several ID3v2 tags one after another.
  while (input.length - start >= 10 && latin1(input, start, start + 3) === 'ID3') {
    const hasFooter = (input[start + 5]! & 0x10) !== 0;
    const next = start + 10 + syncsafe(input, start + 6) + (hasFooter ? 10 : 0);
    if (next > input.length) break;
    start = next;
  }
  let end = input.length;
  for (let changed = true; changed; ) {
    changed = false;
    if (end - start >= 128 && latin1(input, end - 128, end - 125) === 'TAG') {
      end -= 128;
      changed = true;
      if (end - start >= 227 && latin1(input, end - 227, end - 223) === 'TAG+') end -= 227;
    }
    if (end - start >= 32 && latin1(input, end - 32, end - 24) === 'APETAGEX') {
      const size = input.readUInt32LE(end - 20); // includes the footer, not the header
      const hasHeader = (input.readUInt32LE(end - 12) & 0x80000000) !== 0;
      const tagStart = end - size - (hasHeader ? 32 : 0);
      if (tagStart >= start) {
        end = tagStart;
        changed = true;
      }
    }
  }
  return start === 0 && end === input.length ? input : Buffer.from(input.subarray(start, end));
}

const WAV_KEPT_CHUNKS = new Set(['fmt ', 'fact', 'data']);

function stripWav(input: Buffer): Buffer {
  const kept: Buffer[] = [input.subarray(0, 12)];
  let at = 12;
  while (at + 8 <= input.length) {
    const id = latin1(input, at, at + 4);
    const size = input.readUInt32LE(at + 4);
    // A streaming writer may leave the data size unknown (0 or 0xFFFFFFFF): the data runs to the end.
    const end = Math.min(input.length, at + 8 + size + (size % 2));
    if (WAV_KEPT_CHUNKS.has(id)) kept.push(input.subarray(at, end));
    at = end;
    if (id === 'data' && end >= input.length) break;
  }
  if (at < input.length) kept.push(input.subarray(at));
  const out = Buffer.concat(kept);
  out.writeUInt32LE(out.length - 8, 4);
  return out;
}

const MP4_CONTAINERS = new Set(['moov', 'trak']);
const MP4_BLANKED = new Set(['udta', 'meta']);

function blankMp4Metadata(input: Buffer): Buffer {
  const out = Buffer.from(input);
  walkMp4(out, 0, out.length, 0);
  return out;
}

function walkMp4(buf: Buffer, from: number, to: number, depth: number): void {
  let at = from;
  while (at + 8 <= to && depth < 4) {
    let size = buf.readUInt32BE(at);
    let header = 8;
    if (size === 1) {
      if (at + 16 > to) return;
      const large = buf.readBigUInt64BE(at + 8);
      if (large > BigInt(to - at)) return;
      size = Number(large);
      header = 16;
    } else if (size === 0) size = to - at;
    if (size < header || at + size > to) return;
    const type = latin1(buf, at + 4, at + 8);
    if (depth > 0 && MP4_BLANKED.has(type)) {
      buf.write('free', at + 4, 'latin1');
      buf.fill(0, at + header, at + size);
    } else if (MP4_CONTAINERS.has(type)) walkMp4(buf, at + header, at + size, depth + 1);
    at += size;
  }
}
