import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import S3rver from 's3rver';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';
import { JPEG_1X1, PNG_1X1, imageShape } from '../helpers/images.js';
import { sql } from '../helpers/sql.js';
import { reprocessMedia } from '../../src/modules/media/reprocess.service.js';

/**
 * Uploads on S3: a local S3-compatible server (s3rver, standing in for the outside world) and the app
 * configured with S3_* as in production.
 */
const BUCKET = 'hyperlocal-media';
let s3: S3rver;
let s3Dir: string;
let endpoint: string;
let app: TestApp;

beforeAll(async () => {
  s3Dir = await fs.mkdtemp(path.join(os.tmpdir(), 'hyperlocal-s3rver-'));
  s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3Dir, configureBuckets: [{ name: BUCKET, configs: [] }] });
  const address = (await s3.run()) as AddressInfo;
  endpoint = `http://127.0.0.1:${address.port}`;
  app = await startTestApp({
    S3_BUCKET: BUCKET,
    S3_ENDPOINT: endpoint,
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_REGION: 'us-east-1',
  });
});
afterAll(async () => {
  await app?.stop();
  await s3?.close();
  await fs.rm(s3Dir, { recursive: true, force: true });
});

async function fetchBytes(url: string): Promise<{ status: number; type: string | null; cacheControl: string | null; bytes: Buffer }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), cacheControl: res.headers.get('cache-control'), bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('profile pictures stored on S3', () => {
  test('when a profile picture is uploaded, then its URL points into the bucket on the S3 endpoint and serves the image, written anew, with its type and caching set on the object and its variants beside it', async () => {
    const alice = await aUser(app);
    const res = await app.http().patch('/api/users/profile/').set('Authorization', `Bearer ${alice.token}`).attach('profile_picture', PNG_1X1, 'me.png');
    expect(res.status).toBe(200);
    expect(res.body.profile_picture).toMatch(new RegExp(`^${endpoint}/${BUCKET}/profile_pictures/[0-9a-f]{32}\\.1x1\\.[\\w-]+\\.png$`));
    const stored = await fetchBytes(res.body.profile_picture);
    expect(stored.status).toBe(200);
    // A whole image: no aws-chunked framing around the body.
    expect(await imageShape(stored.bytes)).toEqual(await imageShape(PNG_1X1));
    expect(stored.type).toBe('image/png');
    expect(stored.cacheControl).toBe('public, max-age=31536000, immutable');
    const thumbnail = await fetchBytes(res.body.profile_picture.replace(/\.png$/, '.320.webp'));
    expect(thumbnail).toMatchObject({ status: 200, type: 'image/webp' });
    expect(await imageShape(thumbnail.bytes)).toEqual({ format: 'webp', width: 1, height: 1 });
    // Not served by the app itself.
    expect((await app.rest('GET', `/media/${new URL(res.body.profile_picture).pathname.split(`/${BUCKET}/`)[1]}`)).status).toBe(404);
  });

  test('when the picture is replaced, then the new object is served and the old object is deleted from the bucket', async () => {
    const alice = await aUser(app);
    const first = await app.http().put('/api/users/profile/update/').set('Authorization', `Bearer ${alice.token}`).attach('profile_picture', PNG_1X1, 'a.png');
    const second = await app.http().put('/api/users/profile/update/').set('Authorization', `Bearer ${alice.token}`).attach('banner', JPEG_1X1, 'b.jpg').attach('profile_picture', JPEG_1X1, 'c.jpg');
    expect(second.status).toBe(200);
    expect(second.body.banner).toMatch(new RegExp(`^${endpoint}/${BUCKET}/users/banners/`));
    expect(await imageShape((await fetchBytes(second.body.profile_picture)).bytes)).toEqual(await imageShape(JPEG_1X1));
    expect(await imageShape((await fetchBytes(second.body.banner)).bytes)).toEqual(await imageShape(JPEG_1X1));
    expect((await fetchBytes(first.body.profile_picture)).status).toBe(404);
    for (const size of [320, 1280]) expect((await fetchBytes(first.body.profile_picture.replace(/\.png$/, `.${size}.webp`))).status).toBe(404);
  });
});

describe('media:reprocess on S3', () => {
  test('when a picture stored by an older release under a client name is in the bucket, then it is rewritten under a new name with its type and caching, and the old object is deleted', async () => {
    const { S3Client, PutObjectCommand } = await import('@aws-sdk/client-s3');
    const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, requestChecksumCalculation: 'WHEN_REQUIRED' });
    const oldKey = `profile_pictures/${crypto.randomUUID()}.html`;
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: oldKey, Body: PNG_1X1, ContentType: 'text/html' }));
    client.destroy();
    const alice = await aUser(app);
    await sql('UPDATE users SET profile_picture = $1 WHERE id = $2', [oldKey, alice.id]);

    await reprocessMedia();

    const [row] = await sql('SELECT profile_picture FROM users WHERE id = $1', [alice.id]);
    expect(row.profile_picture).toMatch(/^profile_pictures\/[0-9a-f]{32}\.1x1\.[\w-]+\.png$/);
    const stored = await fetchBytes(`${endpoint}/${BUCKET}/${row.profile_picture}`);
    expect(stored).toMatchObject({ status: 200, type: 'image/png', cacheControl: 'public, max-age=31536000, immutable' });
    expect((await fetchBytes(`${endpoint}/${BUCKET}/${oldKey}`)).status).toBe(404);
  });
});
