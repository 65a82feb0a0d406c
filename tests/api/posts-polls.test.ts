import crypto from 'node:crypto';
import { nextEvent, noEvent, startTestApp, type TestApp } from '../helpers/test-app.js';
import { aNeighbourhood, aPoll, aPost, aResidentOf } from '../builders/posts.js';
import { aCrowd } from '../builders/crowd.js';
import { sql } from '../helpers/sql.js';
import { announceExpiredPolls } from '../../src/modules/posts/poll-expiry.job.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'off' });
});
afterAll(async () => {
  await app.stop();
});

const vote = (token: string, postId: string, body: Record<string, unknown>) => app.rest('POST', `/api/feed/posts/${postId}/vote_poll/`, { token, body });
const expire = (postId: string) => sql(`UPDATE polls SET expires_at = now() - interval '1 second' WHERE post_id = $1`, [postId]);

describe('POST /api/feed/posts/{post_id}/vote_poll/', () => {
  test('when a user votes on a single-choice poll and then changes the vote, then the second replaces the first', async () => {
    const place = await aNeighbourhood(app);
    const poll = await aPoll(app, place.founder);
    const [park, cafe] = poll.poll_data.options;
    const bob = await aResidentOf(app, place);
    const first = await vote(bob.token, poll.id, { option_id: park.id });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ message: 'Vote recorded successfully.', voted_options: [park.id], poll_data: { total_votes: 1, user_voted: true } });
    expect(first.body.poll_data.options[0]).toMatchObject({ votes_count: 1, user_voted: true, percentage: 100 });
    const second = await app.emit('posts.vote_poll', { post_id: poll.id, option_id: cafe.id }, { token: bob.token });
    expect(second.status).toBe(200);
    expect(second.body.poll_data.options.map((o: { votes_count: number }) => o.votes_count)).toEqual([0, 1, 0]);
    const read = await app.rest('GET', `/api/feed/posts/${poll.id}/`, { token: bob.token });
    expect(read.body.poll_data).toMatchObject({ total_votes: 1, user_voted: true });
    expect(read.body.poll_data.options[1]).toMatchObject({ user_voted: true, percentage: 100 });
    expect((await app.rest('GET', `/api/feed/posts/${poll.id}/`)).body.poll_data.user_voted).toBe(false);
  });

  test('when a user votes {option_ids} on a multiple-choice poll, then exactly those options hold their vote, and percentages share the votes', async () => {
    const place = await aNeighbourhood(app);
    const poll = await aPoll(app, place.founder, { poll_allows_multiple: true });
    const [a, b, c] = poll.poll_data.options.map((o: { id: string }) => o.id);
    const bob = await aResidentOf(app, place);
    expect((await vote(bob.token, poll.id, { option_ids: [a, b] })).body.voted_options).toEqual([a, b]);
    const carol = await aResidentOf(app, place);
    const res = await vote(carol.token, poll.id, { option_ids: [b, c] });
    expect(res.body.poll_data).toMatchObject({ total_votes: 4 });
    expect(res.body.poll_data.options.map((o: { votes_count: number; percentage: number }) => [o.votes_count, o.percentage])).toEqual([[1, 25], [2, 50], [1, 25]]);
    // Bob narrows his choice to one option.
    const narrowed = await vote(bob.token, poll.id, { option_ids: [c] });
    expect(narrowed.body.poll_data.options.map((o: { votes_count: number }) => o.votes_count)).toEqual([0, 1, 2]);
  });

  test.each([
    ['two options on a single-choice poll', (o: string[]) => ({ option_ids: [o[0], o[1]] }), { option_ids: ['This poll allows only one choice.'] }],
    ['an option of another poll', (_o: string[], other: string) => ({ option_id: other }), { option_id: ['Choose options of this poll only.'] }],
    ['a malformed option id', () => ({ option_id: 'nope' }), { option_id: ['Invalid UUID format.'] }],
    ['no option at all', () => ({}), { option_ids: ['Choose at least one option (option_ids, or option_id on a single-choice poll).'] }],
  ])('when the vote names %s, then 400 with a field error and no vote is counted', async (_name, body, errors) => {
    const place = await aNeighbourhood(app);
    const poll = await aPoll(app, place.founder);
    const other = await aPoll(app, place.founder);
    const ids = poll.poll_data.options.map((o: { id: string }) => o.id);
    const res = await vote(place.founder.token, poll.id, body(ids, other.poll_data.options[0].id));
    expect(res).toMatchObject({ status: 400, body: errors });
    expect(await sql('SELECT count(*)::int AS n FROM poll_votes v JOIN polls p ON p.id = v.poll_id WHERE p.post_id = ANY($1::uuid[])', [[poll.id, other.id]])).toEqual([{ n: 0 }]);
  });

  test('when the poll has expired, then the vote is refused with {error: "Poll has expired"} and reads say is_expired', async () => {
    const place = await aNeighbourhood(app);
    const poll = await aPoll(app, place.founder);
    await expire(poll.id);
    const res = await vote(place.founder.token, poll.id, { option_id: poll.poll_data.options[0].id });
    expect(res).toMatchObject({ status: 400, body: { error: 'Poll has expired' } });
    expect((await app.rest('GET', `/api/feed/posts/${poll.id}/`)).body.poll_data.is_expired).toBe(true);
  });

  test('when the post is not a poll, then 400; an unknown post is 404', async () => {
    const place = await aNeighbourhood(app);
    const text = await aPost(app, place.founder);
    expect(await vote(place.founder.token, text.id, { option_id: crypto.randomUUID() })).toMatchObject({ status: 400, body: { error: 'This post has no poll.' } });
    expect(await vote(place.founder.token, crypto.randomUUID(), { option_id: crypto.randomUUID() })).toMatchObject({ status: 404 });
  });

  test('when 50 users vote at the same moment, then all 50 votes are counted', async () => {
    const place = await aNeighbourhood(app);
    const poll = await aPoll(app, place.founder, { poll_allows_multiple: true });
    const [a, b] = poll.poll_data.options.map((o: { id: string }) => o.id);
    const voters = await aCrowd(50);
    const answers = await Promise.all(voters.map((u, i) => vote(u.token, poll.id, i % 2 ? { option_ids: [a, b] } : { option_ids: [a] })));
    expect(answers.every((r) => r.status === 200)).toBe(true);
    const read = await app.rest('GET', `/api/feed/posts/${poll.id}/`);
    expect(read.body.poll_data.options.map((o: { votes_count: number }) => o.votes_count)).toEqual([50, 25, 0]);
    expect(read.body.poll_data.total_votes).toBe(75);
  }, 60_000);

  test("when one user's single-choice votes for two options arrive at once, then the poll holds one vote of theirs", async () => {
    const place = await aNeighbourhood(app);
    const poll = await aPoll(app, place.founder);
    const [a, b] = poll.poll_data.options.map((o: { id: string }) => o.id);
    await Promise.all([vote(place.founder.token, poll.id, { option_id: a }), vote(place.founder.token, poll.id, { option_id: b })]);
    const [row] = await sql('SELECT count(*)::int AS n, (SELECT sum(votes_count)::int FROM poll_options o JOIN polls p ON p.id = o.poll_id WHERE p.post_id = $1) AS total FROM poll_votes v JOIN polls p ON p.id = v.poll_id WHERE p.post_id = $1', [poll.id]);
    expect(row).toEqual({ n: 1, total: 1 });
  });
});

