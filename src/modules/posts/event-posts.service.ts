import { sql } from 'drizzle-orm';
import type { AuthedContext, RequestContext } from '../../core/context.js';
import { calendar, type CalendarEvent } from './event-calendar.js';
import { postListedFor } from '../policy/post-visibility.js';
import { notHiddenFrom } from '../policy/visibility.js';
import { AppError, fieldError, notFound } from '../../core/errors.js';
import type { JobDefinition } from '../../core/job-definition.js';
import { platform } from '../../platform/index.js';
import { transaction, type Tx } from '../../platform/db.js';
import { notifyMany } from '../notifications/notifications.service.js';
import { requireViewablePostById } from '../policy/post-visibility.js';
import { loadEventsOfPosts, type EventRecord } from './event-posts.queries.js';
import { serverBaseUrl } from '../../core/server-base-url.js';
import { serializePost, type EventData } from './posts.serializer.js';
import { loadPost } from './posts.queries.js';

/**
 * Event posts (DESIGN.md section 13): when and where, RSVPs with a capacity that holds exactly under concurrent
 * answers, and a reminder to the people going about an hour before it starts.
 */
export interface NewEvent {
  startsAt: Date;
  endsAt: Date | null;
  placeName: string | null;
  address: string | null;
  capacity: number | null;
}

/** In the post's transaction. */
export async function insertEvent(tx: Tx, postId: string, e: NewEvent): Promise<void> {
  await tx.execute(sql`
    INSERT INTO post_events (post_id, starts_at, ends_at, place_name, address, capacity)
    VALUES (${postId}::uuid, ${e.startsAt.toISOString()}::timestamptz, ${e.endsAt?.toISOString() ?? null}::timestamptz, ${e.placeName}, ${e.address}, ${e.capacity})`);
}

export type RsvpStatus = 'going' | 'interested' | 'not_going';

export interface RsvpAnswer {
  message: string;
  status: RsvpStatus;
  event_data: EventData;
}

/**
 * The caller's answer to an event they may read. Every answer to one event locks its post_events row first, so
 * answers are counted one after the other: `going` when the event is full (the caller not already going) is 400
 * and changes nothing; the table's CHECK is the last guard. `not_going` removes the caller's answer. Answers are
 * taken until the event ends (or, without an end, until it starts).
 */
export async function rsvp(ctx: AuthedContext, input: { post_id: string; status: RsvpStatus }): Promise<RsvpAnswer> {
  await requireViewablePostById(ctx.user, input.post_id);
  return transaction(platform.db, async (tx, events) => {
    const { rows } = await tx.execute<{ capacity: number | null; going_count: number; starts_at: Date | string; ends_at: Date | string | null; mine: 'going' | 'interested' | null }>(sql`
      SELECT e.capacity, e.going_count, e.starts_at, e.ends_at,
        (SELECT r.status FROM event_rsvps r WHERE r.post_id = e.post_id AND r.user_id = ${ctx.user.id}::uuid) AS mine
      FROM post_events e WHERE e.post_id = ${input.post_id}::uuid FOR UPDATE`);
    const event = rows[0];
    if (!event) throw new AppError(400, { error: 'This post is not an event.' });
    const closesAt = new Date(event.ends_at ?? event.starts_at);
    if (closesAt.getTime() <= Date.now()) throw new AppError(400, { error: 'This event is over.' });
    if (input.status === 'going' && event.mine !== 'going' && event.capacity !== null && event.going_count >= event.capacity) {
      throw fieldError('status', `This event is full: ${event.capacity} going.`);
    }
    if (input.status === 'not_going') {
      if (event.mine) await tx.execute(sql`DELETE FROM event_rsvps WHERE post_id = ${input.post_id}::uuid AND user_id = ${ctx.user.id}::uuid`);
    } else if (event.mine !== input.status) {
      await tx.execute(sql`
        INSERT INTO event_rsvps (post_id, user_id, status) VALUES (${input.post_id}::uuid, ${ctx.user.id}::uuid, ${input.status})
        ON CONFLICT (post_id, user_id) DO UPDATE SET status = EXCLUDED.status, updated_at = now()`);
    }
    // The counts moved: post:stats carries them to whoever has the event open, as a like's (stats-coalescer.ts).
    if ((event.mine ?? 'not_going') !== input.status) events.add('post.counters_changed', { postId: input.post_id });
    const record = (await loadEventsOfPosts([input.post_id], ctx.user.id, tx)).get(input.post_id)!;
    return { message: input.status === 'not_going' ? 'RSVP removed.' : 'RSVP recorded.', status: input.status, event_data: serializeEvent(record) };
  });
}

