import type { Server } from 'socket.io';
import { channelRoom } from '../core/channels.js';
import { platform } from '../platform/index.js';
import { accessUserCache } from '../modules/accounts/tokens.js';
import { checkedCaller, forgetCaller, socketContext } from './caller.js';
import type { RealtimeDeps } from './clock.js';
import { reconcileResidency, setResidentsRoom } from './residency.js';
import { localSocketsIn, userRoom } from './rooms.js';
import type { AppSocket } from './socket-types.js';
import { reauthorizeSubscriptions } from './subscriptions.js';

/**
 * What every node must do to its own sockets when something about a user changes. The node where the
 * domain event was published applies it at once (before the request that caused it is answered), and
 * tells the other nodes through the Redis adapter (`serverSideEmit`); without Redis there is one node.
 * Only this node's sockets can have their data (cached caller, access epoch) changed, hence messages
 * rather than the adapter's cluster-wide room operations.
 */
export type NodeMessage =
  /** Rights, activity or sessions of the user changed: drop the cached callers (sockets and process) and check again. */
  | { kind: 'caller_changed'; userId: string }
  /** The user moved: its sockets follow it to the new residents' room. */
  | { kind: 'location_changed'; userId: string; toLocationId: string | null }
  /** The user may no longer watch this channel object. */
  | { kind: 'channel_access_ended'; userId: string; channel: string; id: string };

const NODE_MESSAGE = 'realtime:node_message';

/** How a node message leaves for the other nodes; tests replace it to lose some, as Redis may. */
export type SendToOtherNodes = (message: NodeMessage, send: (message: NodeMessage) => void) => void;

export class RealtimeNode {
  constructor(
    readonly io: Server,
    readonly deps: RealtimeDeps,
    private readonly clustered: boolean,
    private readonly sendToOtherNodes: SendToOtherNodes = (message, send) => send(message),
  ) {
    if (clustered) io.on(NODE_MESSAGE, (message: NodeMessage) => this.applyHere(message));
  }

  /**
   * Apply on this node now, and on every other node as soon as Redis carries it. Redis may lose it:
   * `caller_changed` is also read from the database by every node (access-change-poll.ts).
   */
  broadcast(message: NodeMessage): void {
    this.applyHere(message);
    if (this.clustered) this.sendToOtherNodes(message, (m) => this.io.serverSideEmit(NODE_MESSAGE, m));
  }

  /**
   * Messages from other nodes may have been lost (Redis was away): every cached caller on this node is
   * dropped, so each socket's next event checks its caller against the database again.
   */
  forgetEveryCaller(): void {
    for (const socket of this.io.of('/').sockets.values()) forgetCaller(socket as AppSocket);
  }

  /** Apply on this node only (a message from another node, or a change read from the database). */
  applyHere(message: NodeMessage): void {
    // The process's cache first: the sockets' checks below must read the database.
    if (message.kind === 'caller_changed') accessUserCache.forgetUser(message.userId);
    for (const socket of localSocketsIn(this.io, userRoom(message.userId))) {
      try {
        this.applyTo(socket, message);
      } catch (err) {
        platform.log.error({ err, message: message.kind }, 'failed to apply a realtime node message');
      }
    }
  }

  private applyTo(socket: AppSocket, message: NodeMessage): void {
    switch (message.kind) {
      case 'caller_changed':
        forgetCaller(socket);
        socket.data.accessEpoch++;
        void this.recheck(socket);
        return;
      case 'location_changed':
        // At once, because an event for the new room (location:updated from the same transaction) is routed
        // right after this one; then confirmed by a read, since moves may be routed out of order.
        setResidentsRoom(socket, message.toLocationId);
        void reconcileResidency(socket, this.deps);
        return;
      case 'channel_access_ended':
        socket.data.accessEpoch++;
        void socket.leave(channelRoom(message.channel, message.id));
        return;
    }
  }

  /**
   * Check a socket's caller again after a change: a token no longer accepted (user deactivated, sessions
   * ended) gets `auth:expired` and the socket is disconnected, as when the token runs out; otherwise its
   * subscriptions are checked against the caller's rights now.
   */
  private async recheck(socket: AppSocket): Promise<void> {
    const session = socket.data.session;
    try {
      const user = await checkedCaller(socket, this.deps.clock);
      if (!socket.connected || socket.data.session !== session) return;
      if (!user) {
        socket.emit('auth:expired', {});
        socket.disconnect(true);
        return;
      }
      await reauthorizeSubscriptions(socket, socketContext(socket, user));
    } catch (err) {
      // The cache stays cold: the next event checks the caller again.
      platform.log.error({ err }, 'could not check a socket caller again');
    }
  }
}
