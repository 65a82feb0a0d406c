import { sql } from 'drizzle-orm';
import { currentDb, type DbOrTx } from '../../platform/db.js';

/** An event post's own row (migration 0027) with the viewer's RSVP. */
export interface EventRecord {
  startsAt: Date;
  endsAt: Date | null;
  placeName: string | null;
  address: string | null;
  capacity: number | null;
  goingCount: number;
  interestedCount: number;
  /** The viewer's answer; null for none or an anonymous viewer. */
  viewerRsvp: 'going' | 'interested' | null;
}

const asDate = (v: Date | string) => (v instanceof Date ? v : new Date(v));

export interface EventSqlRow extends Record<string, unknown> {
  post_id: string;
  starts_at: Date;
  ends_at: Date | null;
  place_name: string | null;
  address: string | null;
  capacity: number | null;
  going_count: number;
  interested_count: number;
  viewer_rsvp: 'going' | 'interested' | null;
}

export const eventRecord = (r: EventSqlRow): EventRecord => ({
  startsAt: asDate(r.starts_at),
  endsAt: r.ends_at ? asDate(r.ends_at) : null,
  placeName: r.place_name,
  address: r.address,
  capacity: r.capacity,
  goingCount: r.going_count,
  interestedCount: r.interested_count,
  viewerRsvp: r.viewer_rsvp,
});

/** The events of these posts, one query for the page. */
export async function loadEventsOfPosts(postIds: string[], viewerId: string | null, db: DbOrTx = currentDb()): Promise<Map<string, EventRecord>> {
  const out = new Map<string, EventRecord>();
  if (!postIds.length) return out;
  const { rows } = await db.execute<EventSqlRow>(sql`
    SELECT e.post_id, e.starts_at, e.ends_at, e.place_name, e.address, e.capacity, e.going_count, e.interested_count,
           ${viewerId ? sql`(SELECT r.status FROM event_rsvps r WHERE r.post_id = e.post_id AND r.user_id = ${viewerId}::uuid)` : sql`NULL::text`} AS viewer_rsvp
    FROM post_events e WHERE e.post_id = ANY(${sql.param(postIds)}::uuid[])`);
  for (const r of rows) out.set(r.post_id, eventRecord(r));
  return out;
}
