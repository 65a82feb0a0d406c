import type { Server } from 'socket.io';
import type { DomainEvent, DomainEventMap, DomainEventName } from '../core/events.js';
import type { RealtimeNode } from './node.js';
import { channelRoom } from '../core/channels.js';
import { hidingRoom, locationAudience, postHomeAudience, postRoom, userRoom } from './rooms.js';

export { locationAudience, residentsRoom } from './rooms.js';

/**
 * Where each domain event is heard (DESIGN.md section 5). The only place that knows which rooms hear what;
 * services never touch sockets. Every event has an entry, checked by the compiler: an event that reaches no
 * socket says so and what handles it instead, so a new event cannot be dropped by omission.
 */
type RoutedEventName = Exclude<DomainEventName, `test.${string}`>;
/** Events named `test.*` are declared by tests to observe the bus; they reach no socket and need no route. */
type DomainEventRoutes = { [K in RoutedEventName]: (node: RealtimeNode, payload: DomainEventMap[K]) => void };

export const domainEventRoutes: DomainEventRoutes = {
  'notification.created': ({ io }, { userId, notification }) => io.to(userRoom(userId)).emit('notification:created', notification),
  'notification.updated': ({ io }, { userId, notification }) => io.to(userRoom(userId)).emit('notification:updated', notification),
  'notification.read_all': ({ io }, { userId, read_at }) => io.to(userRoom(userId)).emit('notification:read_all', { read_at }),
  // Every participant's devices, the sender's other devices included.
  // (An empty room list would broadcast to every socket: never emit without rooms.)
  'message.created': ({ io }, { participantIds, message }) => {
    if (participantIds.length) io.to(participantIds.map(userRoom)).emit('message:created', message);
  },
  'conversation.read': ({ io }, { recipientIds, read }) => {
    if (recipientIds.length) io.to(recipientIds.map(userRoom)).emit('conversation:read', read);
  },
  'order.created': ({ io }, { sellerId, order }) => io.to(userRoom(sellerId)).emit('order:created', order),
  'order.updated': ({ io }, { recipientId, order }) => io.to(userRoom(recipientId)).emit('order:updated', order),
  'location.updated': ({ io }, { location }) => io.to(locationAudience(location.id)).emit('location:updated', location),
  // Every device of the user follows it to the new location's residents' room, on every node.
  'user.location_changed': (node, { userId, toLocationId }) => node.broadcast({ kind: 'location_changed', userId, toLocationId }),
  'user.deactivated': (node, { userId }) => {
    onThisNodeNowAndEveryNode(node.io, (io) => io.in(userRoom(userId)).disconnectSockets(true));
    node.broadcast({ kind: 'caller_changed', userId });
  },
  // No push: every node drops the cached caller and checks its sockets again.
  'user.access_changed': (node, { userId }) => node.broadcast({ kind: 'caller_changed', userId }),
  // No push: the user's sockets leave that channel's room on every node.
  'channel.access_ended': (node, { userId, channel, id }) => node.broadcast({ kind: 'channel_access_ended', userId, channel, id }),
  // Never to the sockets that hide the author (a block either way, a mute): the adapter applies except() on every node.
  'post.created': ({ io }, { post, locationId, communityId }) => {
    const rooms = postHomeAudience(locationId, communityId);
    if (rooms.length) io.to(rooms).except(hidingRoom(post.user.id)).emit('post:created', post);
  },
  // An edit goes where the post was heard (its location's or community's audience) and to its own room, with the same
  // hiding; a post hidden by moderation only to its own room, which holds its author's (and staff's) sockets.
  'post.updated': ({ io }, { post, locationId, communityId, hidden }) =>
    aboutPost(io, hidden ? [postRoom(post.id)] : [postRoom(post.id), ...postHomeAudience(locationId, communityId)], [post.user.id]).emit('post:updated', post),
  // A post hidden by moderation is still its author's: their devices do not hear it go, and keep its room; every
  // other socket leaves the room (on every node, after the push), so the post's later comments, votes and stats
  // reach nobody else. The post rule keeps them from subscribing again.
  'post.deleted': ({ io }, { postId, locationId, communityId, keptFor }) => {
    const rooms = [postRoom(postId), ...postHomeAudience(locationId, communityId)];
    if (keptFor) {
      io.to(rooms).except(userRoom(keptFor)).emit('post:deleted', { id: postId });
      onThisNodeNowAndEveryNode(io, (target) => target.in(postRoom(postId)).except(userRoom(keptFor)).socketsLeave(postRoom(postId)));
    } else emitTo(io, rooms, 'post:deleted', { id: postId });
  },
  // No push: the posts module's stats coalescer turns bursts of these into at most one post.stats a second.
  'post.counters_changed': () => undefined,
  // No push: the posts module's fan-out worker notifies the community's members, who hear notification:created.
  'community_post.fanout_queued': () => undefined,
  // Wakes this node's outbox worker (platform/outbox.ts); reaches no socket.
  'outbox.queued': () => undefined,
  'post.stats': ({ io }, { stats, authorId, locationId, communityId }) =>
    aboutPost(io, [postRoom(stats.post_id), ...postHomeAudience(locationId, communityId)], [authorId]).emit('post:stats', stats),
  'comment.created': ({ io }, { postId, authorId, comment }) => aboutPost(io, [postRoom(postId)], [authorId, comment.user.id]).emit('comment:created', comment),
  'comment.updated': ({ io }, { postId, authorId, comment }) => aboutPost(io, [postRoom(postId)], [authorId, comment.user.id]).emit('comment:updated', comment),
  // Every device of the viewer, on every node, enters or leaves the author's hiding room.
  'safety.hiding_changed': ({ io }, { changes }) => {
    for (const { viewerId, authorId, hidden } of changes) {
      onThisNodeNowAndEveryNode(io, (target) => {
        if (hidden) target.in(userRoom(viewerId)).socketsJoin(hidingRoom(authorId));
        else target.in(userRoom(viewerId)).socketsLeave(hidingRoom(authorId));
      });
    }
  },
  'poll.updated': ({ io }, { postId, authorId, pollData }) => aboutPost(io, [postRoom(postId)], [authorId]).emit('poll:updated', { post_id: postId, poll_data: pollData }),
  // After its posts' post:deleted (raised before it in the same transaction): the room hears the end, then every
  // socket leaves it, on every node (the adapter carries socketsLeave as it carries emits, in order) and on this one
  // before anything else happens here.
  'community.deleted': ({ io }, { communityId }) => {
    const room = channelRoom('community', communityId);
    io.to(room).emit('community:deleted', { id: communityId });
    onThisNodeNowAndEveryNode(io, (target) => target.in(room).socketsLeave(room));
  },
  'poll.expired': ({ io }, { postId, authorId, locationId, communityId, pollData }) =>
    aboutPost(io, [postRoom(postId), ...postHomeAudience(locationId, communityId)], [authorId]).emit('poll:expired', { post_id: postId, poll_data: pollData }),
};

