/**
 * Audio files for the tests of the hand-written audio parsers (src/core/media/audio-tags.ts): the file of issue 31
 * that looped the tag stripper forever, and well-formed tagged files whose size fields the fuzz tests make lie.
 * Each seed lists the offsets of its size fields, so that mutations hit them rather than only random bytes.
 */

/** One MPEG-1 Layer III frame header (128 kbit/s, 44.1 kHz). */
const MPEG_FRAME_HEADER = [0xff, 0xfb, 0x90, 0x64];

/**
 * Issue 31's 52 bytes: an MPEG frame header, 16 zero bytes, and an APEv2 footer (`APETAGEX`, version 2000) whose
 * size field is 0. The size counts the footer itself, so 0 is a lie; the stripper once took it as "a tag of no bytes
 * ending here", removed nothing, and went round again, forever.
 */
export function apeSizeZeroMp3(): Buffer {
  const footer = Buffer.alloc(32);
  footer.write('APETAGEX', 0, 'latin1');
  footer.writeUInt32LE(2000, 8);
  footer.writeUInt32LE(0, 12);
  return Buffer.concat([Buffer.from(MPEG_FRAME_HEADER), Buffer.alloc(16), footer]);
}

export interface AudioSeed {
  name: string;
  type: 'audio/mpeg' | 'audio/wav' | 'audio/mp4';
  bytes: Buffer;
  /** Where the seed's size fields are, and how each is written. */
  sizeFields: Array<{ at: number; encoding: 'u32le' | 'u32be' | 'syncsafe' }>;
}

/** `n` silent MPEG frames of 417 bytes. */
function mp3Frames(n: number): Buffer {
  const frame = Buffer.alloc(417);
  frame.set(MPEG_FRAME_HEADER);
  return Buffer.concat(Array.from({ length: n }, () => frame));
}

function syncsafe(size: number): number[] {
  return [(size >> 21) & 0x7f, (size >> 14) & 0x7f, (size >> 7) & 0x7f, size & 0x7f];
}

function id3v2(text: string): Buffer {
  const body = Buffer.from(`TIT2\0\0\0${String.fromCharCode(text.length + 1)}\0\0\0${text}`, 'latin1');
  return Buffer.concat([Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, ...syncsafe(body.length)]), body]);
}

function apeTag(value: string, withHeader: boolean): Buffer {
  const item = Buffer.concat([Buffer.alloc(8), Buffer.from('Location\0', 'latin1'), Buffer.from(value, 'latin1')]);
  item.writeUInt32LE(value.length, 0);
  const part = (isHeader: boolean) => {
    const b = Buffer.alloc(32);
    b.write('APETAGEX', 0, 'latin1');
    b.writeUInt32LE(2000, 8);
    b.writeUInt32LE(item.length + 32, 12);
    b.writeUInt32LE(1, 16);
    b.writeUInt32LE(((withHeader ? 0x80000000 : 0) | (isHeader ? 0x20000000 : 0)) >>> 0, 20);
    return b;
  };
  return Buffer.concat([...(withHeader ? [part(true)] : []), item, part(false)]);
}

function id3v1(title: string): Buffer {
  const tag = Buffer.alloc(128);
  tag.write('TAG', 0, 'latin1');
  tag.write(title, 3, 'latin1');
  return tag;
}

function riffChunk(id: string, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(id, 0, 'latin1');
  head.writeUInt32LE(payload.length, 4);
  return Buffer.concat([head, payload, payload.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

function box(type: string, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(payload.length + 8, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, payload]);
}

/** Every offset in `buf` where `marker` starts. */
function offsetsOf(buf: Buffer, marker: string): number[] {
  const found: number[] = [];
  for (let at = buf.indexOf(marker, 0, 'latin1'); at >= 0; at = buf.indexOf(marker, at + 1, 'latin1')) found.push(at);
  return found;
}

function mp3Seed(): AudioSeed {
  const bytes = Buffer.concat([id3v2('Recorded at 12 Secret Lane'), id3v2('again'), mp3Frames(3), apeTag('Secret Lane', true), apeTag('Lane', false), id3v1('12 Secret Lane')]);
  const apeSizes = offsetsOf(bytes, 'APETAGEX').map((at) => ({ at: at + 12, encoding: 'u32le' as const }));
  const id3Sizes = offsetsOf(bytes, 'ID3').map((at) => ({ at: at + 6, encoding: 'syncsafe' as const }));
  return { name: 'MP3 with ID3v2 twice, APEv2 with and without header, ID3v1', type: 'audio/mpeg', bytes, sizeFields: [...apeSizes, ...id3Sizes] };
}

function wavSeed(): AudioSeed {
  const fmt = riffChunk('fmt ', Buffer.from([1, 0, 1, 0, 0x40, 0x1f, 0, 0, 0x40, 0x1f, 0, 0, 1, 0, 8, 0]));
  const info = riffChunk('LIST', Buffer.concat([Buffer.from('INFO'), riffChunk('INAM', Buffer.from('Kitchen at 12 Secret Lane\0'))]));
  const data = riffChunk('data', Buffer.alloc(64, 128));
  const bext = riffChunk('bext', Buffer.from('Originator: Alice\0'));
  const body = Buffer.concat([Buffer.from('WAVE'), fmt, info, data, bext]);
  const bytes = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), body]);
  bytes.writeUInt32LE(bytes.length - 8, 4);
  const chunkSizes = ['RIFF', 'fmt ', 'LIST', 'INAM', 'data', 'bext'].flatMap((id) => offsetsOf(bytes, id).map((at) => ({ at: at + 4, encoding: 'u32le' as const })));
  return { name: 'WAV with LIST/INFO and bext', type: 'audio/wav', bytes, sizeFields: chunkSizes };
}

function m4aSeed(): AudioSeed {
  const udta = box('udta', box('\xa9xyz', Buffer.from('+51.5-000.1/')));
  const meta = box('meta', Buffer.concat([Buffer.alloc(4), box('ilst', box('\xa9nam', Buffer.from('Secret Lane')))]));
  const trak = box('trak', Buffer.concat([box('tkhd', Buffer.alloc(20)), udta]));
  const moov = box('moov', Buffer.concat([box('mvhd', Buffer.alloc(20)), trak, meta, udta]));
  const bytes = Buffer.concat([box('ftyp', Buffer.from('M4A \0\0\0\0')), moov, box('mdat', Buffer.alloc(32, 7))]);
  const boxSizes = ['ftyp', 'moov', 'mvhd', 'trak', 'tkhd', 'udta', 'meta', 'ilst', 'mdat'].flatMap((t) => offsetsOf(bytes, t).map((at) => ({ at: at - 4, encoding: 'u32be' as const })));
  return { name: 'M4A with udta and meta in the movie and a track', type: 'audio/mp4', bytes, sizeFields: boxSizes };
}

export const AUDIO_SEEDS: readonly AudioSeed[] = [mp3Seed(), wavSeed(), m4aSeed()];