export function serializeEvent(e: EventRecord): EventData {
  return {
    starts_at: e.startsAt.toISOString(),
    ends_at: e.endsAt?.toISOString() ?? null,
    place_name: e.placeName,
    address: e.address,
    capacity: e.capacity,
    going_count: e.goingCount,
    interested_count: e.interestedCount,
    user_rsvp: e.viewerRsvp,
  };
}

/** Reminders go out this long before an event starts (the job runs every minute). */
export const REMINDER_LEAD_MS = 3_600_000;
const REMINDER_BATCH = 50;

/**
 * Every minute, on one node (the job runner's lock): events starting within the hour that were not reminded yet are
 * marked, and their people going get a `general` notification, in the transaction that marks them (rows taken with
 * SKIP LOCKED), so each event is reminded once. An event not yet started is reminded even when it was created less
 * than an hour before; one already started is marked and not reminded. Someone who answers `going` after the reminder
 * went out gets none. A hidden (moderated) event reminds nobody.
 */
export async function remindUpcomingEvents(now: Date = new Date()): Promise<{ events: number; reminded: number }> {
  let events = 0;
  let reminded = 0;
  for (;;) {
    const n = await transaction(platform.db, async (tx, pending) => {
      const { rows } = await tx.execute<{ post_id: string; user_id: string; title: string | null; starts_at: Date | string; live: boolean }>(sql`
        UPDATE post_events e SET reminded_at = ${now.toISOString()}::timestamptz
        FROM posts p
        WHERE p.id = e.post_id AND e.post_id IN (
          SELECT post_id FROM post_events WHERE reminded_at IS NULL AND starts_at <= ${new Date(now.getTime() + REMINDER_LEAD_MS).toISOString()}::timestamptz
          ORDER BY starts_at LIMIT ${REMINDER_BATCH} FOR UPDATE SKIP LOCKED)
        RETURNING e.post_id, p.user_id, p.title, e.starts_at, (e.starts_at > ${now.toISOString()}::timestamptz AND p.hidden_at IS NULL) AS live`);
      for (const row of rows) {
        if (!row.live) continue;
        const { rows: going } = await tx.execute<{ user_id: string }>(sql`SELECT user_id FROM event_rsvps WHERE post_id = ${row.post_id}::uuid AND status = 'going'`);
        const minutes = Math.max(1, Math.round((new Date(row.starts_at).getTime() - now.getTime()) / 60_000));
        const told = await notifyMany(tx, pending, going.map((g) => g.user_id), {
          actorId: null,
          type: 'general',
          targetType: 'Post',
          targetId: row.post_id,
          message: `Reminder: "${row.title ?? 'An event'}" starts in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
        });
        reminded += told.length;
      }
      return rows.length;
    });
    events += n;
    if (n < REMINDER_BATCH) return { events, reminded };
  }
}

export const eventRemindersJob: JobDefinition = {
  name: 'posts.event_reminders',
  schedule: '* * * * *',
  run: () => remindUpcomingEvents(),
};

/** Resolve a lost_found post: its author only (403), once (400 again). The post drops out of feeds' first pages. */
export async function resolveLostFound(ctx: AuthedContext, postId: string) {
  await requireViewablePostById(ctx.user, postId);
  return transaction(platform.db, async (tx, events) => {
    const { rows } = await tx.execute<{ user_id: string; post_type: string; resolved_at: Date | null }>(sql`
      SELECT user_id, post_type, resolved_at FROM posts WHERE id = ${postId}::uuid FOR UPDATE`);
    const post = rows[0];
    if (!post) throw notFound();
    if (post.user_id !== ctx.user.id) throw new AppError(403, { detail: 'Only its author may resolve this post.' });
    if (post.post_type !== 'lost_found') throw new AppError(400, { error: 'Only lost and found posts are resolved.' });
    if (post.resolved_at) throw new AppError(400, { error: 'This post is already resolved.' });
    await tx.execute(sql`UPDATE posts SET resolved_at = now(), updated_at = now() WHERE id = ${postId}::uuid`);
    const record = (await loadPost(postId, ctx.user.id, tx, ctx.baseUrl))!;
    const anonymous = (await loadPost(postId, null, tx, serverBaseUrl()))!;
    events.add('post.updated', { post: serializePost(anonymous, { baseUrl: serverBaseUrl() }), locationId: record.locationId, communityId: record.communityId, hidden: record.hidden });
    return serializePost(record, ctx);
  });
}

/** The calendar's host part of each event's UID. */
const calendarHost = () => new URL(serverBaseUrl()).host;

interface CalendarRow extends Record<string, unknown> {
  id: string;
  title: string | null;
  content: string;
  content_warning: string | null;
  starts_at: Date | string;
  ends_at: Date | string | null;
  place_name: string | null;
  address: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const toCalendarEvent = (r: CalendarRow, baseUrl: string): CalendarEvent => ({
  postId: r.id,
  title: r.title ?? 'Event',
  // A content warning stands in for the content, as apps show it.
  description: r.content_warning ? `Content warning: ${r.content_warning}` : r.content,
  startsAt: new Date(r.starts_at),
  endsAt: r.ends_at ? new Date(r.ends_at) : null,
  placeName: r.place_name,
  address: r.address,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
  url: `${baseUrl}/api/feed/posts/${r.id}/`,
});

const CALENDAR_COLUMNS = sql`p.id, p.title, p.content, p.content_warning, e.starts_at, e.ends_at, e.place_name, e.address, p.created_at, p.updated_at`;

/** One event post as an iCalendar object, for whoever may read the post (404: not an event). */
export async function eventCalendar(ctx: RequestContext, postId: string): Promise<string> {
  await requireViewablePostById(ctx.user, postId);
  const { rows } = await platform.db.execute<CalendarRow>(sql`
    SELECT ${CALENDAR_COLUMNS} FROM posts p JOIN post_events e ON e.post_id = p.id WHERE p.id = ${postId}::uuid`);
  if (!rows.length) throw notFound();
  return calendar([toCalendarEvent(rows[0], ctx.baseUrl)], { host: calendarHost() });
}

/** Events of one place's feed in one calendar at most. */
export const CALENDAR_FEED_MAX = 500;
export const CALENDAR_FEED_DAYS = 90;

/**
 * A place's events that have not ended and start within the next 90 days, soonest first (at most 500), as the
 * caller may list them (moderation, blocks and mutes applied as in the place's feeds; anonymous: every public one).
 */
export async function placeCalendar(ctx: RequestContext, locationId: string): Promise<string> {
  const { rows: place } = await platform.db.execute<{ name: string }>(sql`SELECT name FROM locations WHERE id = ${locationId}::uuid`);
  if (!place.length) throw notFound();
  const now = new Date();
  const until = new Date(now.getTime() + CALENDAR_FEED_DAYS * 86_400_000);
  const { rows } = await platform.db.execute<CalendarRow>(sql`
    SELECT ${CALENDAR_COLUMNS} FROM post_events e JOIN posts p ON p.id = e.post_id
    WHERE p.location_id = ${locationId}::uuid AND e.starts_at < ${until.toISOString()}::timestamptz
      AND coalesce(e.ends_at, e.starts_at) >= ${now.toISOString()}::timestamptz
      AND ${notHiddenFrom(ctx.user?.id, sql`p.user_id`)} AND ${postListedFor(ctx.user?.id)}
    ORDER BY e.starts_at, p.id LIMIT ${CALENDAR_FEED_MAX}`);
  return calendar(
    rows.map((r) => toCalendarEvent(r, ctx.baseUrl)),
    { host: calendarHost(), name: `Events in ${place[0].name}` },
  );
}
