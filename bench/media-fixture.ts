import sharp from 'sharp';

/**
 * A 12-megapixel phone-like JPEG (4000 x 3000, quality 90): smooth gradients with fine detail, so it compresses like a
 * photo (a few MB) rather than like a flat colour (kilobytes) or noise (over the 10 MB upload limit).
 */
export async function twelveMegapixelJpeg(): Promise<Buffer> {
  const width = 4000;
  const height = 3000;
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const detail = ((x * 7919) ^ (y * 104729)) & 31;
      raw[i] = (x / width) * 200 + detail;
      raw[i + 1] = (y / height) * 200 + (Math.sin(x / 40) + 1) * 20;
      raw[i + 2] = 128 + Math.sin((x + y) / 90) * 60 + (detail >> 1);
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
}
