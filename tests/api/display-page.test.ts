// @run-alone: a browser page must render within 1 s of an event, which a machine busy with other test files outlasts (tests/runner/run-alone.mjs).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import QRCode from 'qrcode';
import type { Browser, Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aNeighbourhood, aPoll, aPost, aResidentOf, aWav } from '../builders/posts.js';
import { PNG_1X1 } from '../helpers/images.js';
import { aProduct, aStore } from '../builders/stores.js';
import { QR_OPTIONS } from '../../src/http/display/display-qr.js';
import { escapeHtml } from '../../src/http/display/display-page.js';
import { loadConfig } from '../../src/platform/config.js';
import { platform } from '../../src/platform/index.js';

/**
 * The neighbourhood display, `GET /display/{location_id}`: the page itself over HTTP, then the live page in
 * a real headless Chromium (the Debian `chromium` package; CHROMIUM_PATH overrides its path).
 */
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM_PATH);
if (!hasChromium) {
  console.warn(
    `SKIPPED: the display page's browser tests (tests/api/display-page.test.ts) need Chromium, and there is none at ${CHROMIUM_PATH}. ` +
      'Install it with `apt-get install -y --no-install-recommends chromium` (.ci/run does) or set CHROMIUM_PATH.',
  );
}
const describeInBrowser = hasChromium ? describe : describe.skip;
const OUTPUT_DIR = path.resolve('test-output');

// What the page.evaluate callbacks see, run in the browser (the project compiles without the DOM library).
declare const document: { querySelector(selector: string): any; body: any };
declare const window: Record<string, unknown>;
declare function getComputedStyle(el: unknown): { backgroundColor: string; borderLeftWidth: string };

let app: TestApp;
beforeAll(async () => {
  // Rate limits on, as in production: the page must live within the socket's event budget.
  app = await startTestApp();
});
afterAll(async () => {
  await app?.stop();
});

