import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { RequestContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { requireViewablePostById } from '../policy/post-visibility.js';
import { platform } from '../../platform/index.js';
import { transaction, type DbOrTx } from '../../platform/db.js';
import './posts.events.js';

/**
 * `track_view` with a 30-minute cooldown per (viewer, post) (DESIGN.md section 8). A viewer is the user, or
 * for an anonymous caller the client address alone, as a keyed hash (never stored in the clear): the user agent is
 * the caller's to choose, so counting it would let one address buy a view per agent string. The cooldown row is
 * claimed with one INSERT ... ON CONFLICT DO UPDATE ... WHERE older than the cooldown, so two concurrent
 * views of one viewer count once; a counted view is written to the history (`post_views`, for analytics)
 * and `views_count` moves by a single-statement increment in the same transaction.
 */
export const VIEW_COOLDOWN_MINUTES = 30;

export interface TrackViewInput {
  post_id: string;
  device_type?: string;
  referrer_type?: string;
}

export type TrackViewAnswer =
  | { message: string; view_recorded: true; views_count: number }
  | { message: string; view_recorded: false; views_count: number; cooldown_remaining_seconds: number };

/** The cooldown key of a signed-in viewer. */
export const userViewerKey = (userId: string) => `user:${userId}`;

export function viewerKey(ctx: Pick<RequestContext, 'user' | 'ip'>): string {
  if (ctx.user) return userViewerKey(ctx.user.id);
  // Keyed: a plain hash of an IPv4 address is reversed by trying all 2^32 of them.
  return `anon:${crypto.createHmac('sha256', platform.jwtKey).update(`post-viewer:${ctx.ip}`).digest('base64url')}`;
}

export async function trackView(ctx: RequestContext, input: TrackViewInput): Promise<TrackViewAnswer> {
  // Only a viewer who may read the post counts a view of it. The existence checks below stay: the post may go meanwhile.
  await requireViewablePostById(ctx.user, input.post_id);
  const key = viewerKey(ctx);
  return transaction(platform.db, async (tx, events) => {
    const claimed = await tx.execute(sql`
      INSERT INTO post_view_cooldowns (post_id, viewer_key, viewed_at)
      SELECT ${input.post_id}::uuid, ${key}, now() WHERE EXISTS (SELECT 1 FROM posts WHERE id = ${input.post_id}::uuid)
      ON CONFLICT (post_id, viewer_key) DO UPDATE SET viewed_at = now()
        WHERE post_view_cooldowns.viewed_at <= now() - make_interval(mins => ${VIEW_COOLDOWN_MINUTES})
      RETURNING 1`);
    if (claimed.rows.length) {
      await tx.execute(sql`
        INSERT INTO post_views (post_id, user_id, device_type, referrer_type)
        VALUES (${input.post_id}::uuid, ${ctx.user?.id ?? null}::uuid, ${input.device_type ?? null}, ${input.referrer_type ?? null})`);
      const { rows } = await tx.execute<{ views_count: number }>(sql`
        UPDATE posts SET views_count = views_count + 1 WHERE id = ${input.post_id}::uuid RETURNING views_count`);
      events.add('post.counters_changed', { postId: input.post_id });
      return { message: 'View recorded.', view_recorded: true as const, views_count: rows[0].views_count };
    }
    const { rows } = await tx.execute<{ views_count: number; remaining: number | null }>(sql`
      SELECT p.views_count,
             ceil(extract(epoch FROM (c.viewed_at + make_interval(mins => ${VIEW_COOLDOWN_MINUTES}) - now())))::int AS remaining
      FROM posts p LEFT JOIN post_view_cooldowns c ON c.post_id = p.id AND c.viewer_key = ${key}
      WHERE p.id = ${input.post_id}::uuid`);
    if (!rows.length) throw notFound();
    return {
      message: 'View already counted recently.',
      view_recorded: false as const,
      views_count: rows[0].views_count,
      cooldown_remaining_seconds: Math.max(0, rows[0].remaining ?? 0),
    };
  });
}

/**
 * Delete cooldown rows whose cooldown has passed (they no longer decide anything: the next view of that
 * viewer replaces them anyway). Idempotent, in batches so it never holds many locks; the counted views
 * themselves stay in `post_views`.
 */
export async function deleteExpiredViewCooldowns(db: DbOrTx = platform.db, batch = 5000): Promise<number> {
  let deleted = 0;
  for (;;) {
    const { rows } = await db.execute<{ n: number }>(sql`
      WITH gone AS (
        DELETE FROM post_view_cooldowns WHERE ctid IN (
          SELECT ctid FROM post_view_cooldowns
          WHERE viewed_at <= now() - make_interval(mins => ${VIEW_COOLDOWN_MINUTES}) LIMIT ${batch})
        RETURNING 1)
      SELECT count(*)::int AS n FROM gone`);
    deleted += rows[0].n;
    if (rows[0].n < batch) return deleted;
  }
}
