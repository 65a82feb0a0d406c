import crypto from 'node:crypto';
import ICAL from 'ical.js';
import { nextEvent, startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import type { TestUser } from '../builders/users.js';
import { aNeighbourhood, aPost, aResidentOf } from '../builders/posts.js';
import { aCrowd } from '../builders/crowd.js';
import { aShopper, aStore } from '../builders/stores.js';
import { aCommunity } from '../builders/communities.js';
import { outboxWorker } from '../../src/platform/outbox.js';
import { runJob } from '../../src/jobs/index.js';
import { eventRemindersJob } from '../../src/modules/posts/event-posts.service.js';
import { ALERT_FANOUT_BATCH } from '../../src/modules/posts/alerts.service.js';
import { sql } from '../helpers/sql.js';
import { adminEnv, loginAdmin } from '../builders/locations.js';
import { aReport } from '../builders/safety.js';

/**
 * The neighbourhood kinds (DESIGN.md section 13, issue 38): events with RSVPs, capacity and reminders and their
 * iCalendar feeds, lost and found with resolution, recommendations listed on the store, alerts limited to residents
 * and fanned out to every resident through the outbox; over both transports.
 */
const ADMIN = adminEnv();
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'off', ...ADMIN });
});
afterAll(async () => {
  await app.stop();
});

const HOUR = 3_600_000;
const inHours = (h: number) => new Date(Date.now() + h * HOUR).toISOString();
/** An answer with what differs between twin objects (ids, times) set aside. */
const shape = (body: any): any =>
  JSON.parse(JSON.stringify(body, (k, v) => (['id', 'created_at', 'updated_at', 'next', 'previous'].includes(k) && v !== null ? '<set aside>' : v)));

/** Even calls over REST, odd ones over the socket. */
async function createPost(i: number, user: TestUser, body: Record<string, unknown>): Promise<{ status: number; body: any }> {
  if (i % 2) return app.emit('posts.create', body, { token: user.token });
  const res = await app.rest('POST', '/api/feed/posts/', { token: user.token, body });
  return { status: res.status, body: res.body };
}
async function answer(i: number, user: TestUser, postId: string, status: string): Promise<{ status: number; body: any }> {
  if (i % 2) return app.emit('posts.rsvp', { post_id: postId, status }, { token: user.token });
  const res = await app.rest('POST', `/api/feed/posts/${postId}/rsvp/`, { token: user.token, body: { status } });
  return { status: res.status, body: res.body };
}
const anEvent = (author: TestUser, fields: Record<string, unknown> = {}) =>
  aPost(app, author, { post_type: 'event', title: 'Street party', content: 'Bring a chair', event_starts_at: inHours(48), event_ends_at: inHours(52), event_place_name: 'Elm Street', event_address: '1-40 Elm Street', ...fields });

async function notificationsOf(user: TestUser, type: string): Promise<any[]> {
  const res = await app.rest('GET', '/api/notifications/', { token: user.token, query: { page_size: 100 } });
  expect(res.status).toBe(200);
  return res.body.results.filter((n: any) => n.notification_type === type);
}

