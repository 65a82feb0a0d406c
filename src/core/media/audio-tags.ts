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
 *
 * The bytes are a stranger's, and so is every size field in them: each loop below consumes at least 8 bytes of the
 * input per turn whatever a size says (0, 2^32 - 1, past the end), so a call does work proportional to the input
 * (tests/unit/parsers-fuzz.test.ts proves it on random and mutated files). The turns are also counted against a cap,
 * so that a future loop which forgets to advance ends in AudioStructureError (a refused upload) instead of running
 * forever; the uploads run this in a worker with a deadline besides (audio-work.ts).
 */
export interface ProcessedAudio {
  kind: 'audio';
  type: AudioType;
  body: Buffer;
}

/** A file whose structure made a parser loop more turns than its size allows: refused, never looped on. */
export class AudioStructureError extends Error {}

/** Loop turns one call made; the cap is far above what any input can need (at most one turn per 8 bytes). */
export interface ParseWork {
  steps: number;
  readonly cap: number;
}

export const parseWorkFor = (input: Buffer): ParseWork => ({ steps: 0, cap: input.length + 64 });

function step(work: ParseWork): void {
  if (++work.steps > work.cap) throw new AudioStructureError(`audio structure needs more than ${work.cap} parse steps`);
}

/** `work` is the caller's to read afterwards (the fuzz tests assert on it); by default a fresh one. */
export function stripAudioTags(input: Buffer, type: AudioType, work: ParseWork = parseWorkFor(input)): ProcessedAudio {
  const body = type === 'audio/mpeg' ? stripMp3(input, work) : type === 'audio/wav' ? stripWav(input, work) : type === 'audio/mp4' ? blankMp4Metadata(input, work) : input;
  return { kind: 'audio', type, body };
}

const latin1 = (buf: Buffer, start: number, end: number) => buf.subarray(start, end).toString('latin1');
const syncsafe = (buf: Buffer, at: number) => ((buf[at]! & 0x7f) << 21) | ((buf[at + 1]! & 0x7f) << 14) | ((buf[at + 2]! & 0x7f) << 7) | (buf[at + 3]! & 0x7f);

/** An APEv2 footer's size counts the items and the footer itself, so anything below the footer's 32 bytes is a lie. */
const APE_FOOTER_BYTES = 32;

function stripMp3(input: Buffer, work: ParseWork): Buffer {
  let start = 0;
  // Some writers put several ID3v2 tags one after another. Each turn moves past at least a 10-byte header.
  while (input.length - start >= 10 && latin1(input, start, start + 3) === 'ID3') {
    step(work);
    const hasFooter = (input[start + 5]! & 0x10) !== 0;
    const next = start + 10 + syncsafe(input, start + 6) + (hasFooter ? 10 : 0);
    if (next > input.length) break;
    start = next;
  }
  let end = input.length;
  // Each turn that goes round again has cut at least 32 bytes off the end.
  for (let changed = true; changed; ) {
    step(work);
    changed = false;
    if (end - start >= 128 && latin1(input, end - 128, end - 125) === 'TAG') {
      end -= 128;
      changed = true;
      if (end - start >= 227 && latin1(input, end - 227, end - 223) === 'TAG+') end -= 227;
    }
    if (end - start >= APE_FOOTER_BYTES && latin1(input, end - 32, end - 24) === 'APETAGEX') {
      const size = input.readUInt32LE(end - 20); // includes the footer, not the header
      const hasHeader = (input.readUInt32LE(end - 12) & 0x80000000) !== 0;
      const tagStart = end - size - (hasHeader ? 32 : 0);
      // A size of 0 once left `end` where it was and went round forever (issue 31): a tag that does not cover its
      // own footer is malformed, and stays.
      if (size >= APE_FOOTER_BYTES && tagStart >= start) {
        end = tagStart;
        changed = true;
      }
    }
  }
  return start === 0 && end === input.length ? input : Buffer.from(input.subarray(start, end));
}

const WAV_KEPT_CHUNKS = new Set(['fmt ', 'fact', 'data']);

function stripWav(input: Buffer, work: ParseWork): Buffer {
  if (input.length < 12) return input;
  const kept: Buffer[] = [input.subarray(0, 12)];
  let at = 12;
  // Each turn moves past at least a chunk's 8-byte header, whatever its size says.
  while (at + 8 <= input.length) {
    step(work);
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

function blankMp4Metadata(input: Buffer, work: ParseWork): Buffer {
  const out = Buffer.from(input);
  walkMp4(out, 0, out.length, 0, work);
  return out;
}

/** Boxes inside `from..to`; each turn moves past a whole box of at least 8 bytes, and a box never leaves its parent. */
function walkMp4(buf: Buffer, from: number, to: number, depth: number, work: ParseWork): void {
  let at = from;
  while (at + 8 <= to && depth < 4) {
    step(work);
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
    } else if (MP4_CONTAINERS.has(type)) walkMp4(buf, at + header, at + size, depth + 1, work);
    at += size;
  }
}
