import { z } from 'zod';
import sharp from 'sharp';
import { thumbHashToApproximateAspectRatio, thumbHashToRGBA } from 'thumbhash';
import { detectAudioType, detectImageType, zImageFile } from '../../src/core/uploads.js';
import { zodToFieldErrors } from '../../src/core/validation.js';

const bytes = (...parts: Array<number[] | string>) =>
  Buffer.concat([...parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))), Buffer.alloc(16)]);

describe('detectImageType', () => {
  test.each([
    ['image/jpeg', bytes([0xff, 0xd8, 0xff, 0xe0])],
    ['image/png', bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
    ['image/webp', bytes('RIFF', [0x10, 0, 0, 0], 'WEBPVP8 ')],
    ['image/gif', bytes('GIF89a')],
    ['image/gif', bytes('GIF87a')],
  ])('when the bytes start like %s, then that type is found', (type, buf) => {
    expect(detectImageType(buf)).toBe(type);
  });

  test.each([
    ['text claiming to be an image', bytes('hello, I am a png')],
    ['a WAV file (RIFF but not WEBP)', bytes('RIFF', [0x10, 0, 0, 0], 'WAVEfmt ')],
    ['an empty file', Buffer.alloc(0)],
  ])('when the file is %s, then it is not an image', (_what, buf) => {
    expect(detectImageType(buf)).toBeNull();
  });
});

describe('detectAudioType', () => {
  test.each([
    ['audio/mpeg', bytes('ID3', [0x04, 0x00])],
    ['audio/mpeg', bytes([0xff, 0xfb, 0x90, 0x64])],
    ['audio/aac', bytes([0xff, 0xf1, 0x50, 0x80])],
    ['audio/mp4', bytes([0, 0, 0, 0x20], 'ftypM4A ')],
    ['audio/ogg', bytes('OggS', [0x00, 0x02])],
    ['audio/wav', bytes('RIFF', [0x10, 0, 0, 0], 'WAVEfmt ')],
    ['audio/webm', bytes([0x1a, 0x45, 0xdf, 0xa3])],
  ])('when the bytes start like %s, then that type is found', (type, buf) => {
    expect(detectAudioType(buf)).toBe(type);
  });

  test('when the file is a PNG image, then it is not audio', () => {
    expect(detectAudioType(bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBeNull();
  });
});

describe('zImageFile', () => {
  const file = (buffer: Buffer, mimetype = 'application/octet-stream') => ({ fieldname: 'profile_picture', originalname: 'x.bin', mimetype, size: buffer.length, buffer });
  const schema = z.object({ profile_picture: zImageFile() });

  test('when an image arrives with a wrong claimed type and name, then it is decoded and stored as the type found in its bytes', async () => {
    const gif = await sharp({ create: { width: 4, height: 3, channels: 3, background: '#00ff00' } }).gif().toBuffer();
    const parsed = await schema.parseAsync({ profile_picture: { ...file(gif, 'text/html'), originalname: 'x.html' } });
    expect(parsed.profile_picture).toMatchObject({ kind: 'image', type: 'image/gif', width: 4, height: 3 });
    expect((await sharp(parsed.profile_picture.body).metadata()).format).toBe('gif');
  });

  test('when a photo is processed, then its placeholder decodes to the photo\'s colours and shape', async () => {
    // Left half red, right half blue, 3:2: the placeholder (computed from the image shrunk to 32 px) keeps both.
    const photo = await sharp({ create: { width: 1800, height: 1200, channels: 3, background: '#0000ff' } })
      .composite([{ input: { create: { width: 900, height: 1200, channels: 3, background: '#ff0000' } }, left: 0, top: 0 }])
      .jpeg()
      .toBuffer();
    const parsed = await schema.parseAsync({ profile_picture: file(photo) });
    const hash = Buffer.from(parsed.profile_picture.placeholder, 'base64url');
    // ThumbHash keeps the shape only roughly (from how many frequencies it keeps a side): 1.4 for this 1.5.
    expect(thumbHashToApproximateAspectRatio(hash)).toBeGreaterThan(1.25);
    expect(thumbHashToApproximateAspectRatio(hash)).toBeLessThan(1.75);
    const { w, h, rgba } = thumbHashToRGBA(hash);
    const pixel = (x: number) => Array.from(rgba.subarray((Math.floor(h / 2) * w + x) * 4, (Math.floor(h / 2) * w + x) * 4 + 3));
    const [leftR, , leftB] = pixel(1);
    const [rightR, , rightB] = pixel(w - 2);
    expect(leftR).toBeGreaterThan(leftB + 100);
    expect(rightB).toBeGreaterThan(rightR + 100);
  });

  test('when the bytes only start like an image, then the decoder refuses them with the field error', async () => {
    const result = await schema.safeParseAsync({ profile_picture: file(bytes('GIF89a<script>alert(1)</script>')) });
    expect(zodToFieldErrors(result.error!)).toEqual({
      profile_picture: ['Upload a valid image. The file you uploaded was either not an image or a corrupted image.'],
    });
  });

  test('when a large JPEG is cut short, then it is refused only once no image work of it is still running', async () => {
    // Noise compresses badly, so the cut leaves most of a 3000 x 2000 image that each pipeline decodes up to the cut.
    const noise = Buffer.alloc(3000 * 2000 * 3);
    for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
    const whole = await sharp(noise, { raw: { width: 3000, height: 2000, channels: 3 } }).jpeg({ quality: 95 }).toBuffer();
    const cut = whole.subarray(0, Math.floor(whole.length * 0.9));
    const result = await schema.safeParseAsync({ profile_picture: file(cut, 'image/jpeg') });
    expect(zodToFieldErrors(result.error!)).toEqual({
      profile_picture: ['Upload a valid image. The file you uploaded was either not an image or a corrupted image.'],
    });
    // The work gate's slot went back with the answer: nothing of this upload may still be decoding past it.
    expect(sharp.counters()).toEqual({ queue: 0, process: 0 });
  });

  test('when a file is not an image, then a field error names the field', async () => {
    const result = await schema.safeParseAsync({ profile_picture: file(bytes('%PDF-1.7'), 'image/png') });
    expect(result.success).toBe(false);
    expect(zodToFieldErrors(result.error!)).toEqual({
      profile_picture: ['Upload a valid image. The file you uploaded was either not an image or a corrupted image.'],
    });
  });

  test('when an object with bytes but no file name arrives (a socket client building its own "file"), then "The submitted data was not a file."', async () => {
    const png = bytes('\x89PNG\r\n\x1a\n');
    for (const fake of [{ buffer: png, size: 10 }, { buffer: png, originalname: 5, size: 10 }]) {
      const result = await schema.safeParseAsync({ profile_picture: fake });
      expect(zodToFieldErrors(result.error!)).toEqual({ profile_picture: ['The submitted data was not a file.'] });
    }
  });

  test('when a file claims a small size, then its real size is what is checked', async () => {
    const big = Buffer.concat([bytes('GIF89a'), Buffer.alloc(10 * 1024 * 1024)]);
    const result = await schema.safeParseAsync({ profile_picture: { ...file(big), size: 1 } });
    expect(zodToFieldErrors(result.error!)).toEqual({ profile_picture: ['The image is larger than 10 MB.'] });
  });

  test('when a text value is sent instead of a file, then "The submitted data was not a file."', async () => {
    const result = await schema.safeParseAsync({ profile_picture: 'https://example.test/me.png' });
    expect(zodToFieldErrors(result.error!)).toEqual({ profile_picture: ['The submitted data was not a file.'] });
  });
});
