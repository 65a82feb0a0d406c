import { z } from 'zod';
import type { UploadedFile } from './context.js';
import { ImageRejected, NOT_AN_IMAGE, processImageInTurn, type ProcessedImage } from './media/image-pipeline.js';
import { AudioRejected, processAudio, type CheckedAudio } from './media/audio-work.js';

export type { ProcessedImage } from './media/image-pipeline.js';
import type { ProcessedAudio } from './media/audio-tags.js';
export type { ProcessedAudio } from './media/audio-tags.js';
export type { CheckedAudio } from './media/audio-work.js';
/** What an operation hands to storage: an upload that has been checked and rewritten. */
export type ProcessedUpload = ProcessedImage | ProcessedAudio;

/**
 * Upload checks by content, not by the name or type the client claims (DESIGN.md section 8):
 * images JPEG, PNG, WebP, GIF up to 10 MB; audio MP3, M4A/AAC, OGG, WAV, WebM up to 25 MB.
 */
export const IMAGE_MAX_BYTES = 10 * 1024 * 1024;
export const AUDIO_MAX_BYTES = 25 * 1024 * 1024;

// The type checks below read a few bytes at fixed offsets, whatever the file's length: constant time, no size field
// believed (tests/unit/parsers-fuzz.test.ts).
const startsWith = (buf: Buffer, bytes: number[], offset = 0) => bytes.every((b, i) => buf[offset + i] === b);
const ascii = (buf: Buffer, start: number, end: number) => buf.subarray(start, end).toString('latin1');

export function detectImageType(buf: Buffer): 'image/jpeg' | 'image/png' | 'image/webp' | 'image/gif' | null {
  if (startsWith(buf, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(buf, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (ascii(buf, 0, 4) === 'RIFF' && ascii(buf, 8, 12) === 'WEBP') return 'image/webp';
  if (ascii(buf, 0, 6) === 'GIF87a' || ascii(buf, 0, 6) === 'GIF89a') return 'image/gif';
  return null;
}

export function detectAudioType(buf: Buffer): 'audio/mpeg' | 'audio/mp4' | 'audio/aac' | 'audio/ogg' | 'audio/wav' | 'audio/webm' | null {
  if (ascii(buf, 0, 3) === 'ID3' || (buf[0] === 0xff && (buf[1] & 0xe0) === 0xe0 && (buf[1] & 0x06) !== 0)) return 'audio/mpeg';
  if (buf[0] === 0xff && (buf[1] & 0xf6) === 0xf0) return 'audio/aac';
  if (ascii(buf, 4, 8) === 'ftyp') return 'audio/mp4';
  if (ascii(buf, 0, 4) === 'OggS') return 'audio/ogg';
  if (ascii(buf, 0, 4) === 'RIFF' && ascii(buf, 8, 12) === 'WAVE') return 'audio/wav';
  if (startsWith(buf, [0x1a, 0x45, 0xdf, 0xa3])) return 'audio/webm';
  return null;
}

// Multer builds these on REST; a socket client can send any object, so its shape is checked too.
const isUploadedFile = (v: unknown): v is UploadedFile =>
  Boolean(v) && typeof v === 'object' && Buffer.isBuffer((v as UploadedFile).buffer) && typeof (v as UploadedFile).originalname === 'string';

/**
 * A validated image upload, decoded and written anew (core/media/image-pipeline.ts): what the operation receives is
 * the re-encoded image with its variants, never the client's bytes, so no path can store those by mistake. The
 * client's file name and claimed type are dropped here.
 */
export const zImageFile = () =>
  z
    .custom<UploadedFile>(isUploadedFile, 'The submitted data was not a file.')
    .describe('An image file: JPEG, PNG, WebP or GIF by its bytes, at most 10 MB, 48 megapixels and 16,384 pixels a side; decoded and written anew (see Media in the API description)')
    .refine((f) => f.buffer.length <= IMAGE_MAX_BYTES, 'The image is larger than 10 MB.')
    .refine((f) => detectImageType(f.buffer) !== null, NOT_AN_IMAGE)
    .transform(async (f, ctx): Promise<ProcessedImage> => {
      try {
        return await processImageInTurn(f.buffer, detectImageType(f.buffer)!);
      } catch (err) {
        if (!(err instanceof ImageRejected)) throw err;
        ctx.addIssue({ code: 'custom', message: err.message });
        return z.NEVER;
      }
    });

/**
 * A validated audio upload, its type from its bytes, its identifying tags removed (core/media/audio-tags.ts) and its
 * duration read, both in a worker thread with a deadline (core/media/audio-work.ts): a file that the readers cannot
 * get through in time is refused like any other file that is not audio, and never holds the event loop.
 */
export const zAudioFile = () =>
  z
    .custom<UploadedFile>(isUploadedFile, 'The submitted data was not a file.')
    .describe('An audio file: MP3, M4A/AAC, OGG, WAV or WebM by its bytes, at most 25 MB; identifying tags removed (see Media in the API description)')
    .refine((f) => f.buffer.length <= AUDIO_MAX_BYTES, 'The audio file is larger than 25 MB.')
    .refine((f) => detectAudioType(f.buffer) !== null, 'Upload a valid audio file (MP3, M4A/AAC, OGG, WAV or WebM).')
    .transform(async (f, ctx): Promise<CheckedAudio> => {
      try {
        return await processAudio(f.buffer, detectAudioType(f.buffer)!, { readDuration: true });
      } catch (err) {
        if (!(err instanceof AudioRejected)) throw err;
        ctx.addIssue({ code: 'custom', message: err.message });
        return z.NEVER;
      }
    });

export const imageField = (name: string, maxCount = 1) => ({ name, maxCount, maxBytes: IMAGE_MAX_BYTES });
export const audioField = (name: string) => ({ name, maxCount: 1, maxBytes: AUDIO_MAX_BYTES });
