import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aNeighbourhood, aPost, aResidentOf } from '../builders/posts.js';
import { placeSummaries, placeSummaryClock } from '../../src/modules/locations/place-summary.js';
import { DISPLAY_RATE_LIMIT } from '../../src/http/display/display.route.js';

/**
 * What a crowd of screens costs (issue 22): the display page and its summary.json read a place's counts at most
 * once per cache window (`placeSummaries.loads` counts the reads), and each client address has a budget.
 * Rate limits are on, as in production.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterEach(() => {
  placeSummaryClock.now = () => Date.now();
});
afterAll(async () => {
  await app.stop();
});

/** A request from its own client address (the test client is a trusted proxy: loopback). */
const fromAddress = (address: string, path: string) => app.http().get(path).set('X-Forwarded-For', address);

describe('display reads', () => {
  test('when a hundred screens load one place at once, then its counts are read once, and a post made within the window shows on the next read only', async () => {
    const place = await aNeighbourhood(app);
    // One cache window for the whole test, however long a loaded machine takes to serve it.
    const windowStart = Date.now();
    placeSummaryClock.now = () => windowStart;
    const loadsBefore = placeSummaries.loads;
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => fromAddress(`10.22.${Math.floor(i / 250)}.${(i % 250) + 1}`, i % 2 ? `/display/${place.locationId}` : `/display/${place.locationId}/summary.json`)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(100).fill(200));
    expect(answers[0].body).toEqual({ id: place.locationId, name: place.city, total_users: 1, post_count: 0, store_count: 0 });
    expect(placeSummaries.loads - loadsBefore).toBe(1);

    // The cached counts are what the screens get within the window: a new post is not counted yet (the page
    // itself hears it live over its socket).
    await aPost(app, place.founder);
    expect((await fromAddress('10.22.1.1', `/display/${place.locationId}/summary.json`)).body).toMatchObject({ post_count: 0 });
    expect(placeSummaries.loads - loadsBefore).toBe(1);

    // Someone moving in changes the place (location.updated): the next read counts again, so a screen that
    // reconnects shows the new neighbour.
    await aResidentOf(app, place);
    expect((await fromAddress('10.22.1.2', `/display/${place.locationId}/summary.json`)).body).toMatchObject({ total_users: 2, post_count: 1 });
    expect(placeSummaries.loads - loadsBefore).toBe(2);
  });

  test('when one address asks for pages and summaries past its budget, then 429 with Retry-After; other addresses are still served', async () => {
    const place = await aNeighbourhood(app);
    const spender = '10.23.0.1';
    for (let sent = 0; sent < DISPLAY_RATE_LIMIT.points; sent += 20) {
      const batch = await Promise.all(Array.from({ length: 20 }, (_, i) => fromAddress(spender, i % 2 ? `/display/${place.locationId}` : `/display/${place.locationId}/summary.json`)));
      expect(batch.map((a) => a.status)).toEqual(Array(20).fill(200));
    }
    const summary = await fromAddress(spender, `/display/${place.locationId}/summary.json`);
    expect(summary.status).toBe(429);
    expect(Number(summary.headers['retry-after'])).toBeGreaterThan(0);
    expect(summary.body).toEqual({ detail: `Request was throttled. Expected available in ${summary.headers['retry-after']} second${summary.headers['retry-after'] === '1' ? '' : 's'}.` });
    const page = await fromAddress(spender, `/display/${place.locationId}`);
    expect(page.status).toBe(429);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(Number(page.headers['retry-after'])).toBeGreaterThan(0);
    expect(page.text).toContain(`<meta http-equiv="refresh" content="${page.headers['retry-after']}">`);
    // An unknown or malformed id spends the same budget: scanning ids is no way around it.
    expect((await fromAddress(spender, '/display/not-a-place/summary.json')).status).toBe(429);
    expect((await fromAddress('10.23.0.2', `/display/${place.locationId}/summary.json`)).status).toBe(200);
  });
});
