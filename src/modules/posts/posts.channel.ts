import { defineChannel } from '../../core/channels.js';
import { requireViewablePostById } from '../policy/post-visibility.js';

/**
 * `subscribe {channel: 'post', id}` while a post is open on screen: comments, poll results and coalesced
 * stats arrive in `sub:post:<id>`. Whoever may read the post may watch it, by the one rule of post-visibility.ts
 * (a community's post: signed-in callers only); an unknown post is 404.
 */
export const postChannel = defineChannel({
  name: 'post',
  authorize: async (id, ctx) => {
    await requireViewablePostById(ctx.user, id);
  },
});
