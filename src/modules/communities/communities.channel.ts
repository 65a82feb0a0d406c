import { defineChannel } from '../../core/channels.js';
import { notAuthenticated, notFound } from '../../core/errors.js';
import { findCommunity } from './communities.queries.js';

/**
 * `subscribe {channel: 'community', id}`: communities are public to signed-in users (every community operation
 * needs a token), so any signed-in socket may watch one that exists; an anonymous socket may not, or it would
 * hear the community's posts that REST shows only to signed-in callers.
 */
export const communityChannel = defineChannel({
  name: 'community',
  authorize: async (id, ctx) => {
    if (!ctx.user) throw notAuthenticated();
    if (!(await findCommunity(id))) throw notFound();
  },
});
