import { sql } from 'drizzle-orm';
import type { JobDefinition } from '../../core/job-definition.js';
import { platform } from '../../platform/index.js';
import { transaction } from '../../platform/db.js';
import { loadPollsOfPosts } from './posts.queries.js';
import { serializePoll } from './posts.serializer.js';
import './posts.events.js';

/**
 * Every minute: polls whose `expires_at` has passed are marked announced and `poll:expired` is pushed, once
 * per poll: the mark and the push come from one UPDATE ... RETURNING (rows locked with SKIP LOCKED, so two
 * runners never take the same poll), and the events follow its commit. Reads never wait for this job: they
 * compute `is_expired` from the clock, and votes after `expires_at` are refused whether or not it ran.
 */
const BATCH = 500;

export async function announceExpiredPolls(now: Date = new Date()): Promise<number> {
  let announced = 0;
  for (;;) {
    const n = await transaction(platform.db, async (tx, events) => {
      // A post hidden by moderation: its own room only (its author's devices), not its location's or community's.
      const { rows } = await tx.execute<{ post_id: string; user_id: string; location_id: string | null; community_id: string | null }>(sql`
        UPDATE polls pl SET expiry_announced_at = now()
        FROM posts p
        WHERE p.id = pl.post_id AND pl.id IN (
          SELECT id FROM polls WHERE expiry_announced_at IS NULL AND expires_at <= ${now.toISOString()}::timestamptz
          ORDER BY expires_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
        RETURNING pl.post_id, p.user_id, CASE WHEN p.hidden_at IS NULL THEN p.location_id END AS location_id,
          CASE WHEN p.hidden_at IS NULL THEN p.community_id END AS community_id`);
      const pollsByPost = await loadPollsOfPosts(rows.map((r) => r.post_id), null, tx);
      for (const row of rows) {
        const poll = pollsByPost.get(row.post_id);
        if (poll) events.add('poll.expired', { postId: row.post_id, authorId: row.user_id, locationId: row.location_id, communityId: row.community_id, pollData: serializePoll(poll, now) });
      }
      return rows.length;
    });
    announced += n;
    if (n < BATCH) return announced;
  }
}

export const pollExpiryJob: JobDefinition = {
  name: 'posts.poll_expiry',
  schedule: '* * * * *',
  // The job runner logs `{announced}` with the run's duration.
  run: async () => ({ announced: await announceExpiredPolls() }),
};
