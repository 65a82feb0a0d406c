import { sql } from 'drizzle-orm';
import type { PendingEvents } from '../../core/events.js';
import { platform } from '../../platform/index.js';
import { transaction, type Tx } from '../../platform/db.js';
import { notifyMany } from '../notifications/notifications.service.js';

/**
 * `new_post` for every member of a community but the author (DESIGN.md section 8), outside the post's
 * transaction. The post writes one outbox row (`community_post_fanouts`); after its commit the members are
 * notified in batches of FANOUT_BATCH_SIZE, by keyset on user_id over community_members' primary key, each batch
 * one transaction that advances the row's cursor with the notifications it wrote. The row is locked for the batch
 * (FOR UPDATE SKIP LOCKED), so two runners (this node's worker, another node's job) never write the same batch
 * twice: whoever finds it locked leaves it to its holder. Each batch's `notification:created` pushes follow its
 * commit. A member who joins while the fan-out runs is told if the cursor has not passed them yet.
 */
export const FANOUT_BATCH_SIZE = 2000;

/** A fan-out with no batch committed for this long is taken over by the job (community-fanout.job.ts). */
export const FANOUT_STALLED_AFTER_SECONDS = 20;

declare module '../../core/events.js' {
  interface DomainEventMap {
    /** A community post's members are to be told; this node's fan-out worker starts at once. */
    'community_post.fanout_queued': { postId: string };
  }
}

export interface QueuedFanout {
  postId: string;
  communityId: string;
  actorId: string;
  message: string;
}

/** In the post's transaction: one row whatever the community's size. */
export async function queueCommunityPostFanout(tx: Tx, events: PendingEvents, fanout: QueuedFanout): Promise<void> {
  await tx.execute(sql`
    INSERT INTO community_post_fanouts (post_id, community_id, actor_id, message)
    VALUES (${fanout.postId}::uuid, ${fanout.communityId}::uuid, ${fanout.actorId}::uuid, ${fanout.message})`);
  events.add('community_post.fanout_queued', { postId: fanout.postId });
}

const NO_USER = '00000000-0000-0000-0000-000000000000';

/**
 * A post hidden by moderation tells no more members of it: its fan-out, if still under way, stops here (in the
 * hiding transaction; a batch being written waits for it, then finds the row gone).
 */
export async function cancelCommunityPostFanout(tx: Tx, postId: string): Promise<void> {
  await tx.execute(sql`DELETE FROM community_post_fanouts WHERE post_id = ${postId}::uuid`);
}

/**
 * Notify the next batch of members. True when there may be more; false when the fan-out is finished (its row is
 * deleted), gone (the post or community was deleted), or being worked on by another runner right now.
 */
export async function fanOutNextBatch(postId: string, batchSize: number = FANOUT_BATCH_SIZE): Promise<boolean> {
  return transaction(platform.db, async (tx, events) => {
    const { rows } = await tx.execute<{ community_id: string; actor_id: string | null; message: string; after_user_id: string | null }>(sql`
      SELECT community_id, actor_id, message, after_user_id FROM community_post_fanouts
      WHERE post_id = ${postId}::uuid FOR UPDATE SKIP LOCKED`);
    const fanout = rows[0];
    if (!fanout) return false;
    const { rows: members } = await tx.execute<{ user_id: string }>(sql`
      SELECT user_id FROM community_members
      WHERE community_id = ${fanout.community_id}::uuid AND user_id > ${fanout.after_user_id ?? NO_USER}::uuid
      ORDER BY user_id LIMIT ${batchSize}`);
    await notifyMany(tx, events, members.map((m) => m.user_id), {
      actorId: fanout.actor_id,
      type: 'new_post',
      targetType: 'Post',
      targetId: postId,
      message: fanout.message,
    });
    if (members.length < batchSize) {
      await tx.execute(sql`DELETE FROM community_post_fanouts WHERE post_id = ${postId}::uuid`);
      return false;
    }
    await tx.execute(sql`
      UPDATE community_post_fanouts SET after_user_id = ${members[members.length - 1].user_id}::uuid, progressed_at = now()
      WHERE post_id = ${postId}::uuid`);
    return true;
  });
}

/**
 * After a batch that took t ms, the drain rests FANOUT_REST_RATIO * t ms (at most FANOUT_REST_MAX_MS) before the next:
 * a batch keeps the service's thread and the database busy for its whole length (2,000 notifications, their push
 * outbox rows, 2,000 bodies read back and routed), and back to back they left requests waiting behind them. Resting
 * as long as it worked halves the fan-out's share of both while it runs; its pushes do not wait, since each batch
 * queues far more pushes (2,000 in ~0.2 s) than the outbox sends meanwhile (~1,000 a second).
 */
export const FANOUT_REST_RATIO = 1;
export const FANOUT_REST_MAX_MS = 2_000;

/** Batch after batch until the fan-out is done (or `stop()` says so between batches); answers the batches tried. */
export async function drainCommunityPostFanout(postId: string, stop: () => boolean = () => false): Promise<number> {
  let batches = 0;
  while (!stop()) {
    const started = performance.now();
    const more = await fanOutNextBatch(postId);
    batches++;
    if (!more) break;
    const rest = Math.min(FANOUT_REST_MAX_MS, (performance.now() - started) * FANOUT_REST_RATIO);
    if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
  }
  return batches;
}

/**
 * Fan-outs nobody has moved for `stalledForSeconds` (their node crashed, restarted, or failed a batch), oldest
 * first, at most `limit` per call, each drained to the end. One that fails again is logged and left for the next
 * run; it does not hold up the others.
 */
export async function resumeStalledFanouts(stalledForSeconds: number = FANOUT_STALLED_AFTER_SECONDS, limit = 100): Promise<{ resumed: number; failed: number }> {
  const { rows } = await platform.db.execute<{ post_id: string }>(sql`
    SELECT post_id FROM community_post_fanouts
    WHERE progressed_at <= now() - make_interval(secs => ${stalledForSeconds})
    ORDER BY progressed_at LIMIT ${limit}`);
  let failed = 0;
  for (const row of rows) {
    try {
      await drainCommunityPostFanout(row.post_id);
    } catch (err) {
      failed++;
      platform.log.error({ err, postId: row.post_id }, 'could not resume a community post fan-out');
    }
  }
  return { resumed: rows.length - failed, failed };
}
