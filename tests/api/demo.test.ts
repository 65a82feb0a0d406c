import { runDemo } from '../../scripts/demo/run.js';
import { HOST_USERNAME } from '../../scripts/demo/city.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { sql } from '../helpers/sql.js';

/**
 * `npm run demo` against the real service in-process: it fills the database through the public API, a second run
 * adds nothing, and the display address it prints answers. The smallest city the issue asks for (50 people),
 * with fewer posts than the default to keep the test short (the default size is tried by hand: see docs/demo.md).
 */
const admin = { email: 'demo-admin@example.test', password: 'demo-admin-password' };
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ADMIN_EMAIL: admin.email, ADMIN_PASSWORD: admin.password });
  // The demo's people are the same on every run: a test database kept from an earlier run already has them. Start
  // from none, as a new user's database does (their stores, posts, memberships... go with them).
  await sql(`DELETE FROM users WHERE email LIKE 'demo-%@example.org' OR email = 'demo@example.org'`);
});
afterAll(async () => {
  await app.stop();
});

/** What the demo's people made (the test database is shared with other files, so count only theirs). */
async function census() {
  const [row] = await sql(
    `WITH demo AS (SELECT id FROM users WHERE email LIKE 'demo-%@example.org' OR email = 'demo@example.org')
     SELECT (SELECT count(*) FROM demo)::int AS users,
            (SELECT count(*) FROM stores WHERE owner_id IN (SELECT id FROM demo))::int AS stores,
            (SELECT count(*) FROM products p JOIN stores s ON s.id = p.store_id WHERE s.owner_id IN (SELECT id FROM demo))::int AS products,
            (SELECT count(*) FROM communities WHERE owner_id IN (SELECT id FROM demo))::int AS communities,
            (SELECT count(*) FROM posts WHERE user_id IN (SELECT id FROM demo))::int AS posts,
            (SELECT count(*) FROM comments WHERE user_id IN (SELECT id FROM demo))::int AS comments,
            (SELECT count(*) FROM post_likes WHERE user_id IN (SELECT id FROM demo))::int AS likes,
            (SELECT count(*) FROM conversation_participants WHERE user_id = (SELECT id FROM users WHERE username = $1))::int AS conversations,
            (SELECT count(*) FROM messages WHERE sender_id IN (SELECT id FROM demo))::int AS messages`,
    [HOST_USERNAME],
  );
  const types = await sql<{ post_type: string }>(`SELECT DISTINCT post_type FROM posts WHERE user_id IN (SELECT id FROM users WHERE email LIKE 'demo-%@example.org' OR email = 'demo@example.org')`);
  return { ...row, types: types.map((t) => t.post_type).sort() };
}

test('when the demo runs twice (without, then with an administrator), then the city exists once and the printed display address answers', async () => {
  // As a new user runs it: no administrator, people sign up over the public register.
  const first = await runDemo({ url: app.url, users: 50, postsPerPerson: 0.6, quiet: true });
  expect(first.created.users).toBe(50);
  const after = await census();
  expect(after.users).toBeGreaterThanOrEqual(50);
  expect(after.types).toEqual(['alert', 'audio', 'community_share', 'event', 'image', 'lost_found', 'poll', 'product_share', 'recommendation', 'store_share', 'text']);
  // The neighbourhood kinds (DESIGN.md section 13): a street party with RSVPs, a lost cat found, a recommended shop, one alert.
  expect({ events: first.created.events, rsvps: first.created.rsvps, lost_found: first.created.lost_found, recommendations: first.created.recommendations, alerts: first.created.alerts }).toEqual({ events: 1, rsvps: 6, lost_found: 1, recommendations: 1, alerts: 1 });
  const [party] = await sql(`SELECT e.going_count, e.interested_count FROM post_events e JOIN posts p ON p.id = e.post_id JOIN users u ON u.id = p.user_id WHERE u.username = $1`, [HOST_USERNAME]);
  expect(party).toEqual({ going_count: 4, interested_count: 2 });
  const [cat] = await sql(`SELECT lost_found_status, resolved_at FROM posts WHERE post_type = 'lost_found' AND location_id = $1`, [first.mainLocationId]);
  expect(cat).toMatchObject({ lost_found_status: 'lost', resolved_at: expect.any(Date) });
  expect(after.stores).toBeGreaterThanOrEqual(3);
  expect(after.products).toBeGreaterThanOrEqual(after.stores);
  expect(after.communities).toBeGreaterThanOrEqual(3);
  expect(after.comments).toBeGreaterThan(0);
  expect(after.likes).toBeGreaterThan(0);
  expect(after.conversations).toBeGreaterThanOrEqual(5);
  expect(after.messages).toBeGreaterThan(0);

  // The demo account muted and blocked a neighbour each, and its report waits in the moderation queue.
  expect({ mutes: first.created.mutes, blocks: first.created.blocks, reports: first.created.reports }).toEqual({ mutes: 1, blocks: 1, reports: 1 });
  const [queue] = await sql(
    `SELECT count(*)::int AS n FROM moderation_cases mc JOIN safety_reports r ON r.case_id = mc.id JOIN users u ON u.id = r.reporter_id
      WHERE u.username = $1 AND mc.status = 'open' AND mc.target_type = 'post'`,
    [HOST_USERNAME],
  );
  expect(queue.n).toBe(1);

  const [place] = await sql(`SELECT * FROM locations WHERE id = $1`, [first.mainLocationId]);
  expect(place).toMatchObject({ country: 'United Kingdom', state: 'Scotland', city: 'Edinburgh', neighbourhood: 'Leith Shore', name: 'Leith Shore' });
  const [home] = await sql(`SELECT location_id FROM users WHERE username = $1`, [HOST_USERNAME]);
  expect(home.location_id).toBe(first.mainLocationId);
  const login = await app.rest('POST', '/api/auth/login/', { body: { username: first.login.username, password: first.login.password } });
  expect(login.status).toBe(200);

  const second = await runDemo({ url: app.url, users: 50, postsPerPerson: 0.6, adminEmail: admin.email, adminPassword: admin.password, quiet: true });
  expect(await census()).toEqual(after);
  expect(Object.values(second.created).every((n) => n === 0)).toBe(true);
  expect(second.displayUrl).toBe(first.displayUrl);

  // Someone is missing: with an administrator given, the demo makes them through POST /api/admin/users/.
  const [gone] = await sql(
    `DELETE FROM users WHERE id = (
       SELECT id FROM users WHERE email LIKE 'demo-%@example.org' AND username <> $1
         AND id NOT IN (SELECT owner_id FROM stores) AND id NOT IN (SELECT owner_id FROM communities)
       ORDER BY username LIMIT 1)
     RETURNING username`,
    [HOST_USERNAME],
  );
  expect(gone.username).toEqual(expect.any(String));
  const third = await runDemo({ url: app.url, users: 50, postsPerPerson: 0.6, adminEmail: admin.email, adminPassword: admin.password, quiet: true });
  expect(third.created.users).toBe(1);
  expect((await sql(`SELECT count(*)::int AS n FROM users WHERE username = $1`, [gone.username]))[0].n).toBe(1);

  const page = await fetch(first.displayUrl);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('Leith Shore');
}, 240_000);