describe('creating the neighbourhood kinds', () => {
  test('when an event, a lost_found, a recommendation and an alert are created over REST and over the socket, then the same answers with their own objects, null on other types', async () => {
    const { founder } = await aNeighbourhood(app);
    const owner = await aShopper(app);
    const store = await aStore(app, owner);
    const bodies = [
      { post_type: 'event', title: 'Street party', content: 'Bring a chair', event_starts_at: '2031-06-01T16:00:00Z', event_ends_at: '2031-06-01T22:00:00Z', event_place_name: 'Elm Street', event_address: '1-40 Elm Street', event_capacity: 50 },
      { post_type: 'lost_found', content: 'Grey cat, answers to Tom', lost_found_status: 'lost' },
      { post_type: 'recommendation', content: 'Fixed my lamp in ten minutes', recommended_store_id: store.id },
      { post_type: 'alert', title: 'Water cut', content: 'No water on Elm Street until 6 pm' },
    ];
    for (const body of bodies) {
      const rest = await createPost(0, founder, body);
      const socket = await createPost(1, founder, body);
      expect(rest.status).toBe(201);
      expect(shape(socket)).toEqual(shape(rest));
      expect(rest.body.post_type).toBe(body.post_type);
    }
    const [event, lost, recommendation, alert] = await Promise.all(bodies.map((b) => createPost(0, founder, b)));
    expect(event.body.event_data).toEqual({
      starts_at: '2031-06-01T16:00:00.000Z',
      ends_at: '2031-06-01T22:00:00.000Z',
      place_name: 'Elm Street',
      address: '1-40 Elm Street',
      capacity: 50,
      going_count: 0,
      interested_count: 0,
      user_rsvp: null,
    });
    expect(event.body.lost_found_data).toBeNull();
    expect(lost.body.lost_found_data).toEqual({ status: 'lost', resolved_at: null });
    expect(lost.body.event_data).toBeNull();
    expect(recommendation.body.shared_store).toMatchObject({ id: store.id, name: store.name });
    expect(alert.body).toMatchObject({ post_type: 'alert', title: 'Water cut', event_data: null, lost_found_data: null });
    // The read is the same object.
    const read = await app.rest('GET', `/api/feed/posts/${event.body.id}/`, { token: founder.token });
    expect(read.body.event_data).toEqual(event.body.event_data);
  });

  test('when a kind lacks what it needs or carries another kind\'s field, then 400 naming the field, over both transports', async () => {
    const { founder } = await aNeighbourhood(app);
    const community = await aCommunity(app, founder);
    const cases: Array<[Record<string, unknown>, Record<string, string[]>]> = [
      [{ post_type: 'event', title: 'Party', content: '' }, { event_starts_at: ['This field is required for event posts.'] }],
      [{ post_type: 'event', content: 'x', event_starts_at: inHours(5) }, { title: ['This field is required for event posts.'] }],
      [{ post_type: 'event', title: 'Party', event_starts_at: inHours(-1) }, { event_starts_at: ['The event must start in the future.'] }],
      [{ post_type: 'event', title: 'Party', event_starts_at: inHours(5), event_ends_at: inHours(4) }, { event_ends_at: ['The event must end after it starts.'] }],
      [{ post_type: 'event', title: 'Party', event_starts_at: inHours(5), event_capacity: 0 }, { event_capacity: ['Ensure this value is greater than or equal to 1.'] }],
      [{ post_type: 'text', content: 'hi', event_starts_at: inHours(5) }, { event_starts_at: ['Only event posts carry event_starts_at.'] }],
      [{ post_type: 'lost_found', content: 'Cat' }, { lost_found_status: ['This field is required for lost and found posts.'] }],
      [{ post_type: 'lost_found', content: 'Cat', lost_found_status: 'resolved' }, { lost_found_status: ['"resolved" is not a valid choice.'] }],
      [{ post_type: 'recommendation', content: 'Good' }, { recommended_store_id: ['This field is required for recommendation posts.'] }],
      [{ post_type: 'recommendation', content: 'Good', recommended_store_id: crypto.randomUUID() }, { recommended_store_id: ['Store not found.'] }],
      [{ post_type: 'alert', content: 'Fire!', community_id: community.id }, { community_id: ['An alert goes to the place you live in, not to a community.'] }],
      [{ post_type: 'alert', content: ' ' }, { content: ['This field may not be blank.'] }],
    ];
    for (const [body, errors] of cases) {
      expect(await createPost(0, founder, body)).toEqual({ status: 400, body: errors });
      expect(await createPost(1, founder, body)).toEqual({ status: 400, body: errors });
    }
  });
});

