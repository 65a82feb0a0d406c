import { defineChannel } from '../../core/channels.js';
import { notFound } from '../../core/errors.js';
import { findPostHead } from './posts.queries.js';

/**
 * `subscribe {channel: 'post', id}` while a post is open on screen: comments, poll results and coalesced
 * stats arrive in `sub:post:<id>`. Anyone who may read the post may watch it (single posts are readable
 * without a token); an unknown post is 404.
 */
export const postChannel = defineChannel({
  name: 'post',
  authorize: async (id) => {
    if (!(await findPostHead(id))) throw notFound();
  },
});
