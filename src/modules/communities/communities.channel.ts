import { defineChannel } from '../../core/channels.js';
import { notFound } from '../../core/errors.js';
import { findCommunity } from './communities.queries.js';

/** `subscribe {channel: 'community', id}`: communities are public, so anyone may watch one that exists. */
export const communityChannel = defineChannel({
  name: 'community',
  authorize: async (id) => {
    if (!(await findCommunity(id))) throw notFound();
  },
});
