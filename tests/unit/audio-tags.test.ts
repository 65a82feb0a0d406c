import { parseWorkFor, stripAudioTags } from '../../src/core/media/audio-tags.js';
import { AUDIO_SEEDS, apeSizeZeroMp3 } from '../helpers/hostile-audio.js';

/**
 * The tag stripper on the file of issue 31 and on APE footers whose size does not cover the footer itself. Before the
 * fix, the 52-byte file never returned (a size of 0 removed nothing and the loop went round again); the step cap
 * would now turn such a loop into an error, so "returns, and within a handful of steps" is what these assert.
 */
describe('stripAudioTags and APEv2 footers that lie', () => {
  test('when the 52-byte MP3 of issue 31 (APE footer of size 0) is stripped, then it comes back as it was, in a few steps', () => {
    const file = apeSizeZeroMp3();
    expect(file.length).toBe(52);
    const work = parseWorkFor(file);
    const out = stripAudioTags(file, 'audio/mpeg', work);
    // A footer that does not count itself is malformed: left as it came, like any structure that stops making sense.
    expect(out.body.equals(file)).toBe(true);
    expect(work.steps).toBeLessThanOrEqual(2);
  });

  test.each([1, 31])('when the APE footer says its tag is %i bytes (less than the footer), then the file is kept and the call ends', (size) => {
    const file = apeSizeZeroMp3();
    file.writeUInt32LE(size, 20 + 12);
    const work = parseWorkFor(file);
    expect(stripAudioTags(file, 'audio/mpeg', work).body.equals(file)).toBe(true);
    expect(work.steps).toBeLessThanOrEqual(2);
  });

  test('when the APE footer says exactly its own 32 bytes, then the empty tag is removed and the frames stay', () => {
    const file = apeSizeZeroMp3();
    file.writeUInt32LE(32, 20 + 12);
    expect(stripAudioTags(file, 'audio/mpeg').body.equals(file.subarray(0, 20))).toBe(true);
  });

  test('when the tagged seeds of the fuzz tests are stripped, then nothing naming a place is left', () => {
    for (const seed of AUDIO_SEEDS) {
      const out = stripAudioTags(seed.bytes, seed.type).body;
      expect([seed.name, out.includes('Secret Lane')]).toEqual([seed.name, false]);
    }
  });
});
