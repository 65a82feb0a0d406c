import { sql } from 'drizzle-orm';
import type { AccountDeletionStep } from '../../core/leaving.js';
import { postScopeColumns, recordDeletionsFrom } from '../deletions/deletions.service.js';
import { queueFileDeletionsFrom } from '../media/file-deletions.js';
import { loadPollsOfPosts } from './posts.queries.js';
import { serializePoll } from './posts.serializer.js';
import { onCommunityPostsDeletedBy } from './targets.js';
import { userViewerKey } from './views.service.js';
import './posts.events.js';

/**
 * Live pushes of one account deletion, newest first: what screens most likely show. The rest reach clients through
 * realtime.sync (tombstones for every post); the bound keeps one deletion from flooding the adapter, as a
 * community's deletion is bounded (COMMUNITY_POST_PUSH_LIMIT).
 */
export const ACCOUNT_PUSH_LIMIT = 1000;

/**
 * The account's posts go, as an author's delete removes one (comments, likes, votes, views and files with them,
 * a tombstone each, `post:deleted` pushed, community post counts following), then what the account gave other
 * people's posts: likes and bookmarks (their counters drop), poll votes (the options' counts drop, `poll:updated`
 * pushed). Its counted views stay counted, anonymous: `views_count` is how often a post was seen, and the view rows
 * keep matching it, without saying by whom. Every statement is set-based: 50,000 posts are a handful of statements.
 */
export const postsLeaving: AccountDeletionStep = {
  module: 'posts',
  handles: {
    'posts.user_id': 'step',
    // Only the author edits a post, so its versions go with the author's posts; the DELETE states it.
    'post_versions.user_id': 'step',
    'post_likes.user_id': 'step',
    'post_bookmarks.user_id': 'step',
    'post_views.user_id': 'step',
    'poll_votes.user_id': 'step',
    'event_rsvps.user_id': 'step',
    'community_post_fanouts.actor_id': 'step',
  },
  async run({ tx, events, userId }) {
    const { rows: newest } = await tx.execute<{ id: string; location_id: string | null; community_id: string | null }>(sql`
      SELECT id, location_id, community_id FROM posts WHERE user_id = ${userId}
      ORDER BY created_at DESC, id DESC LIMIT ${ACCOUNT_PUSH_LIMIT}`);
    await queueFileDeletionsFrom(tx, sql`
      SELECT m.file FROM post_media m JOIN posts p ON p.id = m.post_id WHERE p.user_id = ${userId}
      UNION ALL
      SELECT a.file FROM post_audio a JOIN posts p ON p.id = a.post_id WHERE p.user_id = ${userId}`);
    await recordDeletionsFrom(tx, sql`
      SELECT 'post', p.id, p.user_id, ${postScopeColumns('p')}, p.id, NULL::uuid FROM posts p WHERE p.user_id = ${userId}`);
    await onCommunityPostsDeletedBy(tx, userId);
    await tx.execute(sql`DELETE FROM posts WHERE user_id = ${userId}`);
    await tx.execute(sql`DELETE FROM post_versions WHERE user_id = ${userId}`);
    // Its posts' outbox rows went with them; none is left of a post that is gone.
    await tx.execute(sql`DELETE FROM community_post_fanouts WHERE actor_id = ${userId}`);
    for (const post of newest) events.add('post.deleted', { postId: post.id, locationId: post.location_id, communityId: post.community_id });

    const { rows: unliked } = await tx.execute<{ id: string }>(sql`
      WITH gone AS (DELETE FROM post_likes WHERE user_id = ${userId} RETURNING post_id)
      UPDATE posts p SET likes_count = greatest(0, p.likes_count - 1) FROM gone WHERE p.id = gone.post_id RETURNING p.id`);
    await tx.execute(sql`
      WITH gone AS (DELETE FROM post_bookmarks WHERE user_id = ${userId} RETURNING post_id)
      UPDATE posts p SET bookmarks_count = greatest(0, p.bookmarks_count - 1) FROM gone WHERE p.id = gone.post_id`);
    for (const { id } of unliked.slice(0, ACCOUNT_PUSH_LIMIT)) events.add('post.counters_changed', { postId: id });

    const { rows: unvoted } = await tx.execute<{ post_id: string; user_id: string }>(sql`
      WITH gone AS (DELETE FROM poll_votes WHERE user_id = ${userId} RETURNING option_id),
      counted AS (UPDATE poll_options o SET votes_count = greatest(0, o.votes_count - 1) FROM gone WHERE o.id = gone.option_id RETURNING o.poll_id)
      SELECT DISTINCT pl.post_id, p.user_id FROM counted c JOIN polls pl ON pl.id = c.poll_id JOIN posts p ON p.id = pl.post_id`);
    if (unvoted.length) {
      const pushed = unvoted.slice(0, ACCOUNT_PUSH_LIMIT).map((r) => r.post_id);
      // Read after the counts moved: each push carries the poll as everyone now sees it.
      const polls = await loadPollsOfPosts(pushed, null, tx);
      const now = new Date();
      const authorOf = new Map(unvoted.map((r) => [r.post_id, r.user_id]));
      for (const [postId, poll] of polls) events.add('poll.updated', { postId, authorId: authorOf.get(postId)!, pollData: serializePoll(poll, now) });
    }

    // Its answers to other people's events: the going and interested counts drop with them (trigger of migration 0027).
    await tx.execute(sql`DELETE FROM event_rsvps WHERE user_id = ${userId}`);

    await tx.execute(sql`UPDATE post_views SET user_id = NULL WHERE user_id = ${userId}`);
    await tx.execute(sql`DELETE FROM post_view_cooldowns WHERE viewer_key = ${userViewerKey(userId)}`);
  },
};
