import crypto from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aNeighbourhood, aPost, aResidentOf } from '../builders/posts.js';
import { sql } from '../helpers/sql.js';
import { viewCooldownCleanupJob } from '../../src/modules/posts/view-cleanup.job.js';
import { runJob } from '../../src/jobs/index.js';
import { deleteExpiredViewCooldowns } from '../../src/modules/posts/views.service.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

/** Move a viewer's last counted view back in time (the cooldown is measured by the database clock). */
const ageViews = (postId: string, minutes: number) => sql(`UPDATE post_view_cooldowns SET viewed_at = viewed_at - make_interval(mins => $2) WHERE post_id = $1`, [postId, minutes]);

describe('POST /api/feed/posts/{post_id}/track_view/', () => {
  test('when a user views twice within 30 minutes, then the first is recorded and the second meets the cooldown; after it, counted again', async () => {
    const place = await aNeighbourhood(app);
    const post = await aPost(app, place.founder);
    const bob = await aResidentOf(app, place);
    const first = await app.rest('POST', `/api/feed/posts/${post.id}/track_view/`, { token: bob.token, body: { device_type: 'mobile', referrer_type: 'feed' } });
    expect(first).toMatchObject({ status: 200, body: { message: 'View recorded.', view_recorded: true, views_count: 1 } });
    const again = await app.emit('posts.track_view', { post_id: post.id }, { token: bob.token });
    expect(again).toEqual({ status: 200, body: { message: 'View already counted recently.', view_recorded: false, views_count: 1, cooldown_remaining_seconds: expect.any(Number) } });
    expect(again.body.cooldown_remaining_seconds).toBeGreaterThan(29 * 60);
    await ageViews(post.id, 31);
    expect((await app.rest('POST', `/api/feed/posts/${post.id}/track_view/`, { token: bob.token })).body).toMatchObject({ view_recorded: true, views_count: 2 });
    expect((await app.rest('GET', `/api/feed/posts/${post.id}/`)).body.views_count).toBe(2);
  });

  test('when anonymous clients view, then each address counts once per cooldown, whatever user agent it sends', async () => {
    const { founder } = await aNeighbourhood(app);
    const post = await aPost(app, founder);
    const view = (ip: string, agent = 'test-agent') => app.http().post(`/api/feed/posts/${post.id}/track_view/`).set('X-Forwarded-For', ip).set('User-Agent', agent).send({});
    expect((await view('10.1.1.1')).body.view_recorded).toBe(true);
    expect((await view('10.1.1.1')).body.view_recorded).toBe(false);
    // A rotated user agent is the same viewer (DESIGN.md section 8): views cannot be bought by changing it.
    expect((await view('10.1.1.1', 'another-agent')).body).toMatchObject({ view_recorded: false, views_count: 1 });
    expect((await view('10.1.1.2', 'another-agent')).body).toMatchObject({ view_recorded: true, views_count: 2 });
    const [row] = await sql('SELECT views_count FROM posts WHERE id = $1', [post.id]);
    expect(row.views_count).toBe(2);
  });

  test('when one viewer sends ten views at once, then exactly one is counted', async () => {
    const place = await aNeighbourhood(app);
    const post = await aPost(app, place.founder);
    const answers = await Promise.all(Array.from({ length: 10 }, () => app.rest('POST', `/api/feed/posts/${post.id}/track_view/`, { token: place.founder.token })));
    expect(answers.filter((a) => a.body.view_recorded === true)).toHaveLength(1);
    const [row] = await sql('SELECT views_count FROM posts WHERE id = $1', [post.id]);
    expect(row.views_count).toBe(1);
  });

  test('when the post is unknown, then 404; a device_type over 50 characters is a field error', async () => {
    const { founder } = await aNeighbourhood(app);
    expect(await app.rest('POST', `/api/feed/posts/${crypto.randomUUID()}/track_view/`)).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
    const post = await aPost(app, founder);
    expect(await app.rest('POST', `/api/feed/posts/${post.id}/track_view/`, { body: { device_type: 'x'.repeat(51) } })).toMatchObject({ status: 400, body: { device_type: ['Ensure this field has no more than 50 characters.'] } });
  });
});

describe('user_analytics', () => {
  test("when a user has viewed posts, then their own analytics count views, distinct posts, repeats and places", async () => {
    const place = await aNeighbourhood(app);
    const one = await aPost(app, place.founder);
    const two = await aPost(app, place.founder);
    const bob = await aResidentOf(app, place);
    const empty = await app.rest('GET', '/api/feed/posts/user_analytics/', { token: bob.token });
    expect(empty.body).toEqual({ total_views: 0, unique_posts_viewed: 0, repeat_view_ratio: 0, popular_locations: [], avg_views_per_day: 0 });
    await app.rest('POST', `/api/feed/posts/${one.id}/track_view/`, { token: bob.token });
    await ageViews(one.id, 31);
    await app.rest('POST', `/api/feed/posts/${one.id}/track_view/`, { token: bob.token });
    await app.rest('POST', `/api/feed/posts/${two.id}/track_view/`, { token: bob.token });
    const res = await app.rest('GET', '/api/feed/posts/user_analytics/', { token: bob.token });
    expect(res.body).toEqual({
      total_views: 3,
      unique_posts_viewed: 2,
      repeat_view_ratio: 0.33,
      popular_locations: [{ post__location__name: one.location_name, view_count: 3 }],
      avg_views_per_day: 3,
    });
    expect(await app.emit('posts.user_analytics', {}, { token: bob.token })).toEqual({ status: 200, body: res.body });
  });
});

describe('the view-cooldown cleanup job', () => {
  test('when it runs, then only cooldowns past 30 minutes are deleted, counted views stay, and a second run deletes nothing', async () => {
    const place = await aNeighbourhood(app);
    const old = await aPost(app, place.founder);
    const fresh = await aPost(app, place.founder);
    await app.rest('POST', `/api/feed/posts/${old.id}/track_view/`, { token: place.founder.token });
    await app.rest('POST', `/api/feed/posts/${fresh.id}/track_view/`, { token: place.founder.token });
    await ageViews(old.id, 31);
    // The scheduled path: under the job lock, its result logged with the duration by the runner.
    expect(await runJob(viewCooldownCleanupJob)).toBe(true);
    expect(await sql('SELECT post_id FROM post_view_cooldowns WHERE post_id = ANY($1::uuid[])', [[old.id, fresh.id]])).toEqual([{ post_id: fresh.id }]);
    expect(await sql('SELECT count(*)::int AS n FROM post_views WHERE post_id = $1', [old.id])).toEqual([{ n: 1 }]);
    expect(await deleteExpiredViewCooldowns()).toBe(0);
    // The fresh one still holds its cooldown.
    expect((await app.rest('POST', `/api/feed/posts/${fresh.id}/track_view/`, { token: place.founder.token })).body.view_recorded).toBe(false);
  });
});