describe('GET /display/{location_id}', () => {
  test('when the place exists, then an HTML page with its name, counts and a QR code of the location feed, under a strict CSP', async () => {
    const place = await aNeighbourhood(app);
    await aPost(app, place.founder);
    const res = await app.http().get(`/display/${place.locationId}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const csp = res.headers['content-security-policy'];
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toMatch(/connect-src 'self' ws:\/\/127\.0\.0\.1:\d+ wss:\/\/127\.0\.0\.1:\d+/);
    expect(csp).not.toContain('unsafe-inline');
    expect(res.text).toContain(`data-location-id="${place.locationId}"`);
    expect(res.text).toContain(`>${place.city}</h1>`);
    expect(res.text).toMatch(/id="count-members"><span class="count"><strong class="count__value">1<\/strong> <span class="count__label"[^>]*>neighbour</);
    expect(res.text).toMatch(/id="count-posts"><span class="count"><strong class="count__value">1<\/strong>/);
    // The QR code is the absolute address of the location feed (the service's own base, not the caller's Host).
    const feedUrl = `${app.url}/api/feed/hybrid/location/${place.locationId}/`;
    expect(res.text).toContain(`href="${feedUrl}"`);
    expect(res.text).toContain(await QRCode.toString(feedUrl, QR_OPTIONS));
    // No script or style from anywhere else, nothing inline.
    expect(res.text).not.toMatch(/<script(?![^>]*\bsrc="\/display\/assets\/)/);
    expect(res.text).not.toMatch(/\sstyle=/);
  });

  test('when the id is unknown or malformed, then 404 with a readable page saying the place does not exist', async () => {
    for (const address of [`/display/${crypto.randomUUID()}`, '/display/not-a-place', '/display/1%3Cscript%3E', '/display/']) {
      const res = await app.http().get(address);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('This place does not exist');
      expect(res.text).not.toContain('<script');
      expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    }
  });

  test('when a display asks for the place\'s summary, then it gets the name and counts it shows, nothing more; unknown places are 404', async () => {
    const place = await aNeighbourhood(app);
    await aResidentOf(app, place);
    const res = await app.http().get(`/display/${place.locationId}/summary.json`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({ id: place.locationId, name: expect.any(String), total_users: 2, post_count: 0, store_count: 0 });
    for (const address of [`/display/${crypto.randomUUID()}/summary.json`, '/display/not-a-place/summary.json']) {
      expect(await app.http().get(address)).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
    }
  });

  test('when ?theme=dark or light is given, then the page forces it; anything else follows the screen', async () => {
    const place = await aNeighbourhood(app);
    expect((await app.http().get(`/display/${place.locationId}?theme=dark`)).text).toContain('<html lang="en" data-theme="dark">');
    expect((await app.http().get(`/display/${place.locationId}/?theme=light`)).text).toContain('<html lang="en" data-theme="light">');
    expect((await app.http().get(`/display/${place.locationId}?theme="><b>`)).text).toContain('<html lang="en">');
  });

  test('when a place name holds markup, then the page shows it escaped', async () => {
    const user = await aResidentOf(app);
    const res = await app.rest('POST', '/api/users/update-location/', { token: user.token, body: { country: 'Postland', city: `<b>Tag & "Town"</b> ${crypto.randomUUID().slice(0, 8)}` } });
    expect(res.status).toBe(200);
    const page = await app.http().get(`/display/${res.body.location.id}`);
    expect(page.text).toContain('&lt;b&gt;Tag &amp; &quot;Town&quot;&lt;/b&gt;');
    expect(page.text).not.toContain('<b>Tag');
  });

  test('when the page loads its assets, then the script, the stylesheet and the client (with socket.io) come from the service', async () => {
    for (const [asset, type] of [
      ['/display/assets/display.js', /javascript/],
      ['/display/assets/display.css', /text\/css/],
      ['/client/hyperlocal.js', /javascript/],
      ['/client/socket-io.js', /javascript/],
      ['/client/vendor/socket.io.esm.min.js', /javascript/],
    ] as const) {
      const res = await app.http().get(asset);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(type);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    const missing = await app.http().get('/display/assets/nothing-here.js');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'Not found.' });
    // The client's modules are served, not its type declarations nor anything else of the package.
    for (const other of ['/client/index.d.ts', '/client/../package.json', '/client/']) expect((await app.http().get(other)).status).toBe(404);
    // Of socket.io's dist, only the bundle the client imports.
    for (const other of ['/client/vendor/socket.io.esm.min.js.map', '/client/vendor/socket.io.js']) expect((await app.http().get(other)).status).toBe(404);
  });
});

describe('DISPLAY_FEED_URL', () => {
  test('when it is set, then the QR code leads there with the place filled in', async () => {
    const place = await aNeighbourhood(app);
    const saved = platform.config.DISPLAY_FEED_URL;
    platform.config.DISPLAY_FEED_URL = 'https://app.hyperlocal.example/places/{location_id}?from=display';
    try {
      const page = await app.http().get(`/display/${place.locationId}`);
      const target = `https://app.hyperlocal.example/places/${place.locationId}?from=display`;
      expect(page.text).toContain(`href="${escapeHtml(target)}"`);
      expect(page.text).toContain(await QRCode.toString(target, QR_OPTIONS));
    } finally {
      platform.config.DISPLAY_FEED_URL = saved;
    }
  });

  test('when it has no {location_id} or is not an absolute URL, then the service refuses to start, naming it', () => {
    for (const value of ['https://app.example/places/', '/places/{location_id}']) {
      expect(() => loadConfig({}, { DISPLAY_FEED_URL: value })).toThrow(/DISPLAY_FEED_URL/);
    }
    expect(loadConfig({}, { DISPLAY_FEED_URL: '' }).DISPLAY_FEED_URL).toBeUndefined();
  });
});

