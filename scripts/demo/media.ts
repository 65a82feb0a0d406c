import zlib from 'node:zlib';

/**
 * Files the demo uploads, made in code so that it needs no network and no image library: PNG avatars
 * (symmetric 5×5 "identicons") and product pictures, and a short WAV tune for audio posts.
 */

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

type Rgb = [number, number, number];

/** An RGB PNG from a pixel function. */
export function png(width: number, height: number, pixel: (x: number, y: number) => Rgb): Buffer {
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    raw[row] = 0; // filter: none
    for (let x = 0; x < width; x++) raw.set(pixel(x, y), row + 1 + x * 3);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

function hsl(h: number, s: number, l: number): Rgb {
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}

/** A string's 32-bit FNV-1a hash: the same name always gives the same picture. */
export function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  // FNV-1a's low bits barely mix (bit 0 is the parity of the characters' bit 0): finish with murmur3's fmix32, so
  // colours and patterns taken from the low bits differ from name to name.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

/** A 96×96 avatar: a symmetric 5×5 pattern in one colour on a pale background, chosen by the name. */
export function avatarPng(name: string): Buffer {
  const h = hash(name);
  const fg = hsl(h % 360, 0.55, 0.45);
  const bg = hsl(h % 360, 0.35, 0.92);
  const cells = (col: number, row: number) => (hash(`${name}:${Math.min(col, 4 - col)}:${row}`) & 1) === 1;
  const cell = 16;
  const pad = 8;
  return png(96, 96, (x, y) => {
    const col = Math.floor((x - pad) / cell);
    const row = Math.floor((y - pad) / cell);
    return col >= 0 && col < 5 && row >= 0 && row < 5 && cells(col, row) ? fg : bg;
  });
}

/** A 240×180 product picture: a soft gradient with a few circles, coloured by the product's name. */
export function productPng(name: string, variant = 0): Buffer {
  const h = hash(`${name}#${variant}`);
  const base = h % 360;
  const top = hsl(base, 0.5, 0.8);
  const bottom = hsl((base + 40) % 360, 0.5, 0.6);
  const circles = Array.from({ length: 3 }, (_, i) => ({
    x: 40 + (hash(`${name}${variant}x${i}`) % 160),
    y: 30 + (hash(`${name}${variant}y${i}`) % 120),
    r: 18 + (hash(`${name}${variant}r${i}`) % 30),
    c: hsl((base + 180 + i * 30) % 360, 0.55, 0.5),
  }));
  return png(240, 180, (x, y) => {
    for (const c of circles) if ((x - c.x) ** 2 + (y - c.y) ** 2 <= c.r ** 2) return c.c;
    const t = y / 179;
    return [0, 1, 2].map((i) => Math.round(top[i] * (1 - t) + bottom[i] * t)) as Rgb;
  });
}

/** A short mono 8 kHz 8-bit WAV tune of `seconds` (notes chosen by the seed text). */
export function tuneWav(seed: string, seconds = 3): Buffer {
  const rate = 8000;
  const data = Buffer.alloc(rate * seconds);
  const notes = [262, 294, 330, 349, 392, 440, 494, 523];
  const h = hash(seed);
  for (let i = 0; i < data.length; i++) {
    const note = notes[(h >>> ((Math.floor(i / (rate / 2)) % 8) * 3)) % notes.length];
    const fade = Math.min(1, (rate / 2 - (i % (rate / 2))) / 400);
    data[i] = 128 + Math.round(60 * fade * Math.sin((2 * Math.PI * note * i) / rate));
  }
  return pcm8Wav(data, rate);
}

/** A WAV file around 8-bit mono PCM samples at `rate` Hz (also the test builders' audio). */
export function pcm8Wav(data: Buffer, rate: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate, 28); // byte rate
  header.writeUInt16LE(1, 32); // block align
  header.writeUInt16LE(8, 34); // bits per sample
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}
