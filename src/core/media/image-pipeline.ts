import sharp, { type Metadata, type OutputInfo, type Sharp, type SharpOptions } from 'sharp';
import { rgbaToThumbHash } from 'thumbhash';
import { IMAGE_TYPES, IMAGE_VARIANTS, type ImageType } from './media-names.js';
import { lowerVipsThreadPriority } from './vips-thread-priority.js';

/**
 * Every uploaded image is decoded and written anew (DESIGN.md section 8): what is stored is pixels we encoded, so
 * nothing the client put around them survives (EXIF with its GPS position and camera serial, XMP, IPTC, comments,
 * ICC profiles, bytes appended after the image such as an HTML or script payload).
 *
 * - The EXIF orientation is applied first, so a phone photo is stored upright.
 * - The longest side is capped at MAX_SIDE; colour is converted to sRGB (a P3 or CMYK image looks the same).
 * - The format stays the one found in the bytes (a JPEG stays a JPEG); beside it, WebP variants of 320 and 1280 px
 *   and a ThumbHash placeholder (media-names.ts says how they are named).
 * - A decompression bomb (a tiny PNG claiming 100,000 x 100,000 pixels) is refused from its header, before any
 *   pixel is decoded.
 * - Animated GIF and WebP stay animated (people post GIFs to be seen moving), metadata stripped like any image:
 *   at most MAX_FRAMES frames are kept, and the pixel limit counts every frame kept.
 */
export const MAX_SIDE = 4096;
/** A 100-megapixel phone photo still passes; what it costs to decode is bounded by this. */
export const MAX_INPUT_PIXELS = 100_000_000;
export const MAX_FRAMES = 100;
/**
 * The placeholder is computed from the image shrunk to at most 32 px. ThumbHash keeps at most 7 frequencies a side,
 * so 32 px holds all it encodes: measured on the benchmark's photo and a drawing, the decoded placeholder differs
 * from one computed at ThumbHash's maximum of 100 px by 3 to 4.5 levels of 255 on average. The encoder runs in
 * JavaScript on the event loop and its work and garbage grow with the pixels: 0.09 against 0.64 ms a call, and
 * 0.3 against 2 MB of garbage an upload (at 100 px it was 70% of what an upload allocated on the JavaScript heap).
 */
const PLACEHOLDER_SIDE = 32;

export class ImageRejected extends Error {}

export const NOT_AN_IMAGE = 'Upload a valid image. The file you uploaded was either not an image or a corrupted image.';
const notAnImage = () => new ImageRejected(NOT_AN_IMAGE);

export interface ProcessedImage {
  kind: 'image';
  type: ImageType;
  width: number;
  height: number;
  /** ThumbHash of the image, base64url (no padding). */
  placeholder: string;
  animated: boolean;
  body: Buffer;
  variants: Array<{ size: number; body: Buffer }>;
}

const FORMATS: Record<string, ImageType> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif' };