/** One emit to several rooms: a socket in more than one of them hears it once. */
/**
 * A push about a post (its stats, its poll, a comment on it) to `rooms` (never empty: the post's own room is one),
 * except the sockets that hide any of `authors` (DESIGN.md section 9): a block either way, or a mute.
 */
function aboutPost(io: RealtimeNode['io'], rooms: string[], authors: string[]) {
  return io.to(rooms).except(authors.map(hidingRoom));
}

function emitTo(io: RealtimeNode['io'], rooms: string[], event: string, payload: unknown): void {
  if (rooms.length) io.to(rooms).emit(event, payload);
}

/**
 * A change of room membership (socketsJoin, socketsLeave, disconnectSockets) on every node, and on this one at once.
 * The classic Redis adapter publishes these and applies even its own node's part only when the request comes back
 * from Redis, unlike an emit, which reaches this node's sockets at once: a socket that heard `community:deleted` could
 * still be in the room it was told it left, and a push right after a block could still reach the blocked person's
 * sockets on this node. So the local part goes first (`io.local`), then the request to every node (here a no-op).
 */
function onThisNodeNowAndEveryNode(io: Server, change: (target: Pick<Server, 'in'>) => void): void {
  change(io.local);
  change(io);
}

export function routeDomainEvent(node: RealtimeNode, event: DomainEvent): void {
  const route = domainEventRoutes[event.name as RoutedEventName] as ((node: RealtimeNode, payload: unknown) => void) | undefined;
  route?.(node, event.payload);
}
