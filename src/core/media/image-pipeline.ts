import sharp, { type Metadata, type OutputInfo, type Sharp, type SharpOptions } from 'sharp';
import { rgbaToThumbHash } from 'thumbhash';
import { IMAGE_TYPES, IMAGE_VARIANTS, type ImageType } from './media-names.js';
import { lowerVipsThreadPriority } from './vips-thread-priority.js';
import { MalformedImage, scanImageHeader, type ImageHeader } from './image-header-scan.js';
import { imageWork } from './work-gate.js';

/**
 * Every uploaded image is decoded and written anew (DESIGN.md section 8): what is stored is pixels we encoded, so
 * nothing the client put around them survives (EXIF with its GPS position and camera serial, XMP, IPTC, comments,
 * ICC profiles, bytes appended after the image such as an HTML or script payload).
 *
 * - The EXIF orientation is applied first, so a phone photo is stored upright.
 * - The longest side is capped at MAX_SIDE; colour is converted to sRGB (a P3 or CMYK image looks the same).
 * - The format stays the one found in the bytes (a JPEG stays a JPEG); beside it, WebP variants of 320 and 1280 px
 *   and a ThumbHash placeholder (media-names.ts says how they are named).
 * - What an image costs to decode is bounded from its headers, before any pixel is decoded (issue 31): every size
 *   any of its headers declares (each GIF frame, each JPEG frame header, ...: image-header-scan.ts) must fit within
 *   MAX_INPUT_SIDE a side and MAX_INPUT_PIXELS, so a decompression bomb (a tiny PNG claiming 100,000 x 100,000, a GIF
 *   whose 8 x 8 screen holds a 10,000 x 10,000 frame) is refused in microseconds.
 * - Animated GIF and WebP stay animated (people post GIFs to be seen moving), metadata stripped like any image:
 *   at most MAX_FRAMES frames are kept, and the pixel limit counts every frame kept.
 */
export const MAX_SIDE = 4096;
/** What phones make: a 48-megapixel photo is 8,000 x 6,000. What an image costs to decode is bounded by this. */
export const MAX_INPUT_PIXELS = 48_000_000;
/**
 * The longest side an upload may declare (WebP's own limit is 16,383 px; a wider panorama of a usual height would be
 * over the pixel limit anyway). Measured: libvips' shrink to 4096 px of a PNG 1,048,592 px wide and 16 high (16.8 megapixels) peaked at
 * 500-690 MB, of one 65,536 x 256 at 140-160 MB, of 16,384 x 1,024 at 110 MB, as a 4,096 x 4,096 one.
 */
export const MAX_INPUT_SIDE = 16_384;
export const MAX_FRAMES = 100;
/**
 * The placeholder is computed from the image shrunk to at most 32 px. ThumbHash keeps at most 7 frequencies a side,
 * so 32 px holds all it encodes: measured on the benchmark's photo and a drawing, the decoded placeholder differs
 * from one computed at ThumbHash's maximum of 100 px by 3 to 4.5 levels of 255 on average. The encoder runs in
 * JavaScript on the event loop and its work and garbage grow with the pixels: 0.09 against 0.64 ms a call, and
 * 0.3 against 2 MB of garbage an upload (at 100 px it was 70% of what an upload allocated on the JavaScript heap).
 */
const PLACEHOLDER_SIDE = 32;

/**
 * One libvips thread per image, whatever the allocator: the gate (work-gate.ts) runs one job per core. sharp itself
 * picks 1 only under glibc's allocator without MALLOC_ARENA_MAX, and the number of cores otherwise: under jemalloc,
 * which the image runs with (docs/modules/media.md, "Memory after a flood"), that would be cores x cores threads.
 * No operation cache: every upload is a different file, so libvips' cache (50 MB by default) would only keep
 * finished images' memory, and their source buffers, alive after their answer.
 */
sharp.concurrency(1);
sharp.cache(false);

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