/** Decoding options for untrusted input: the pixel limit, and a decoding error is an error (a truncated upload is refused). */
const inputOptions = (extra: SharpOptions = {}): SharpOptions => ({ limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', ...extra });

const capped = { width: MAX_SIDE, height: MAX_SIDE, fit: 'inside', withoutEnlargement: true } as const;

/** `expected` is the type found by the upload check's magic bytes; the decoder must agree with it. */
export async function processImage(input: Buffer, expected: ImageType): Promise<ProcessedImage> {
  lowerVipsThreadPriority();
  const meta = await readHeader(input);
  const type = FORMATS[meta.format];
  if (type !== expected) throw notAnImage();
  const frames = Math.min(meta.pages ?? 1, MAX_FRAMES);
  const frameHeight = meta.pageHeight ?? meta.height;
  if (meta.width * frameHeight * frames > MAX_INPUT_PIXELS) throw tooManyPixels();
  try {
    if (frames > 1) return await processAnimated(input, type, frames);
    return type === 'image/jpeg' ? await processJpeg(input, type) : await processStill(input, type);
  } catch (err) {
    if (err instanceof ImageRejected) throw err;
    if (err instanceof Error && /pixel limit/.test(err.message)) throw tooManyPixels();
    throw notAnImage();
  } finally {
    // libvips may have started threads for this job's encodes: they are lowered now, not at the next job.
    lowerVipsThreadPriority();
  }
}

/** The header alone: a size over the limit is refused here, before a pixel is decoded. */
async function readHeader(input: Buffer): Promise<Metadata> {
  try {
    return await sharp(input, inputOptions()).metadata();
  } catch (err) {
    if (err instanceof Error && /pixel limit/.test(err.message)) throw tooManyPixels();
    throw notAnImage();
  }
}

const tooManyPixels = () => new ImageRejected(`The image has too many pixels (at most ${MAX_INPUT_PIXELS / 1_000_000} megapixels).`);

/**
 * A still JPEG: each output decodes the file itself. libjpeg decodes at 1/2, 1/4 or 1/8 scale for almost nothing
 * (shrink-on-load), so the 320 and 1280 px variants and the placeholder cost a fraction of a full decode, and no
 * 12-megapixel raw copy (36 MB) passes through the JavaScript heap, where each one would bring the next full garbage
 * collection closer. Measured on a 12-megapixel photo, 20 at a time in one process: 4.7 against 3.3 images a second,
 * 0.40 against 0.59 CPU seconds an image. PNG has no shrink-on-load and is decoded once (processStill); so is WebP,
 * whose full-size encode dominates whichever way (measured: no gain).
 */
async function processJpeg(input: Buffer, type: ImageType): Promise<ProcessedImage> {
  const decoded = () => sharp(input, inputOptions({ autoOrient: true }));
  const variant = (size: number) => decoded().resize(size, size, { fit: 'inside', withoutEnlargement: true }).toColourspace('srgb');
  const [stored, placeholder, ...variants] = await allSettledOrThrow([
    encode(decoded().resize(capped).toColourspace('srgb'), type).toBuffer({ resolveWithObject: true }),
    thumbHashOf(decoded()),
    ...IMAGE_VARIANTS.map((v) => variant(v.size).webp({ quality: 80 }).toBuffer()),
  ]);
  const { data, info } = stored as { data: Buffer; info: OutputInfo };
  return {
    kind: 'image',
    type,
    width: info.width,
    height: info.height,
    placeholder: placeholder as string,
    animated: false,
    body: data,
    variants: IMAGE_VARIANTS.map((v, i) => ({ size: v.size, body: variants[i] as Buffer })),
  };
}

/** One decode: the upright, capped, sRGB pixels, from which the stored image and every variant are encoded. */
async function processStill(input: Buffer, type: ImageType): Promise<ProcessedImage> {
  const { data, info } = await sharp(input, inputOptions({ autoOrient: true }))
    .resize(capped)
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const raw = { raw: { width: info.width, height: info.height, channels: info.channels } } as const;
  const [body, placeholder, ...variants] = await allSettledOrThrow([
    encode(sharp(data, raw), type).toBuffer(),
    thumbHashOf(sharp(data, raw)),
    ...IMAGE_VARIANTS.map((v) => sharp(data, raw).resize(v.size, v.size, { fit: 'inside', withoutEnlargement: true }).webp({ quality: 80 }).toBuffer()),
  ]);
  return {
    kind: 'image',
    type,
    width: info.width,
    height: info.height,
    placeholder: placeholder!,
    animated: false,
    body: body as Buffer,
    variants: IMAGE_VARIANTS.map((v, i) => ({ size: v.size, body: variants[i]! })),
  };
}

async function processAnimated(input: Buffer, type: ImageType, frames: number): Promise<ProcessedImage> {
  const animated = () => sharp(input, inputOptions({ animated: true, pages: frames }));
  const [stored, placeholder, ...variants] = await allSettledOrThrow([
    encode(animated().resize(capped), type).toBuffer({ resolveWithObject: true }),
    thumbHashOf(sharp(input, inputOptions({ page: 0 }))),
    ...IMAGE_VARIANTS.map((v) => animated().resize(v.size, v.size, { fit: 'inside', withoutEnlargement: true }).webp({ quality: 80 }).toBuffer()),
  ]);
  const { data, info } = stored as { data: Buffer; info: OutputInfo };
  return {
    kind: 'image',
    type,
    width: info.width,
    height: info.pageHeight ?? info.height,
    placeholder: placeholder as string,
    animated: true,
    body: data,
    variants: IMAGE_VARIANTS.map((v, i) => ({ size: v.size, body: variants[i] as Buffer })),
  };
}

/**
 * Promise.all that settles every pipeline before it answers: on a failure (a truncated or malformed file) the other
 * pipelines of the job would otherwise go on decoding after the job's slot in the work gate was given back, so a
 * flood of broken uploads could run more image work at once than the gate allows.
 */
async function allSettledOrThrow<T extends readonly unknown[]>(pipelines: [...{ [K in keyof T]: Promise<T[K]> }]): Promise<T> {
  const settled = await Promise.allSettled(pipelines);
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/** Encoded in the format it came in; sharp writes no metadata unless asked to. */
function encode(image: Sharp, type: ImageType): Sharp {
  switch (type) {
    case 'image/jpeg':
      return image.jpeg({ quality: 85 });
    case 'image/png':
      return image.png({ compressionLevel: 6 });
    case 'image/webp':
      return image.webp({ quality: 85 });
    case 'image/gif':
      return image.gif();
  }
}

async function thumbHashOf(image: Sharp): Promise<string> {
  const { data, info } = await image
    .resize(PLACEHOLDER_SIDE, PLACEHOLDER_SIDE, { fit: 'inside' })
    .toColourspace('srgb')
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return Buffer.from(rgbaToThumbHash(info.width, info.height, data)).toString('base64url');
}

export const imageExtension = (type: ImageType) => IMAGE_TYPES[type];
