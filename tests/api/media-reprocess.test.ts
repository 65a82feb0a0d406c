import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { sql } from '../helpers/sql.js';
import { aResident } from '../builders/locations.js';
import { aNeighbourhood, aWav } from '../builders/posts.js';
import { PHOTO_SERIAL, PHOTO_SIZE, phonePhoto } from '../helpers/phone-photo.js';
import { PNG_1X1 } from '../helpers/images.js';
import { reprocessMedia, type ReprocessCounts } from '../../src/modules/media/reprocess.service.js';
import { isCurrentMediaKey } from '../../src/core/media/media-names.js';

/**
 * `npm run media:reprocess` on files an older release stored byte for byte under the client's file name: images are
 * rewritten and renamed, hostile files removed with their reference, audio renamed and stripped; a second run
 * changes nothing.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'off' });
});
afterAll(async () => {
  await app?.stop();
});

const mediaPath = (key: string) => path.join(app.dataDir, 'media', key);
async function storeLegacy(key: string, bytes: Buffer | string) {
  await fs.mkdir(path.dirname(mediaPath(key)), { recursive: true });
  await fs.writeFile(mediaPath(key), bytes);
}
const exists = (key: string) => fs.access(mediaPath(key)).then(() => true, () => false);
const legacyKey = (folder: string, ext: string) => `${folder}/${crypto.randomUUID()}${ext}`;
const totals = (counts: ReprocessCounts[]) =>
  counts.reduce((t, c) => ({ rewritten: t.rewritten + c.rewritten, removed: t.removed + c.removed, missing: t.missing + c.missing }), { rewritten: 0, removed: 0, missing: 0 });

test('when files of an older release are reprocessed, then photos are rewritten under new names, HTML is removed with its reference, audio is renamed and stripped, and a second run changes nothing', async () => {
  const alice = await aResident(app);
  const photoKey = legacyKey('profile_pictures', '.jpeg');
  const hostileKey = legacyKey('users/banners', '.html');
  await storeLegacy(photoKey, await phonePhoto());
  await storeLegacy(hostileKey, 'GIF89a<script>document.title="pwned"</script>');
  await sql('UPDATE users SET profile_picture = $1, banner = $2 WHERE id = $3', [photoKey, hostileKey, alice.id]);

  const { founder } = await aNeighbourhood(app);
  const imagePost = await app.http().post('/api/feed/posts/').set('Authorization', `Bearer ${founder.token}`).field('post_type', 'image').attach('media', PNG_1X1, 'a.png');
  const mediaKey = legacyKey('posts/media', '.png');
  await storeLegacy(mediaKey, PNG_1X1);
  await sql('UPDATE post_media SET file = $1 WHERE id = $2', [mediaKey, imagePost.body.media[0].id]);
  const missingKey = legacyKey('posts/media', '.png');
  const second = await app.http().post('/api/feed/posts/').set('Authorization', `Bearer ${founder.token}`).field('post_type', 'image').attach('media', PNG_1X1, 'b.png');
  await sql('UPDATE post_media SET file = $1 WHERE id = $2', [missingKey, second.body.media[0].id]);

  const wav = aWav(1);
  const tagged = Buffer.concat([wav, Buffer.from('LIST\x10\x00\x00\x00INFOINAM\x04\x00\x00\x00Home', 'latin1')]);
  const audioPost = await app.http().post('/api/feed/posts/').set('Authorization', `Bearer ${founder.token}`).field('post_type', 'audio').attach('audio_file', wav, 'a.wav');
  const audioKey = legacyKey('posts/audio', '.bin');
  await storeLegacy(audioKey, tagged);
  await sql('UPDATE post_audio SET file = $1 WHERE post_id = $2', [audioKey, audioPost.body.id]);

  const progress: ReprocessCounts[] = [];
  const first = await reprocessMedia((c) => progress.push(c));
  // The database is shared with the other test files: their rows may name files that are not in this app's folder.
  expect(totals(first).removed).toBe(1);
  expect(totals(first).rewritten).toBe(3);
  expect(totals(first).missing).toBeGreaterThanOrEqual(1);
  expect(progress.length).toBeGreaterThan(0);

  const [user] = await sql('SELECT profile_picture, banner FROM users WHERE id = $1', [alice.id]);
  expect(isCurrentMediaKey(user.profile_picture)).toBe(true);
  expect(user.profile_picture).toMatch(new RegExp(`^profile_pictures/[0-9a-f]{32}\\.${PHOTO_SIZE.upright.width}x${PHOTO_SIZE.upright.height}\\.[\\w-]+\\.jpg$`));
  const rewritten = await fs.readFile(mediaPath(user.profile_picture));
  expect(rewritten.includes(PHOTO_SERIAL)).toBe(false);
  expect((await sharp(rewritten).metadata()).exif).toBeUndefined();
  expect(await exists(user.profile_picture.replace(/\.jpg$/, '.320.webp'))).toBe(true);
  expect(await exists(photoKey)).toBe(false);
  expect(user.banner).toBeNull();
  expect(await exists(hostileKey)).toBe(false);

  const [media] = await sql('SELECT file FROM post_media WHERE id = $1', [imagePost.body.media[0].id]);
  expect(isCurrentMediaKey(media.file)).toBe(true);
  const [missing] = await sql('SELECT file FROM post_media WHERE id = $1', [second.body.media[0].id]);
  expect(missing.file).toBe(missingKey);

  const [audio] = await sql('SELECT file FROM post_audio WHERE post_id = $1', [audioPost.body.id]);
  expect(audio.file).toMatch(/^posts\/audio\/[0-9a-f]{32}\.wav$/);
  expect((await fs.readFile(mediaPath(audio.file))).equals(wav)).toBe(true);
  // What the API now answers serves: the profile picture, through /media/.
  const profile = await app.rest('GET', `/api/users/${alice.username}`);
  expect((await app.http().get(new URL(profile.body.profile_picture).pathname)).status).toBe(200);

  const again = await reprocessMedia();
  expect(totals(again)).toMatchObject({ rewritten: 0, removed: 0 });
});

test('when a stored picture is larger than the upload limits allow today, then reprocessing keeps it and its reference and counts it unreadable, never deleting a photo', async () => {
  const bob = await aResident(app);
  // 16,500 px wide: over today's 16,384 px a side, as pictures stored under the older 100-megapixel rule may be.
  const wide = await sharp({ create: { width: 16_500, height: 2, channels: 3, background: '#88aacc' } }).png().toBuffer();
  const wideKey = legacyKey('profile_pictures', '.png');
  await storeLegacy(wideKey, wide);
  await sql('UPDATE users SET profile_picture = $1 WHERE id = $2', [wideKey, bob.id]);

  const counts = await reprocessMedia();
  expect(counts.reduce((n, c) => n + c.unreadable, 0)).toBeGreaterThanOrEqual(1);
  const [user] = await sql('SELECT profile_picture FROM users WHERE id = $1', [bob.id]);
  expect(user.profile_picture).toBe(wideKey);
  expect((await fs.readFile(mediaPath(wideKey))).equals(wide)).toBe(true);
});