/**
 * An upload's image work, admitted by what it costs: its headers are checked here, on the event loop (a scan
 * proportional to its bytes), so a bomb is refused before it waits for, or takes, a place at the node's gate; the
 * gate then admits it by its pixels (work-gate.ts).
 */
export async function processImageInTurn(input: Buffer, expected: ImageType): Promise<ProcessedImage> {
  const header = checkedHeader(input, expected);
  return imageWork.run(admissionPixels(header), () => processImage(input, expected, header));
}

/**
 * What the gate counts for a job: its decoded pixels, twice over for a progressive JPEG, whose decoder holds every
 * coefficient of the image at once (measured on an 8,000 x 6,000 photo alone: a peak of 290 MB above the idle
 * service, against 130 MB for the same photo as a baseline JPEG).
 */
const admissionPixels = (header: ImageHeader) => decodedPixels(header) * (header.progressive ? 2 : 1);

/** The pixels an image's decoders may hold: the box its headers declare, times the frames kept. */
const decodedPixels = (header: ImageHeader) => header.width * header.height * Math.min(header.frames, MAX_FRAMES);

/**
 * Every size the image's headers declare, checked against the limits before a decoder sees the bytes (libvips' own
 * limit sees only the first header's size: a GIF frame larger than its screen passes it).
 */
export function checkedHeader(input: Buffer, type: ImageType): ImageHeader {
  let header: ImageHeader;
  try {
    header = scanImageHeader(input, type);
  } catch (err) {
    if (err instanceof MalformedImage) throw notAnImage();
    throw err;
  }
  if (header.width > MAX_INPUT_SIDE || header.height > MAX_INPUT_SIDE || decodedPixels(header) > MAX_INPUT_PIXELS) throw tooManyPixels();
  return header;
}

/**
 * `expected` is the type found by the upload check's magic bytes; the decoder must agree with it. Callers outside
 * this file go through processImageInTurn (the gate); `header` is what it already checked.
 */
export async function processImage(input: Buffer, expected: ImageType, header = checkedHeader(input, expected)): Promise<ProcessedImage> {
  lowerVipsThreadPriority();
  const meta = await readHeader(input);
  const type = FORMATS[meta.format];
  if (type !== expected) throw notAnImage();
  const frames = Math.min(Math.max(meta.pages ?? 1, header.frames), MAX_FRAMES);
  const frameHeight = meta.pageHeight ?? meta.height;
  if (Math.max(meta.width, header.width) * Math.max(frameHeight, header.height) * frames > MAX_INPUT_PIXELS) throw tooManyPixels();
  try {
    if (frames > 1) return await processAnimated(input, type, frames);
    // A progressive JPEG's decoder holds the whole image's coefficients whatever scale it decodes at: decoded once.
    return type === 'image/jpeg' && !header.progressive ? await processJpeg(input, type) : await processStill(input, type);
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

export const TOO_MANY_PIXELS = `The image has too many pixels (at most ${MAX_INPUT_PIXELS / 1_000_000} megapixels and ${MAX_INPUT_SIDE.toLocaleString('en')} pixels a side).`;
const tooManyPixels = () => new ImageRejected(TOO_MANY_PIXELS);

/**
 * A still JPEG: each output decodes the file itself. libjpeg decodes at 1/2, 1/4 or 1/8 scale for almost nothing
 * (shrink-on-load), so the 320 and 1280 px variants and the placeholder cost a fraction of a full decode, and no
 * 12-megapixel raw copy (36 MB) passes through the JavaScript heap, where each one would bring the next full garbage
 * collection closer. Measured on a 12-megapixel photo, 20 at a time in one process: 4.7 against 3.3 images a second,
 * 0.40 against 0.59 CPU seconds an image. PNG has no shrink-on-load and is decoded once (processStill); so is WebP,
 * whose full-size encode dominates whichever way (measured: no gain), and so is a progressive JPEG, whose decoder
 * holds every coefficient at full size even when it decodes at 1/8 (four decodes held four such arrays at once).
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
