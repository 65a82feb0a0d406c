import { fieldError } from '../../core/errors.js';
import type { CheckedAudio } from '../../core/uploads.js';

/**
 * The duration of an audio post, read from the file itself with music-metadata (a maintained parser of MP3,
 * MP4/M4A, AAC, Ogg, WAV and WebM containers), never taken from the client. The upload's check read it, off the
 * event loop (core/media/audio-work.ts); a file whose container the parser cannot read, or which carries no
 * duration, is refused as not being audio. Transcription and waveform are not cheaply available: both stay null.
 */
export async function readAudioDurationSeconds(file: CheckedAudio): Promise<number> {
  const seconds = file.durationSeconds;
  if (seconds === null || !Number.isFinite(seconds) || seconds < 0) {
    throw fieldError('audio_file', 'Upload a valid audio file: its duration could not be read.');
  }
  return Math.round(seconds);
}