describe('events', () => {
  test('when neighbours answer an event over both transports, then the counts and their own user_rsvp follow; not_going removes the answer', async () => {
    const { founder, ...place } = await aNeighbourhood(app);
    const [ann, ben] = [await aResidentOf(app, { ...place, locationId: place.locationId }), await aResidentOf(app, { ...place, locationId: place.locationId })];
    const event = await anEvent(founder);
    const going = await answer(0, ann, event.id, 'going');
    expect(going).toEqual({ status: 200, body: { message: 'RSVP recorded.', status: 'going', event_data: expect.objectContaining({ going_count: 1, interested_count: 0, user_rsvp: 'going' }) } });
    const interested = await answer(1, ben, event.id, 'interested');
    expect(interested).toEqual({ status: 200, body: { message: 'RSVP recorded.', status: 'interested', event_data: expect.objectContaining({ going_count: 1, interested_count: 1, user_rsvp: 'interested' }) } });
    // Twice the same answer counts once.
    expect((await answer(1, ann, event.id, 'going')).body.event_data).toMatchObject({ going_count: 1, user_rsvp: 'going' });
    expect((await app.rest('GET', `/api/feed/posts/${event.id}/`, { token: ben.token })).body.event_data).toMatchObject({ going_count: 1, interested_count: 1, user_rsvp: 'interested' });
    expect((await app.rest('GET', `/api/feed/posts/${event.id}/`)).body.event_data).toMatchObject({ going_count: 1, interested_count: 1, user_rsvp: null });
    // Changing one's mind moves the counts.
    expect((await answer(0, ben, event.id, 'going')).body.event_data).toMatchObject({ going_count: 2, interested_count: 0 });
    const gone = await answer(1, ann, event.id, 'not_going');
    expect(gone).toEqual({ status: 200, body: { message: 'RSVP removed.', status: 'not_going', event_data: expect.objectContaining({ going_count: 1, interested_count: 0, user_rsvp: null }) } });
    // Not an event; a bad status; no such post; anonymous.
    const text = await aPost(app, founder);
    expect(await answer(0, ann, text.id, 'going')).toEqual({ status: 400, body: { error: 'This post is not an event.' } });
    expect(await answer(1, ann, text.id, 'going')).toEqual({ status: 400, body: { error: 'This post is not an event.' } });
    expect(await answer(0, ann, event.id, 'maybe')).toEqual({ status: 400, body: { status: ['"maybe" is not a valid choice.'] } });
    expect((await answer(1, ann, crypto.randomUUID(), 'going')).status).toBe(404);
    expect((await app.rest('POST', `/api/feed/posts/${event.id}/rsvp/`, { body: { status: 'going' } })).status).toBe(401);
  });

  test('when neighbours answer an event, then whoever has it open hears the going and interested counts live in post:stats; a plain post\'s carry none', async () => {
    const { founder, ...place } = await aNeighbourhood(app);
    const [ann, ben] = [await aResidentOf(app, { ...place, locationId: place.locationId }), await aResidentOf(app, { ...place, locationId: place.locationId })];
    const event = await anEvent(founder);
    const watcher = await app.socket(); // a display, or an app with the event open
    expect(await watcher.timeout(5000).emitWithAck('subscribe', { channel: 'post', id: event.id })).toMatchObject({ status: 200 });
    const first = nextEvent(watcher, 'post:stats');
    await answer(0, ann, event.id, 'going');
    expect(await first).toEqual({ post_id: event.id, likes_count: 0, comments_count: 0, views_count: 0, going_count: 1, interested_count: 0 });
    // The next push comes after the coalescing second, with the counts as they are then (over the socket this time).
    const next = nextEvent(watcher, 'post:stats', 3000);
    await answer(1, ben, event.id, 'interested');
    expect(await next).toEqual({ post_id: event.id, likes_count: 0, comments_count: 0, views_count: 0, going_count: 1, interested_count: 1 });
    // An answer that changes nothing pushes nothing.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const quiet = nextEvent(watcher, 'post:stats', 1500).then(
      (stats) => stats,
      () => null,
    );
    await answer(0, ben, event.id, 'interested');
    expect(await quiet).toBeNull();
    // A plain post's stats carry no event counts.
    const text = await aPost(app, founder);
    expect(await watcher.timeout(5000).emitWithAck('subscribe', { channel: 'post', id: text.id })).toMatchObject({ status: 200 });
    const liked = nextEvent(watcher, 'post:stats');
    await app.rest('POST', `/api/feed/posts/${text.id}/like/`, { token: ann.token });
    expect(await liked).toEqual({ post_id: text.id, likes_count: 1, comments_count: 0, views_count: 0 });
  });

  test('when 30 neighbours answer going to an event of capacity 7 at once (both transports), then exactly 7 are going and the others get 400', async () => {
    const { founder, locationId } = await aNeighbourhood(app);
    const crowd = await aCrowd(30, { locationId });
    const event = await anEvent(founder, { event_capacity: 7 });
    // Two of them are interested first: a change to going counts against the capacity as well.
    await answer(0, crowd[0], event.id, 'interested');
    await answer(1, crowd[1], event.id, 'interested');
    const answers = await Promise.all(crowd.map((user, i) => answer(i, user, event.id, 'going')));
    const accepted = answers.filter((a) => a.status === 200);
    expect(accepted).toHaveLength(7);
    for (const a of answers) if (a.status !== 200) expect(a).toEqual({ status: 400, body: { status: ['This event is full: 7 going.'] } });
    const read = await app.rest('GET', `/api/feed/posts/${event.id}/`);
    expect(read.body.event_data).toMatchObject({ capacity: 7, going_count: 7 });
    const counted = await sql<{ going: number; interested: number }>(
      `SELECT count(*) FILTER (WHERE status = 'going')::int AS going, count(*) FILTER (WHERE status = 'interested')::int AS interested FROM event_rsvps WHERE post_id = $1`,
      [event.id],
    );
    expect(counted[0].going).toBe(7);
    expect(read.body.event_data.interested_count).toBe(counted[0].interested);
    // Someone going leaves: a place opens for the next one.
    const leaver = crowd[answers.findIndex((a) => a.status === 200)];
    await answer(0, leaver, event.id, 'not_going');
    const late = crowd[answers.findIndex((a) => a.status === 400)];
    expect((await answer(1, late, event.id, 'going')).body.event_data).toMatchObject({ going_count: 7, user_rsvp: 'going' });
  });

  test('when an event starts within the hour, then the job runner reminds the people going once (a general notification), and nobody else', async () => {
    const { founder, locationId } = await aNeighbourhood(app);
    const [going1, going2, interested] = await aCrowd(3, { locationId });
    const soon = await anEvent(founder, { title: `Quiz night ${unique()}`, event_starts_at: inHours(0.5), event_ends_at: inHours(3) });
    const later = await anEvent(founder, { event_starts_at: inHours(5) });
    await answer(0, going1, soon.id, 'going');
    await answer(1, going2, soon.id, 'going');
    await answer(0, interested, soon.id, 'interested');
    await answer(1, going1, later.id, 'going');
    expect(await runJob(eventRemindersJob)).toBe(true);
    expect(await runJob(eventRemindersJob)).toBe(true);
    for (const user of [going1, going2]) {
      const reminders = (await notificationsOf(user, 'general')).filter((n) => n.target_id === soon.id);
      expect(reminders).toHaveLength(1);
      expect(reminders[0]).toMatchObject({ target_type: 'Post', message: expect.stringMatching(new RegExp(`^Reminder: "${soon.title}" starts in \\d+ minutes\\.$`)) });
    }
    expect((await notificationsOf(going1, 'general')).filter((n) => n.target_id === later.id)).toHaveLength(0);
    expect(await notificationsOf(interested, 'general')).toHaveLength(0);
  });

  test('when an event is read as event.ics over REST and the socket, then ical.js reads its UID, UTC times, DTSTAMP and escaped text, and every line is at most 75 octets', async () => {
    const { founder } = await aNeighbourhood(app);
    const title = 'Party; music, food \\ fun';
    const long = `Bring chairs, tables; and a smile.\nLine two: ünïcödé ${'é'.repeat(80)} end`;
    const event = await anEvent(founder, { title, content: long, event_starts_at: '2031-06-01T16:00:00+02:00', event_ends_at: '2031-06-01T22:30:00Z', event_place_name: 'Elm, Street', event_address: 'No; 1' });
    const res = await app.http().get(`/api/feed/posts/${event.id}/event.ics`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8');
    const text: string = res.text;
    expect(text.endsWith('\r\n')).toBe(true);
    for (const line of text.split('\r\n')) expect(Buffer.byteLength(line, 'utf8')).toBeLessThanOrEqual(75);
    expect(text).toMatch(/\r\n /); // something was folded
    expect(text).toContain('SUMMARY:Party\\; music\\, food \\\\ fun');
    expect(text).toContain('DTSTART:20310601T140000Z');
    const socket = await app.emit('posts.event_ics', { post_id: event.id });
    expect(socket).toEqual({ status: 200, body: text });

    const vcalendar = new ICAL.Component(ICAL.parse(text));
    expect(vcalendar.getFirstPropertyValue('version')).toBe('2.0');
    expect(vcalendar.getFirstPropertyValue('prodid')).toBeTruthy();
    const vevents = vcalendar.getAllSubcomponents('vevent');
    expect(vevents).toHaveLength(1);
    const parsed = new ICAL.Event(vevents[0]);
    expect(parsed.uid).toMatch(new RegExp(`^${event.id}@`));
    expect(parsed.summary).toBe(title);
    expect(parsed.description).toBe(long);
    expect(parsed.location).toBe('Elm, Street, No; 1');
    expect(parsed.startDate.toJSDate().toISOString()).toBe('2031-06-01T14:00:00.000Z');
    expect(parsed.startDate.zone.tzid).toBe('UTC');
    expect(parsed.endDate.toJSDate().toISOString()).toBe('2031-06-01T22:30:00.000Z');
    const stamp = vevents[0].getFirstPropertyValue('dtstamp') as ICAL.Time;
    expect(stamp.zone.tzid).toBe('UTC');
    expect(stamp.toJSDate().toISOString()).toBe(new Date(new Date(event.updated_at).getTime() - (new Date(event.updated_at).getTime() % 1000)).toISOString());
    // Not an event, or no such post.
    const text2 = await aPost(app, founder);
    expect((await app.http().get(`/api/feed/posts/${text2.id}/event.ics`)).status).toBe(404);
    expect((await app.emit('posts.event_ics', { post_id: crypto.randomUUID() })).status).toBe(404);
  });

  test('when a place\'s calendar is read, then it holds its events of the next 90 days soonest first, not past ones, later ones, or other places\'', async () => {
    const { founder, locationId } = await aNeighbourhood(app);
    const { founder: elsewhere } = await aNeighbourhood(app);
    const inMonth = await anEvent(founder, { title: 'In a month', event_starts_at: inHours(24 * 30), event_ends_at: inHours(24 * 30 + 2) });
    const tomorrow = await anEvent(founder, { title: 'Tomorrow', event_starts_at: inHours(24), event_ends_at: null });
    await anEvent(founder, { title: 'Too far', event_starts_at: inHours(24 * 91), event_ends_at: null });
    await anEvent(elsewhere, { title: 'Elsewhere', event_starts_at: inHours(24), event_ends_at: null });
    const running = await anEvent(founder, { title: 'Running', event_starts_at: inHours(0.01), event_ends_at: inHours(5) });
    await new Promise((r) => setTimeout(r, 100));
    // An event that has ended: moved into the past in the database.
    const over = await anEvent(founder, { title: 'Over', event_starts_at: inHours(1), event_ends_at: null });
    await sql(`UPDATE post_events SET starts_at = now() - interval '3 hours', ends_at = now() - interval '1 hour' WHERE post_id = $1`, [over.id]);

    const res = await app.http().get('/api/feed/events.ics').query({ location_id: locationId });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8');
    const vcalendar = new ICAL.Component(ICAL.parse(res.text));
    const events = vcalendar.getAllSubcomponents('vevent').map((v) => new ICAL.Event(v));
    expect(events.map((e) => e.summary)).toEqual(['Running', 'Tomorrow', 'In a month']);
    expect(events.map((e) => e.uid.split('@')[0])).toEqual([running.id, tomorrow.id, inMonth.id]);
    expect(vcalendar.getFirstPropertyValue('x-wr-calname')).toMatch(/^Events in /);
    expect(await app.emit('posts.events_ics', { location_id: locationId })).toEqual({ status: 200, body: res.text });
    expect((await app.http().get('/api/feed/events.ics').query({ location_id: crypto.randomUUID() })).status).toBe(404);
    expect((await app.emit('posts.events_ics', { location_id: 'nope' })).status).toBe(400);
  });
});