describe('poll events', () => {
  test('when someone votes, then a socket in the post room gets poll:updated with anonymous poll data', async () => {
    const place = await aNeighbourhood(app);
    const poll = await aPoll(app, place.founder);
    const watcher = await app.socket();
    expect(await watcher.timeout(5000).emitWithAck('subscribe', { channel: 'post', id: poll.id })).toEqual({ status: 200, body: { channel: 'post', id: poll.id } });
    const pushed = nextEvent(watcher, 'poll:updated');
    await vote(place.founder.token, poll.id, { option_id: poll.poll_data.options[2].id });
    const event = await pushed;
    expect(event.post_id).toBe(poll.id);
    expect(event.poll_data).toMatchObject({ total_votes: 1, user_voted: false });
    expect(event.poll_data.options[2]).toMatchObject({ votes_count: 1, user_voted: false });
  });

  test('when the expiry job runs after a poll expired, then poll:expired is pushed once to the post room and the location, and never again', async () => {
    const place = await aNeighbourhood(app);
    const poll = await aPoll(app, place.founder);
    const watcher = await app.socket();
    await watcher.timeout(5000).emitWithAck('subscribe', { channel: 'post', id: poll.id });
    const neighbour = await app.socket(place.founder.token); // lives there: in the residents' room
    const inPostRoom = nextEvent(watcher, 'poll:expired');
    const inLocation = nextEvent(neighbour, 'poll:expired');
    await expire(poll.id);
    expect(await announceExpiredPolls()).toBeGreaterThanOrEqual(1);
    const event = await inPostRoom;
    expect(event).toMatchObject({ post_id: poll.id, poll_data: { is_expired: true, id: poll.poll_data.id } });
    expect((await inLocation).post_id).toBe(poll.id);
    const quiet = noEvent(watcher, 'poll:expired', 500);
    await announceExpiredPolls();
    await quiet;
    expect(await sql('SELECT expiry_announced_at IS NOT NULL AS announced FROM polls WHERE post_id = $1', [poll.id])).toEqual([{ announced: true }]);
  });
});
