import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aNeighbourhood, aPost, aResidentOf } from '../builders/posts.js';
import { sql } from '../helpers/sql.js';
import { runJob } from '../../src/jobs/index.js';
import { popularLocationsRefreshJob } from '../../src/modules/posts/popular-locations.job.js';

/**
 * popular_locations is counted by a job, not per call (issue 22): a call reads the counts of the last refresh.
 * The refresh is driven here by running the job itself.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

/** `n` posts by `userId` in a location, written in one statement (a busy place without thousands of API calls). */
const bulkPosts = (userId: string, locationId: string, n: number) =>
  sql(`INSERT INTO posts (user_id, location_id, post_type, content) SELECT $1, $2, 'text', 'bulk ' || g FROM generate_series(1, $3::int) g`, [userId, locationId, n]);

describe('GET /api/feed/posts/popular_locations/', () => {
  test('when the counts are refreshed, then the busiest places come first with their counts; a new post shows after the next refresh, not before', async () => {
    // The shared test database may hold busy places already: these two are made the busiest there is.
    const [{ busiest }] = await sql<{ busiest: number }>(`SELECT coalesce(max(n), 0)::int AS busiest FROM (SELECT count(*) AS n FROM posts WHERE location_id IS NOT NULL GROUP BY location_id) c`);
    const first = await aNeighbourhood(app);
    const second = await aNeighbourhood(app);
    const secondResident = await aResidentOf(app, second);
    await bulkPosts(first.founder.id, first.locationId, busiest + 2);
    await bulkPosts(second.founder.id, second.locationId, busiest + 1);
    expect(await runJob(popularLocationsRefreshJob)).toBe(true);

    const rest = await app.rest('GET', '/api/feed/posts/popular_locations/');
    expect(rest.status).toBe(200);
    expect(await app.emit('posts.popular_locations', {})).toEqual({ status: 200, body: rest.body });
    const { count, locations } = rest.body;
    expect(count).toBe(locations.length);
    expect(count).toBeLessThanOrEqual(20);
    expect(locations.slice(0, 2)).toEqual([
      { id: first.locationId, name: first.city, post_count: busiest + 2, country: 'Postland', state: null, city: first.city, neighbourhood: null },
      { id: second.locationId, name: second.city, post_count: busiest + 1, country: 'Postland', state: null, city: second.city, neighbourhood: null },
    ]);
    const counts = locations.map((l: { post_count: number }) => l.post_count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));

    // Two new posts make the second place the busiest, once the counts are refreshed. Until then the counts are the
    // last refresh's, while names are read live.
    await aPost(app, second.founder);
    await aPost(app, secondResident);
    await sql(`UPDATE locations SET name = 'Renamed ' || name WHERE id = $1`, [first.locationId]);
    const stale = (await app.rest('GET', '/api/feed/posts/popular_locations/')).body.locations;
    expect(stale.slice(0, 2).map((l: { id: string; name: string; post_count: number }) => [l.id, l.name, l.post_count])).toEqual([
      [first.locationId, `Renamed ${first.city}`, busiest + 2],
      [second.locationId, second.city, busiest + 1],
    ]);
    await runJob(popularLocationsRefreshJob);
    const fresh = (await app.rest('GET', '/api/feed/posts/popular_locations/')).body.locations;
    expect(fresh.slice(0, 2).map((l: { id: string; post_count: number }) => [l.id, l.post_count])).toEqual([
      [second.locationId, busiest + 3],
      [first.locationId, busiest + 2],
    ]);
  });
});