describe('editing the kinds', () => {
  test("when the author edits an event's text, then the event stays as it was; its time, place or capacity, a lost_found's status or a recommendation's store are refused by name, over both transports", async () => {
    const { founder } = await aNeighbourhood(app);
    const event = await anEvent(founder, { event_capacity: 10 });
    const rest = await app.rest('PATCH', `/api/feed/posts/${event.id}/`, { token: founder.token, body: { title: 'Street party (bring chairs)' } });
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ title: 'Street party (bring chairs)', event_data: event.event_data, edited_at: expect.any(String) });
    const refused = { event_starts_at: ["An event's time, place and capacity cannot change."] };
    expect(await app.rest('PATCH', `/api/feed/posts/${event.id}/`, { token: founder.token, body: { event_starts_at: inHours(70) } })).toMatchObject({ status: 400, body: refused });
    expect(await app.emit('posts.edit', { post_id: event.id, event_starts_at: inHours(70) }, { token: founder.token })).toMatchObject({ status: 400, body: refused });
    expect((await app.emit('posts.edit', { post_id: event.id, title: 'x', event_capacity: 100 }, { token: founder.token })).body).toEqual({ event_capacity: ["An event's time, place and capacity cannot change."] });
    const lost = await aPost(app, founder, { post_type: 'lost_found', content: 'Grey cat', lost_found_status: 'lost' });
    expect((await app.emit('posts.edit', { post_id: lost.id, lost_found_status: 'found' }, { token: founder.token })).status).toBe(400);
  });
});

