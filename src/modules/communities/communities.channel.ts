import { defineChannel } from '../../core/channels.js';
import { notFound } from '../../core/errors.js';
import { requireCommunityPostsViewer } from '../policy/post-visibility.js';
import { findCommunity } from './communities.queries.js';

/**
 * `subscribe {channel: 'community', id}`: the room hears the community's posts, so whoever may read them may
 * watch it, by the one rule of policy/post-visibility.ts (signed-in callers; an anonymous socket is 401, as
 * `posts.get` of one of its posts is). realtime.sync checks the communities it is named through this channel.
 */
export const communityChannel = defineChannel({
  name: 'community',
  authorize: async (id, ctx) => {
    if (!(await findCommunity(id))) throw notFound();
    requireCommunityPostsViewer(ctx.user, id);
  },
});
