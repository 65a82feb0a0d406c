import { parseBuffer } from 'music-metadata';
import { fieldError } from '../../core/errors.js';
import type { ProcessedAudio } from '../../core/uploads.js';

/**
 * The duration of an audio post, read from the file itself with music-metadata (a maintained parser of MP3,
 * MP4/M4A, AAC, Ogg, WAV and WebM containers), never taken from the client. The magic-byte check of the
 * upload has passed already; a file whose container the parser cannot read, or which carries no duration,
 * is refused as not being audio. Transcription and waveform are not cheaply available: both stay null.
 */
export async function readAudioDurationSeconds(file: ProcessedAudio): Promise<number> {
  let seconds: number | undefined;
  try {
    const metadata = await parseBuffer(file.body, { mimeType: file.type, size: file.body.length }, { duration: true, skipCovers: true });
    seconds = metadata.format.duration;
  } catch {
    seconds = undefined;
  }
  if (seconds === undefined || !Number.isFinite(seconds) || seconds < 0) {
    throw fieldError('audio_file', 'Upload a valid audio file: its duration could not be read.');
  }
  return Math.round(seconds);
}
