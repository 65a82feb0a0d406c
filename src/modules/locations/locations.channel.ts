import { defineChannel } from '../../core/channels.js';
import { notFound } from '../../core/errors.js';
import { findLocation } from './locations.queries.js';

/** `subscribe {channel: 'location', id}`: anyone may watch a location's room (live-feed displays too), if it exists. */
export const locationChannel = defineChannel({
  name: 'location',
  authorize: async (id) => {
    if (!(await findLocation(id))) throw notFound();
  },
});