describe('lost and found', () => {
  test('when its author resolves a lost_found post over REST or the socket, then it reads resolved, others may not, and it drops out of the first page of the place\'s feed', async () => {
    const { founder, ...place } = await aNeighbourhood(app);
    const other = await aResidentOf(app, { ...place, locationId: place.locationId });
    await aPost(app, founder);
    await aPost(app, founder);
    const lost = await aPost(app, founder, { post_type: 'lost_found', content: 'Grey cat', lost_found_status: 'lost' });
    const found = await aPost(app, founder, { post_type: 'lost_found', content: 'Found keys', lost_found_status: 'found' });
    const firstPage = async () => (await app.rest('GET', `/api/feed/hybrid/location/${place.locationId}/`, { token: other.token, query: { page_size: 3 } })).body.items.map((p: any) => p.id);
    expect(await firstPage()).toContain(lost.id);

    expect(await app.rest('POST', `/api/feed/posts/${lost.id}/resolve/`, { token: other.token })).toMatchObject({ status: 403 });
    expect(await app.emit('posts.resolve', { post_id: lost.id }, { token: other.token })).toMatchObject({ status: 403 });
    const rest = await app.rest('POST', `/api/feed/posts/${lost.id}/resolve/`, { token: founder.token });
    expect(rest.status).toBe(200);
    expect(rest.body.lost_found_data).toEqual({ status: 'resolved', resolved_at: expect.any(String) });
    const socket = await app.emit('posts.resolve', { post_id: found.id }, { token: founder.token });
    expect(socket).toMatchObject({ status: 200, body: { lost_found_data: { status: 'resolved' } } });
    expect(await app.rest('POST', `/api/feed/posts/${lost.id}/resolve/`, { token: founder.token })).toMatchObject({ status: 400, body: { error: 'This post is already resolved.' } });
    const text = await aPost(app, founder);
    expect(await app.emit('posts.resolve', { post_id: text.id }, { token: founder.token })).toEqual({ status: 400, body: { error: 'Only lost and found posts are resolved.' } });

    const page = await firstPage();
    expect(page).not.toContain(lost.id);
    expect(page).not.toContain(found.id);
    // A like afterwards does not bring it back up.
    await app.rest('POST', `/api/feed/posts/${lost.id}/like/`, { token: other.token });
    expect(await firstPage()).not.toContain(lost.id);
    expect((await app.rest('GET', `/api/feed/posts/${lost.id}/`)).body.lost_found_data.status).toBe('resolved');
  });
});