describeInBrowser('the display in Chromium', () => {
  let chromium: typeof import('playwright-core').chromium;
  let browser: Browser;

  beforeAll(async () => {
    ({ chromium } = await import('playwright-core'));
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'] });
    fs.mkdirSync(OUTPUT_DIR, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** The page, with console errors and CSP refusals collected: a page the browser had to censor is a defect. */
  async function openDisplay(locationId: string, query = ''): Promise<{ page: Page; problems: string[] }> {
    const problems: string[] = [];
    // A context of its own (axe-core's builder needs a page made through one); closed with the browser.
    const page = await (await browser.newContext({ viewport: { width: 1600, height: 900 } })).newPage();
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(msg.text());
    });
    page.on('pageerror', (err) => problems.push(String(err)));
    page.on('response', (res) => {
      if (res.status() >= 400) problems.push(`${res.status()} ${res.url()}`);
    });
    await page.goto(`${app.url}/display/${locationId}${query}`);
    await page.waitForSelector('body[data-status="live"]', { timeout: 10_000 });
    return { page, problems };
  }

  const postCard = (page: Page, text: string) => page.locator('.post', { hasText: text });

  test('when posts, polls, votes and likes happen, then the page shows them live; markup shows as text; a dropped socket catches up', async () => {
    const place = await aNeighbourhood(app);
    const neighbour = await aResidentOf(app, place);
    const before = await aPost(app, place.founder, { content: 'Lost cat near the bakery, answers to Miso' });
    const { page, problems } = await openDisplay(place.locationId);

    // What was posted before the page opened is there at load.
    await postCard(page, 'answers to Miso').waitFor({ timeout: 5000 });
    expect(await page.locator('#count-posts .count__value').textContent()).toBe('1');
    expect(await page.locator('#count-members .count__value').textContent()).toBe('2');

    // A post created over REST appears within a second.
    const text = `Street party on Saturday ${crypto.randomUUID().slice(0, 6)}`;
    const started = Date.now();
    const created = await aPost(app, place.founder, { content: text });
    await postCard(page, text).waitFor({ timeout: 1000 });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await page.locator(`.post[data-post-id="${created.id}"]`).count()).toBe(1);
    expect(await page.locator('#count-posts .count__value').textContent()).toBe('2');
    // Newest first.
    expect(await page.locator('.post').first().getAttribute('data-post-id')).toBe(created.id);

    // Markup in a post is shown as text, never run or rendered.
    const hostile = '<script>window.__pwned = true</script><img src=x onerror="window.__pwned = true"><b>bold</b>';
    const markup = await aPost(app, neighbour, { content: hostile });
    const markupCard = page.locator(`.post[data-post-id="${markup.id}"]`);
    await markupCard.waitFor({ timeout: 1000 });
    expect(await markupCard.locator('.post__content').textContent()).toBe(hostile);
    expect(await markupCard.locator('script, b, .post__content img').count()).toBe(0);
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();

    // An image post shows its picture (allowed by the page's img-src).
    const imageRes = await app.http().post('/api/feed/posts/').set('Authorization', `Bearer ${neighbour.token}`).field('post_type', 'image').field('content', 'Sunset over the square').attach('media', PNG_1X1, 'sunset.png');
    expect(imageRes.status).toBe(201);
    const picture = page.locator(`.post[data-post-id="${imageRes.body.id}"] .post__images img`);
    await picture.waitFor({ timeout: 1000 });
    await page.waitForFunction((id) => (document.querySelector(`.post[data-post-id="${id}"] .post__images img`))?.naturalWidth === 1, imageRes.body.id, { timeout: 5000 });

    // Describing (DESIGN.md section 13): the alt text is the image's `alt`; a content warning stands in place of the
    // content, which is there to open; an edit redraws the post live.
    const described = await app
      .http()
      .post('/api/feed/posts/')
      .set('Authorization', `Bearer ${neighbour.token}`)
      .field('post_type', 'image')
      .field('content', 'The storm took the old oak down')
      .field('content_warning', 'Storm damage')
      .field('media_alt_texts', 'A fallen oak across Elm Street')
      .attach('media', PNG_1X1, 'oak.png');
    expect(described.status).toBe(201);
    const describedCard = page.locator(`.post[data-post-id="${described.body.id}"]`);
    await describedCard.waitFor({ timeout: 1000 });
    expect(await describedCard.locator('.post__images img').getAttribute('alt')).toBe('A fallen oak across Elm Street');
    expect(await describedCard.locator('details.post__warning > summary').textContent()).toBe('Content warning: Storm damage');
    expect(await describedCard.locator('.post__content').isVisible()).toBe(false);
    await describedCard.locator('details.post__warning > summary').click();
    expect(await describedCard.locator('.post__content').isVisible()).toBe(true);
    const edit = await app.rest('PATCH', `/api/feed/posts/${described.body.id}/`, { token: neighbour.token, body: { content: 'The storm took the old oak down; the road is clear again' } });
    expect(edit.status).toBe(200);
    await describedCard.locator('.post__content', { hasText: 'the road is clear again' }).waitFor({ state: 'attached', timeout: 1000 });
    expect(await describedCard.locator('.post__edited').count()).toBe(1);

    // The neighbourhood kinds (DESIGN.md section 13): an event shows its time and how many are going; an alert stands
    // out; a lost-and-found post says what it is.
    const party = await aPost(app, place.founder, { post_type: 'event', title: 'Street party', content: 'Bring a chair', event_starts_at: '2031-06-01T16:00:00Z', event_ends_at: '2031-06-01T22:00:00Z', event_place_name: 'Elm Street', event_capacity: 40 });
    expect((await app.rest('POST', `/api/feed/posts/${party.id}/rsvp/`, { token: neighbour.token, body: { status: 'going' } })).status).toBe(200);
    const alert = await aPost(app, neighbour, { post_type: 'alert', title: 'Water cut', content: 'No water on Elm Street until 6 pm' });
    const lostCat = await aPost(app, neighbour, { post_type: 'lost_found', content: 'Grey cat seen by the church', lost_found_status: 'found' });
    const alertCard = page.locator(`.post[data-post-id="${alert.id}"]`);
    await alertCard.waitFor({ timeout: 1000 });
    expect(await alertCard.getAttribute('class')).toContain('post--alert');
    expect(await alertCard.locator('.post__kind').first().textContent()).toBe('Alert');
    expect(await alertCard.evaluate((el) => getComputedStyle(el).borderLeftWidth)).not.toBe('0px');
    await page.reload();
    await page.waitForSelector('body[data-status="live"]', { timeout: 10_000 });
    const partyCard = page.locator(`.post[data-post-id="${party.id}"]`);
    await partyCard.waitFor({ timeout: 3000 });
    expect(await partyCard.locator('time.event__when').getAttribute('datetime')).toBe('2031-06-01T16:00:00.000Z');
    expect(await partyCard.locator('.event__when').textContent()).toMatch(/Jun|6|1/);
    expect(await partyCard.locator('.event__going').textContent()).toBe('1 of 40 going');
    expect(await partyCard.locator('.event__where').textContent()).toBe('Elm Street');
    expect(await page.locator(`.post[data-post-id="${lostCat.id}"] .post__kind--found`).textContent()).toBe('Found');

    // No accessibility violation axe-core finds, with every kind of post on screen.
    // (Arrival animations fade a card in: scanned half-faded, its text would read as low contrast.)
    await page.emulateMedia({ reducedMotion: 'reduce' });
    const axe = await new AxeBuilder({ page }).analyze();
    expect(axe.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary}`) }))).toEqual([]);

    // A poll appears with empty bars; a vote over REST moves the voted option's bar to 100 %.
    const poll = await aPoll(app, place.founder, { poll_question: 'Where shall the market go?', poll_options: ['Park', 'Square', 'Car park'] });
    const pollCard = page.locator(`.post[data-post-id="${poll.id}"]`);
    await page.locator(`.post[data-post-id="${poll.id}"][data-live="true"]`).waitFor({ timeout: 3000 });
    const square = poll.poll_data.options[1];
    const bar = pollCard.locator(`[data-option-id="${square.id}"] .poll__bar`);
    expect(await bar.evaluate((el) => (el as any).style.width)).toBe('0%');
    const voted = await app.rest('POST', `/api/feed/posts/${poll.id}/vote_poll/`, { token: neighbour.token, body: { option_id: square.id } });
    expect(voted.status).toBe(200);
    await page.waitForFunction(
      ([id, optionId]) => (document.querySelector(`.post[data-post-id="${id}"] [data-option-id="${optionId}"] .poll__bar`))?.style.width === '100%',
      [poll.id, square.id],
      { timeout: 1000 },
    );
    expect(await pollCard.locator('.poll__total').textContent()).toMatch(/^1 vote ·/);
    expect(await pollCard.locator(`[data-option-id="${square.id}"] .poll__percent`).textContent()).toBe('100%');

    // Likes move live (post:stats is coalesced to at most one a second per post).
    expect((await app.rest('POST', `/api/feed/posts/${before.id}/like/`, { token: neighbour.token })).status).toBe(200);
    await page.waitForFunction((id) => document.querySelector(`.post[data-post-id="${id}"] [data-stat="likes"] .post__stat-value`)?.textContent === '1', before.id, { timeout: 3000 });

    await page.screenshot({ path: path.join(OUTPUT_DIR, 'display-light.png') });

    // The network drops: the socket's transport closes and reconnections fail while the route is blocked.
    await page.route('**/socket.io/**', (route) => route.abort());
    await page.routeWebSocket(/\/socket\.io\//, (ws) => ws.close());
    for (const socket of await app.server.io.in(`sub:location:${place.locationId}`).fetchSockets()) {
      app.server.io.of('/').sockets.get(socket.id)?.conn.close();
    }
    await page.waitForSelector('body[data-status="offline"]', { timeout: 5000 });
    const missed = await aPost(app, neighbour, { content: `Posted while the display was offline ${crypto.randomUUID().slice(0, 6)}` });
    // Someone moves in meanwhile: the location:updated event is lost with the socket.
    await aResidentOf(app, place);
    await page.waitForTimeout(300);
    expect(await page.locator(`.post[data-post-id="${missed.id}"]`).count()).toBe(0);

    // The network is back: the page reconnects and catches up from the location's posts, once per post.
    await page.unrouteAll();
    await page.unroute('**/socket.io/**').catch(() => undefined);
    await page.waitForSelector('body[data-status="live"]', { timeout: 15_000 });
    await page.locator(`.post[data-post-id="${missed.id}"]`).waitFor({ timeout: 5000 });
    expect(await page.locator(`.post[data-post-id="${created.id}"]`).count()).toBe(1);
    expect(await page.locator('#count-posts .count__value').textContent()).toBe('10');
    // The neighbours count is read again after the reconnection.
    await page.waitForFunction(() => document.querySelector('#count-members .count__value')?.textContent === '3', undefined, { timeout: 3000 });
    // The poll's room was joined again: a vote after the reconnection still moves the bars.
    await page.locator(`.post[data-post-id="${poll.id}"][data-live="true"]`).waitFor({ timeout: 3000 });
    const park = poll.poll_data.options[0];
    expect((await app.rest('POST', `/api/feed/posts/${poll.id}/vote_poll/`, { token: place.founder.token, body: { option_id: park.id } })).status).toBe(200);
    await page.waitForFunction(
      ([id, optionId]) => (document.querySelector(`.post[data-post-id="${id}"] [data-option-id="${optionId}"] .poll__bar`))?.style.width === '50%',
      [poll.id, park.id],
      { timeout: 1000 },
    );

    // A deleted post leaves the page.
    expect((await app.rest('DELETE', `/api/feed/posts/${markup.id}/`, { token: neighbour.token })).status).toBe(204);
    await markupCard.waitFor({ state: 'detached', timeout: 1000 });

    expect(problems.filter((p) => !p.includes('ERR_FAILED') && !p.includes('WebSocket'))).toEqual([]);
    await page.close();
  });

  test('when the dark theme is forced, then the page is dark; audio is marked as audio; neighbours joining and a server-side disconnect are followed', async () => {
    const place = await aNeighbourhood(app);
    await aPoll(app, place.founder);
    await aPost(app, place.founder, { content: 'Book swap at the library, Thursday 6pm' });
    const audio = await app.http().post('/api/feed/posts/').set('Authorization', `Bearer ${place.founder.token}`).field('post_type', 'audio').field('content', 'Choir rehearsal').attach('audio_file', aWav(3), 'choir.wav');
    expect(audio.status).toBe(201);
    const { page, problems } = await openDisplay(place.locationId, '?theme=dark');
    await page.locator('.post').nth(2).waitFor({ timeout: 5000 });
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(17, 19, 21)');
    const audioCard = page.locator(`.post[data-post-id="${audio.body.id}"]`);
    expect(await audioCard.locator('.post__kind').textContent()).toBe('Audio');
    expect(await audioCard.locator('.post__audio').textContent()).toContain('Audio · 0:03');
    await page.screenshot({ path: path.join(OUTPUT_DIR, 'display-dark.png') });

    // A neighbour moves in: the place's new count is pushed (location:updated).
    expect(await page.locator('#count-members .count__value').textContent()).toBe('1');
    await aResidentOf(app, place);
    await page.waitForFunction(() => document.querySelector('#count-members .count__value')?.textContent === '2', undefined, { timeout: 3000 });

    // The server closes the socket on purpose (a drain): socket.io does not retry that by itself; the page does.
    app.server.io.in(`sub:location:${place.locationId}`).disconnectSockets(true);
    await page.waitForSelector('body[data-status="offline"]', { timeout: 3000 });
    const meanwhile = await aPost(app, place.founder, { content: 'Posted during the restart' });
    await page.waitForSelector('body[data-status="live"]', { timeout: 10_000 });
    await page.locator(`.post[data-post-id="${meanwhile.id}"]`).waitFor({ timeout: 3000 });
    expect(problems).toEqual([]);
    await page.close();
  });

  test('when many polls are on screen, then a reconnection stays within the socket event budget and every poll follows its votes', async () => {
    const place = await aNeighbourhood(app);
    const voter = await aResidentOf(app, place);
    const polls = [];
    for (let i = 0; i < 20; i++) polls.push(await aPoll(app, place.founder, { poll_question: `Question ${i}?` }));
    const { page, problems } = await openDisplay(place.locationId);
    await page.waitForFunction(() => document.body.querySelectorAll('.post[data-live="true"]').length === 20, undefined, { timeout: 10_000 });
    for (const socket of await app.server.io.in(`sub:location:${place.locationId}`).fetchSockets()) {
      app.server.io.of('/').sockets.get(socket.id)?.conn.close();
    }
    await page.waitForSelector('body[data-status="offline"]', { timeout: 3000 });
    await page.waitForSelector('body[data-status="live"]', { timeout: 10_000 });
    const oldest = polls[0];
    expect((await app.rest('POST', `/api/feed/posts/${oldest.id}/vote_poll/`, { token: voter.token, body: { option_id: oldest.poll_data.options[2].id } })).status).toBe(200);
    await page.waitForFunction(
      ([id, optionId]) => document.querySelector(`.post[data-post-id="${id}"] [data-option-id="${optionId}"] .poll__bar`)?.style.width === '100%',
      [oldest.id, oldest.poll_data.options[2].id],
      { timeout: 1000 },
    );
    expect(problems).toEqual([]);
    await page.close();
  });

  test("when the place has shops, then the page lists its shops and products, and shows product and store shares with their price", async () => {
    const place = await aNeighbourhood(app);
    const seller = await aResidentOf(app, place);
    const store = await aStore(app, seller, { name: 'Corner Bakery', description: 'Sourdough every morning' });
    const product = await aProduct(app, seller, store.id, { name: 'Rye loaf', price: '4.20' });
    const { page, problems } = await openDisplay(place.locationId);
    await page.locator(`#stores [data-id="${store.id}"]`, { hasText: 'Corner Bakery' }).waitFor({ timeout: 5000 });
    expect(await page.locator(`#products [data-id="${product.id}"]`).textContent()).toContain('4.20');
    expect(await page.locator('#count-stores .count__value').textContent()).toBe('1');

    const productShare = await aPost(app, seller, { post_type: 'product_share', content: 'Fresh from the oven', shared_product_id: product.id });
    const productCard = page.locator(`.post[data-post-id="${productShare.id}"]`);
    await productCard.waitFor({ timeout: 1000 });
    expect(await productCard.locator('.share__name').textContent()).toBe('Rye loaf');
    expect(await productCard.locator('.share__price').textContent()).toBe('4.20');
    expect(await productCard.locator('.post__kind').textContent()).toBe('For sale');
    const storeShare = await aPost(app, seller, { post_type: 'store_share', content: 'Come and see us', shared_store_id: store.id });
    await page.locator(`.post[data-post-id="${storeShare.id}"] .share__name`, { hasText: 'Corner Bakery' }).waitFor({ timeout: 1000 });
    await page.screenshot({ path: path.join(OUTPUT_DIR, 'display-shops.png') });
    expect(problems).toEqual([]);
    await page.close();
  });

  test('when neighbours tag posts, then the page shows the trending tags of the place, by people, and follows new tagged posts', async () => {
    const place = await aNeighbourhood(app);
    const neighbour = await aResidentOf(app, place);
    const tag = `fete${crypto.randomUUID().slice(0, 6)}`;
    await aPost(app, place.founder, { content: `Who is coming to the #${tag}?` });
    await aPost(app, neighbour, { content: `Me! #${tag}` });
    const { page, problems } = await openDisplay(place.locationId);
    const item = page.locator('#tags .tags__item', { hasText: `#${tag}` });
    await item.waitFor({ timeout: 5000 });
    expect(await item.locator('.tags__note').textContent()).toBe('2 people');
    await aPost(app, neighbour, { content: `And a #second${tag} tag` });
    await page.locator('#tags .tags__item', { hasText: `#second${tag}` }).waitFor({ timeout: 10_000 });
    expect(await page.locator('#tags .tags__name').allTextContents()).toEqual([`#${tag}`, `#second${tag}`]);
    await page.screenshot({ path: path.join(OUTPUT_DIR, 'display-tags.png') });
    expect(problems).toEqual([]);
    await page.close();
  }, 30_000);

  test("when the screen prefers a dark scheme, then the page is dark unless ?theme=light forces light", async () => {
    const place = await aNeighbourhood(app);
    const context = await browser.newContext({ colorScheme: 'dark' });
    const page = await context.newPage();
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await page.goto(`${app.url}/display/${place.locationId}`);
    expect(await background()).toBe('rgb(17, 19, 21)');
    await page.goto(`${app.url}/display/${place.locationId}?theme=light`);
    expect(await background()).toBe('rgb(244, 241, 234)');
    await context.close();
  });

  test('when the address names no place, then the browser shows the message', async () => {
    const missing = await browser.newPage();
    const res = await missing.goto(`${app.url}/display/${crypto.randomUUID()}`);
    expect(res?.status()).toBe(404);
    expect(await missing.locator('h1').textContent()).toBe('This place does not exist');
    await missing.close();
  });
});
