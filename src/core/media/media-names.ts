import crypto from 'node:crypto';

/**
 * How stored media files are named (DESIGN.md section 8; docs/modules/media.md).
 *
 * A name is unique (a random id, never the client's file name) and says what the file is: its extension comes from
 * the type found in its bytes. An image's name also carries its width, height and a ThumbHash placeholder, and its
 * smaller WebP variants sit beside it under names derived from it, so any image URL anywhere in the API (a post's
 * media, a nested author's profile picture, a notification's actor) tells a client its size, its placeholder and
 * where its variants are, with no extra field and no extra read:
 *
 *   posts/media/<32 hex>.<width>x<height>.<thumbhash, base64url>.<jpg|png|webp|gif>   the image, at most 4096 px
 *   posts/media/<32 hex>.<width>x<height>.<thumbhash, base64url>.320.webp            thumbnail, longest side 320 px
 *   posts/media/<32 hex>.<width>x<height>.<thumbhash, base64url>.1280.webp           display size, longest side 1280 px
 *   posts/audio/<32 hex>.<mp3|m4a|aac|ogg|wav|webm>
 *
 * Names are never reused, so every file can be cached forever (`immutable`).
 */

export const IMAGE_VARIANTS = [
  { name: 'thumbnail', size: 320 },
  { name: 'display', size: 1280 },
] as const;
export type ImageVariantName = (typeof IMAGE_VARIANTS)[number]['name'];

export const IMAGE_TYPES = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp', 'image/gif': 'gif' } as const;
export const AUDIO_TYPES = { 'audio/mpeg': 'mp3', 'audio/mp4': 'm4a', 'audio/aac': 'aac', 'audio/ogg': 'ogg', 'audio/wav': 'wav', 'audio/webm': 'webm' } as const;
export type ImageType = keyof typeof IMAGE_TYPES;
export type AudioType = keyof typeof AUDIO_TYPES;

/**
 * The type a file under /media/ is served as, from its name's extension. Only these are served: any other name
 * (a file stored by an older release under a client's `.html` or `.svg`) is not found.
 * `jpeg` is for files stored by older releases, which kept the client's spelling.
 */
export const SERVED_TYPES: Readonly<Record<string, string>> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
  ogg: 'audio/ogg',
  wav: 'audio/wav',
  webm: 'audio/webm',
};

export function servedType(key: string): string | null {
  const ext = /\.([a-z0-9]{1,5})$/.exec(key)?.[1];
  return ext ? (SERVED_TYPES[ext] ?? null) : null;
}

const newId = () => crypto.randomBytes(16).toString('hex');
const trimFolder = (folder: string) => folder.replace(/\/+$/, '');

export interface ImageName {
  width: number;
  height: number;
  placeholder: string;
}

export function imageKey(folder: string, type: ImageType, image: ImageName): string {
  return `${trimFolder(folder)}/${newId()}.${image.width}x${image.height}.${image.placeholder}.${IMAGE_TYPES[type]}`;
}

export function audioKey(folder: string, type: AudioType): string {
  return `${trimFolder(folder)}/${newId()}.${AUDIO_TYPES[type]}`;
}

const IMAGE_KEY = /^(?<stem>(?:.*\/)?[0-9a-f]{32}\.(?<width>\d{1,5})x(?<height>\d{1,5})\.(?<placeholder>[A-Za-z0-9_-]{8,80}))\.(?:jpg|png|webp|gif)$/;

/** What an image's name tells (null for audio, and for images stored by older releases before `media:reprocess`). */
export function parseImageKey(key: string): (ImageName & { stem: string }) | null {
  const m = IMAGE_KEY.exec(key);
  if (!m?.groups) return null;
  return { stem: m.groups.stem!, width: Number(m.groups.width), height: Number(m.groups.height), placeholder: m.groups.placeholder! };
}

export function variantKey(imageKeyName: string, variant: ImageVariantName): string | null {
  const parsed = parseImageKey(imageKeyName);
  const size = IMAGE_VARIANTS.find((v) => v.name === variant)!.size;
  return parsed ? `${parsed.stem}.${size}.webp` : null;
}

/** Every file stored for `key`: the file itself, and an image's variants. */
export function storedFilesOf(key: string): string[] {
  return [key, ...IMAGE_VARIANTS.map((v) => variantKey(key, v.name)).filter((k): k is string => k !== null)];
}

/** A name written by this release (so `media:reprocess` leaves it alone). */
export function isCurrentMediaKey(key: string): boolean {
  return parseImageKey(key) !== null || /(?:^|\/)[0-9a-f]{32}\.(?:mp3|m4a|aac|ogg|wav|webm)$/.test(key);
}

/** The media rules as the OpenAPI document tells them to client authors (docs/modules/media.md says the same at length). */
export const MEDIA_RULES_FOR_CLIENTS = [
  '## Media',
  'Uploads are multipart files: images (JPEG, PNG, WebP, GIF by their bytes; at most 10 MB, 48 megapixels and 16,384 px a',
  'side, every frame counted) and audio',
  '(MP3, M4A/AAC, OGG, WAV, WebM; at most 25 MB). Every image is decoded and written anew: no EXIF, XMP, IPTC or',
  'comments survive, the camera orientation is applied, the longest side is at most 4096 px, colours are sRGB; animated',
  'GIF and WebP stay animated (at most 100 frames). Audio keeps its bytes but loses ID3/APE tags (MP3), LIST/INFO and',
  'bext chunks (WAV) and udta/meta boxes (M4A).',
  '',
  'Every image URL of the API is named `<folder>/<id>.<width>x<height>.<placeholder>.<ext>`: `width` and `height` are the',
  'stored (upright) size, `placeholder` a ThumbHash (base64url) to paint before the bytes arrive. Beside it, replace the',
  'extension with `320.webp` for a thumbnail (longest side at most 320 px) or `1280.webp` for the display size (at most',
  '1280 px). Post media items and product images also give these as fields (`width`, `height`, `placeholder`,',
  '`thumbnail`, `display`). A URL without that shape (stored before `media:reprocess`) has no variants.',
  '',
  'Files are served with their type from their bytes, `X-Content-Type-Options: nosniff`, `Content-Security-Policy:',
  "default-src 'none'; sandbox`, `Cross-Origin-Resource-Policy: cross-origin`, `Cache-Control: public, max-age=31536000,",
  'immutable` (names are never reused), an ETag, and `Range` support.',
].join('\n');