describe('recommendations', () => {
  test('when neighbours recommend a store, then the store lists the recommendations newest first over both transports', async () => {
    const { founder, ...place } = await aNeighbourhood(app);
    const other = await aResidentOf(app, { ...place, locationId: place.locationId });
    const owner = await aShopper(app);
    const store = await aStore(app, owner);
    const first = await aPost(app, founder, { post_type: 'recommendation', content: 'Quick and kind', recommended_store_id: store.id });
    const second = await aPost(app, other, { post_type: 'recommendation', content: 'Fair prices', recommended_store_id: store.id });
    await aPost(app, founder, { post_type: 'store_share', shared_store_id: store.id, content: 'Not a recommendation' });
    const rest = await app.rest('GET', `/api/stores/stores/${store.id}/recommendations/`);
    expect(rest.status).toBe(200);
    expect(rest.body.count).toBe(2);
    expect(rest.body.results.map((p: any) => p.id)).toEqual([second.id, first.id]);
    expect(rest.body.results[0].shared_store).toMatchObject({ id: store.id });
    const socket = await app.emit('stores.recommendations', { store_id: store.id });
    expect(socket).toEqual({ status: 200, body: rest.body });
    expect((await app.rest('GET', `/api/stores/stores/${crypto.randomUUID()}/recommendations/`)).status).toBe(404);
  });
});

