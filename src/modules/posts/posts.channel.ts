import { defineChannel } from '../../core/channels.js';
import { notFound } from '../../core/errors.js';
import { findPostHead } from './posts.queries.js';
import { requireViewablePost } from './post-visibility.js';

/**
 * `subscribe {channel: 'post', id}` while a post is open on screen: comments, poll results and coalesced
 * stats arrive in `sub:post:<id>`. Whoever may read the post may watch it, by the one rule of post-visibility.ts
 * (a community's post: signed-in callers only); an unknown post is 404.
 */
export const postChannel = defineChannel({
  name: 'post',
  authorize: async (id, ctx) => {
    const post = await findPostHead(id);
    if (!post) throw notFound();
    await requireViewablePost(ctx.user, { communityId: post.communityId, authorId: post.userId, hidden: post.hidden });
  },
});
