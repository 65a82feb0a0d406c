import { domainEvents } from '../../core/events.js';
import { platform } from '../../platform/index.js';
import { findPostStats } from './posts.queries.js';
import './posts.events.js';

/**
 * `post:stats` is coalesced to at most one per post per second (DESIGN.md section 5), per node: the first
 * change of a quiet post is pushed at once (leading edge), later changes within the next second only mark
 * it dirty, and when the second ends one more push carries the counters as they are then (trailing edge).
 * Each push reads the counters from the database when it is sent, so the last one a client sees is the
 * committed truth, whatever order concurrent commits published their events in. With several nodes each
 * node coalesces the changes it committed; a post liked on two nodes at once may get two pushes a second.
 */
export const STATS_WINDOW_MS = 1000;

interface Window {
  dirty: boolean;
}
const windows = new Map<string, Window>();

function changed(postId: string): void {
  const open = windows.get(postId);
  if (open) {
    open.dirty = true;
    return;
  }
  const window: Window = { dirty: false };
  windows.set(postId, window);
  // The second is counted from the push itself (after its read), so two pushes are a full second apart
  // however long a read waited for a connection; changes during the read make the trailing push.
  void push(postId).finally(() => {
    setTimeout(() => {
      windows.delete(postId);
      if (window.dirty) changed(postId);
    }, STATS_WINDOW_MS).unref();
  });
}

async function push(postId: string): Promise<void> {
  try {
    // Outside any transaction: this runs after the commit that raised the change.
    const row = await findPostStats(postId, platform.db);
    if (!row) return; // deleted meanwhile: post:deleted says so
    domainEvents.publish('post.stats', {
      stats: {
        post_id: postId,
        likes_count: row.likes_count,
        comments_count: row.comments_count,
        views_count: row.views_count,
        // An event's answers, live as its likes are (an RSVP raises post.counters_changed); other posts carry none.
        ...(row.going_count !== null ? { going_count: row.going_count, interested_count: row.interested_count ?? 0 } : {}),
      },
      authorId: row.user_id,
      // A post hidden by moderation is heard of in its own room only, which only its author's devices (and staff)
      // may hold; its location's and community's rooms lost it (post:deleted).
      locationId: row.hidden ? null : row.location_id,
      communityId: row.hidden ? null : row.community_id,
    });
  } catch (err) {
    // A push is a hint (clients read the truth from the post); a failed read is logged, never thrown.
    platform.log.warn({ err, postId }, 'post stats push failed');
  }
}

let started = false;
/** Listen for counter changes on this node's bus (idempotent; the posts operations start it on import). */
export function startStatsCoalescer(): void {
  if (started) return;
  started = true;
  domainEvents.subscribe((event) => {
    if (event.name === 'post.counters_changed') changed(event.payload.postId);
  });
}