describe('alerts', () => {
  test('when a resident posts an alert, then every other resident gets an alert notification targeting the post, through the outbox, and nobody elsewhere', async () => {
    const { founder, locationId } = await aNeighbourhood(app);
    const residents = await aCrowd(ALERT_FANOUT_BATCH + 5, { locationId });
    const { founder: stranger } = await aNeighbourhood(app);
    const alert = await createPost(1, founder, { post_type: 'alert', title: 'Water cut', content: 'No water until 6 pm' });
    expect(alert.status).toBe(201);
    // One outbox row whatever the place's size, none per resident.
    await outboxWorker!.settle();
    const told = await sql<{ user_id: string }>(`SELECT user_id FROM notifications WHERE notification_type = 'alert' AND target_id = $1`, [alert.body.id]);
    expect(told).toHaveLength(residents.length);
    expect(new Set(told.map((r) => r.user_id))).toEqual(new Set(residents.map((r) => r.id)));
    const [mine] = await notificationsOf(residents[0], 'alert');
    expect(mine).toMatchObject({ target_id: alert.body.id, target_type: 'Post', actor_username: founder.username, message: `Alert from ${founder.username}: Water cut: No water until 6 pm` });
    expect(await notificationsOf(founder, 'alert')).toHaveLength(0);
    expect(await notificationsOf(stranger, 'alert')).toHaveLength(0);
    expect(await sql(`SELECT 1 FROM outbox WHERE kind = 'posts.alert_fanout'`)).toHaveLength(0);
  });

  test('when a person posts a fourth alert within a day, then 429 with Retry-After; someone without a place gets 400', async () => {
    const { founder } = await aNeighbourhood(app);
    for (let i = 0; i < 3; i++) expect((await createPost(i, founder, { post_type: 'alert', content: `Alert ${i}` })).status).toBe(201);
    const rest = await app.rest('POST', '/api/feed/posts/', { token: founder.token, body: { post_type: 'alert', content: 'Fourth' } });
    expect(rest.status).toBe(429);
    expect(Number(rest.headers['retry-after'])).toBeGreaterThan(86_000);
    expect(rest.body.detail).toMatch(/^Request was throttled\. Expected available in \d+ seconds\.$/);
    expect((await createPost(1, founder, { post_type: 'alert', content: 'Fourth' })).status).toBe(429);
    const [nomad] = await aCrowd(1);
    expect((await createPost(0, nomad, { post_type: 'alert', content: 'Fire' })).body).toMatchObject({ error: 'Location Required' });
  });
});

