import fs from 'node:fs';
import sharp from 'sharp';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { IMAGE_UPLOAD_PATHS, type UploadPath } from '../helpers/upload-paths.js';
import { aNeighbourhood } from '../builders/posts.js';

/**
 * An upload must never act as a page on the service's origin (DESIGN.md section 8). In a real Chromium: HTML, SVG
 * and script-bearing GIF, PNG and JPEG bytes, under every file-name trick, through every upload path; each URL the
 * API gives is opened as a victim who clicks a link would, and no script runs.
 */
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM_PATH);
if (!hasChromium) {
  console.warn(`SKIPPED: tests/api/media-browser.test.ts needs Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium; .ci/run does).`);
}
const describeInBrowser = hasChromium ? describe : describe.skip;

declare const document: { title: string };

const SCRIPT = `<script>document.title='pwned'</script>`;
const HTML = `<!doctype html><html><head><title>upload</title>${SCRIPT}</head><body onload="document.title='pwned'"></body></html>`;
const SVG = `<svg xmlns="http://www.w3.org/2000/svg" onload="document.title='pwned'"><script>document.title='pwned'</script></svg>`;
const FILE_NAMES = ['x.html', 'y.svg', 'z.png.html', 'a.htm', 'b.xhtml', '../../c.html', 'page', 'photo.jpg'];

interface Fixture {
  name: string;
  bytes: () => Promise<Buffer>;
  /** Bytes that only start like an image are refused; a real image with a payload around it is rewritten. */
  accepted: boolean;
}

const FIXTURES: Fixture[] = [
  { name: 'HTML behind GIF magic bytes', bytes: async () => Buffer.from('GIF89a' + HTML), accepted: false },
  { name: 'an SVG document', bytes: async () => Buffer.from(SVG), accepted: false },
  { name: 'HTML behind PNG magic bytes', bytes: async () => Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from(HTML)]), accepted: false },
  { name: 'a real GIF with HTML appended', bytes: async () => Buffer.concat([await solid('gif'), Buffer.from(HTML)]), accepted: true },
  { name: 'a real PNG with HTML in a text chunk and appended', bytes: async () => Buffer.concat([await pngWithText(HTML), Buffer.from(HTML)]), accepted: true },
  { name: 'a real JPEG with a script in its comment', bytes: async () => jpegWithComment(HTML), accepted: true },
];

async function solid(format: 'gif' | 'png' | 'jpeg'): Promise<Buffer> {
  return sharp({ create: { width: 8, height: 8, channels: 3, background: '#c0ffee' } })
    .toFormat(format)
    .toBuffer();
}

async function pngWithText(text: string): Promise<Buffer> {
  const png = await solid('png');
  const data = Buffer.concat([Buffer.from('Comment\0', 'latin1'), Buffer.from(text, 'latin1')]);
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write('tEXt', 4, 'latin1');
  data.copy(chunk, 8);
  const zlib = await import('node:zlib');
  chunk.writeUInt32BE(zlib.crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  // After IHDR (8 bytes of signature + 25 of IHDR).
  return Buffer.concat([png.subarray(0, 33), chunk, png.subarray(33)]);
}

async function jpegWithComment(text: string): Promise<Buffer> {
  const jpeg = await solid('jpeg');
  const payload = Buffer.from(text, 'latin1');
  const head = Buffer.from([0xff, 0xfe, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), head, payload, jpeg.subarray(2)]);
}

let app: TestApp;
let browser: Browser;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'off' });
  if (hasChromium) {
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'] });
  }
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describeInBrowser('hostile uploads opened in Chromium', () => {
  test.each(IMAGE_UPLOAD_PATHS.map((p) => [p.name, p] as const))('through %s: refused, or stored as an inert image whose page runs no script', async (_name, uploadPath: UploadPath) => {
    const context = await browser.newContext();
    try {
      for (const [i, fixture] of FIXTURES.entries()) {
        const filename = FILE_NAMES[i % FILE_NAMES.length]!;
        const { status, url } = await uploadPath.upload(app, { bytes: await fixture.bytes(), filename, contentType: filename.endsWith('svg') ? 'image/svg+xml' : 'text/html' });
        if (!fixture.accepted) {
          expect({ fixture: fixture.name, status }).toEqual({ fixture: fixture.name, status: 400 });
          continue;
        }
        expect({ fixture: fixture.name, status: status < 300 }).toEqual({ fixture: fixture.name, status: true });
        expect(url).toMatch(/\.(png|gif|jpg)$/);
        // As a victim would: a link opened in the browser, then each variant.
        for (const served of [url!, url!.replace(/\.\w+$/, '.320.webp')]) {
          const page = await context.newPage();
          const response = await page.goto(served);
          expect(response!.status()).toBe(200);
          const headers = response!.headers();
          expect(headers['content-type']).toMatch(/^image\/(png|gif|jpeg|webp)$/);
          expect(headers['x-content-type-options']).toBe('nosniff');
          expect(headers['content-security-policy']).toBe("default-src 'none'; sandbox");
          // Give any script the chance to run, then read the title the document ended with.
          await page.waitForLoadState('load');
          expect({ fixture: fixture.name, filename, title: await page.evaluate(() => document.title) }).not.toMatchObject({ title: 'pwned' });
          expect((await response!.body()).includes('<script>')).toBe(false);
          await page.close();
        }
      }
    } finally {
      await context.close();
    }
  });

  test('when the audio of a post is HTML behind audio magic bytes, then it is refused; a real audio file opened in the browser runs nothing', async () => {
    const { founder } = await aNeighbourhood(app);
    const fake = await app.http().post('/api/feed/posts/').set('Authorization', `Bearer ${founder.token}`).field('post_type', 'audio').attach('audio_file', Buffer.from('ID3' + HTML), 'x.html');
    expect(fake.status).toBe(400);
    const { aWav } = await import('../builders/posts.js');
    const withPayload = Buffer.concat([aWav(1), Buffer.from(HTML)]);
    const real = await app.http().post('/api/feed/posts/').set('Authorization', `Bearer ${founder.token}`).field('post_type', 'audio').attach('audio_file', withPayload, 'y.html');
    expect(real.status).toBe(201);
    const page = await browser.newPage();
    try {
      const response = await page.goto(real.body.audio_data.audio_file);
      expect(response!.headers()).toMatchObject({ 'content-type': 'audio/wav', 'x-content-type-options': 'nosniff', 'content-security-policy': "default-src 'none'; sandbox" });
      await page.waitForLoadState('load');
      expect(await page.evaluate(() => document.title)).not.toBe('pwned');
    } finally {
      await page.close();
    }
  });
});
