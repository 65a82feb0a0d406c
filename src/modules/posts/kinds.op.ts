import { z } from 'zod';
import { defineOperation, ok, type RateLimitRule } from '../../core/operation.js';
import { zPaginated } from '../../core/response-schemas.js';
import { zPage, zPageSize, zUuid } from '../../core/validation.js';
import { eventCalendar, placeCalendar, resolveLostFound, rsvp } from './event-posts.service.js';
import { storeRecommendations } from './recommendations.service.js';
import { zEventData, zPostBody } from './posts.serializer.js';
import { READ_LIMIT } from './posts.op.js';

/**
 * The neighbourhood kinds' own operations (DESIGN.md section 13): RSVPs to events, their calendars, resolving a lost
 * and found post, a store's recommendations. Creating them is posts.create (post_type event, lost_found,
 * recommendation, alert).
 */
const perUser = (points: number): RateLimitRule => ({ name: 'user', points, durationSeconds: 60, key: 'user' });
const CALENDAR = 'text/calendar; charset=utf-8';

export const rsvpOp = defineOperation({
  name: 'posts.rsvp',
  method: 'POST',
  path: '/api/feed/posts/{post_id}/rsvp/',
  auth: 'user',
  summary: "Answer an event: going, interested or not_going (which removes the answer); going to a full event is 400",
  tags: ['posts'],
  input: z.object({
    post_id: zUuid(),
    status: z.enum(['going', 'interested', 'not_going'], { error: (i) => (i.input === undefined ? 'This field is required.' : `"${String(i.input)}" is not a valid choice.`) }),
  }),
  rateLimits: [perUser(60)],
  responses: { 200: z.object({ message: z.string(), status: z.enum(['going', 'interested', 'not_going']), event_data: zEventData }) },
  handler: async (input, ctx) => ok(await rsvp(ctx, input)),
});

export const eventCalendarOp = defineOperation({
  name: 'posts.event_ics',
  method: 'GET',
  path: '/api/feed/posts/{post_id}/event.ics',
  auth: 'optional',
  summary: 'An event post as iCalendar (RFC 5545, text/calendar; over the socket the same text as the body)',
  tags: ['posts'],
  produces: 'text/calendar',
  input: z.object({ post_id: zUuid() }),
  rateLimits: [READ_LIMIT],
  responses: { 200: z.string().describe('An iCalendar object (VCALENDAR with one VEVENT)') },
  handler: async (input, ctx) => ({ status: 200, body: await eventCalendar(ctx, input.post_id), headers: { 'Content-Type': CALENDAR } }),
});

export const placeCalendarOp = defineOperation({
  name: 'posts.events_ics',
  method: 'GET',
  path: '/api/feed/events.ics',
  auth: 'optional',
  summary: "A place's events of the next 90 days as an iCalendar feed (RFC 5545, text/calendar), soonest first, at most 500",
  tags: ['posts'],
  produces: 'text/calendar',
  input: z.object({ location_id: zUuid() }),
  rateLimits: [READ_LIMIT],
  responses: { 200: z.string().describe('An iCalendar object (VCALENDAR, one VEVENT per event)') },
  errors: [404],
  handler: async (input, ctx) => ({ status: 200, body: await placeCalendar(ctx, input.location_id), headers: { 'Content-Type': CALENDAR } }),
});

export const resolveOp = defineOperation({
  name: 'posts.resolve',
  method: 'POST',
  path: '/api/feed/posts/{post_id}/resolve/',
  auth: 'user',
  summary: 'Resolve a lost and found post (its author only); it then drops out of the first page of feeds',
  tags: ['posts'],
  input: z.object({ post_id: zUuid() }),
  rateLimits: [perUser(30)],
  responses: { 200: zPostBody },
  errors: [403],
  handler: async (input, ctx) => ok(await resolveLostFound(ctx, input.post_id)),
});

export const storeRecommendationsOp = defineOperation({
  name: 'stores.recommendations',
  method: 'GET',
  path: '/api/stores/stores/{store_id}/recommendations/',
  auth: 'optional',
  summary: "Neighbours' recommendation posts naming this store, newest first",
  tags: ['stores'],
  input: z.object({ store_id: zUuid(), page: zPage(), page_size: zPageSize() }),
  rateLimits: [READ_LIMIT],
  responses: { 200: zPaginated(zPostBody) },
  handler: async (input, ctx) => ok(await storeRecommendations(ctx, input)),
});

export const kindOperations = [rsvpOp, eventCalendarOp, placeCalendarOp, resolveOp, storeRecommendationsOp];