describe('export and account deletion', () => {
  test("when a person exports their account, then their event posts carry event_data and their answers are in event_rsvps; their deletion frees their place at a full event", async () => {
    const { founder, locationId } = await aNeighbourhood(app);
    const [guest] = await aCrowd(1, { locationId });
    const event = await anEvent(founder, { event_capacity: 1 });
    const lost = await aPost(app, founder, { post_type: 'lost_found', content: 'Grey cat', lost_found_status: 'lost' });
    await answer(0, guest, event.id, 'going');
    const other = await anEvent(founder);
    await answer(1, guest, other.id, 'interested');
    const mine = await app.rest('GET', '/api/users/profile/export/', { token: founder.token });
    expect(mine.status).toBe(200);
    expect(mine.body.posts.find((p: any) => p.id === event.id).event_data).toMatchObject({ capacity: 1, going_count: 1 });
    expect(mine.body.posts.find((p: any) => p.id === lost.id).lost_found_data).toEqual({ status: 'lost', resolved_at: null });
    const theirs = await app.rest('GET', '/api/users/profile/export/', { token: guest.token });
    expect(theirs.body.event_rsvps).toEqual([
      { post: other.id, status: 'interested', created_at: expect.any(String), updated_at: expect.any(String) },
      { post: event.id, status: 'going', created_at: expect.any(String), updated_at: expect.any(String) },
    ]);
    await sql('DELETE FROM users WHERE id = $1', [guest.id]);
    expect((await app.rest('GET', `/api/feed/posts/${event.id}/`)).body.event_data).toMatchObject({ going_count: 0 });
    expect((await app.rest('GET', `/api/feed/posts/${other.id}/`)).body.event_data).toMatchObject({ interested_count: 0 });
  });
});

describe('moderation sees the current version', () => {
  test('when a reported post and comment are edited afterwards, then the queue shows the snapshot as reported and the current version beside it, over both transports', async () => {
    const staff = await loginAdmin(app, ADMIN);
    const { founder, ...place } = await aNeighbourhood(app);
    const reporter = await aResidentOf(app, { ...place, locationId: place.locationId });
    const post = await aPost(app, founder, { post_type: 'lost_found', content: 'Grey cat, call 555-0100', lost_found_status: 'lost' });
    const comment = await app.rest('POST', '/api/posts/comments/', { token: founder.token, body: { post: post.id, content: 'Still missing' } });
    await aReport(app, reporter, 'post', post.id, { reason: 'spam' });
    await aReport(app, reporter, 'comment', comment.body.id, { reason: 'spam' });
    expect((await app.rest('PATCH', `/api/feed/posts/${post.id}/`, { token: founder.token, body: { content: 'Grey cat' } })).status).toBe(200);
    expect((await app.rest('PATCH', `/api/posts/comments/${comment.body.id}/`, { token: founder.token, body: { content: 'Found him!' } })).status).toBe(200);
    const find = async (via: 'rest' | 'socket', id: string) => {
      for (let page = 1; ; page++) {
        const res = via === 'rest' ? await app.rest('GET', '/api/admin/reports/', { token: staff, query: { page, page_size: 100 } }) : await app.emit('admin.reports_list', { page, page_size: 100 }, { token: staff });
        expect(res.status).toBe(200);
        const found = res.body.results.find((c: any) => c.target_id === id);
        if (found || !res.body.next) return found;
      }
    };
    for (const via of ['rest', 'socket'] as const) {
      const postCase = await find(via, post.id);
      expect(postCase.snapshot).toMatchObject({ content: 'Grey cat, call 555-0100', edited_at: null });
      expect(postCase.current).toMatchObject({ id: post.id, content: 'Grey cat', edited_at: expect.any(String), lost_found_data: { status: 'lost' } });
      const commentCase = await find(via, comment.body.id);
      expect(commentCase.snapshot).toMatchObject({ content: 'Still missing' });
      expect(commentCase.current).toMatchObject({ content: 'Found him!' });
    }
  });
});
