import type { Operation } from '../core/operation.js';
import { runOperation, type OperationRunner } from '../core/run-operation.js';
import { INTERNAL_ERROR_BODY, MESSAGES } from '../core/errors.js';
import { platform } from '../platform/index.js';
import { callerContext, withCaller } from './caller.js';
import type { RealtimeDeps } from './clock.js';
import { endSession, renewSession } from './session.js';
import { handleSubscribe, handleUnsubscribe } from './subscriptions.js';
import { createTypingHandler } from './typing.js';
import type { Ack, AppSocket } from './socket-types.js';
import { ConnectionCaps, overEventBudget } from './socket-limits.js';

type Result = { status: number; body: unknown };
type EventHandler = (socket: AppSocket, input: Record<string, unknown>) => Promise<Result>;

const NOT_FOUND: Result = { status: 404, body: { detail: MESSAGES.notFound } };

/**
 * Every client event goes through one function: the handler is looked up by name in a table built once per
 * server (each operation, `subscribe`, `unsubscribe`, `auth:renew`), the input is whatever object came first,
 * and the answer goes to the ack if the client asked for one. Nothing the client sends (a name nobody serves,
 * no arguments, extra arguments, a payload that is not an object) can throw outside a handler; an unknown
 * name is acked 404. It runs as a socket middleware that never passes the packet on, so no event name, not
 * even `error`, reaches the socket's EventEmitter.
 */
export function createDispatcher(operations: readonly Operation[], runner: OperationRunner, deps: RealtimeDeps, limits: { eventsPerSecond: number; maxSubscriptions: number; caps: ConnectionCaps }) {
  const { clock } = deps;
  const handlers = new Map<string, EventHandler>();
  for (const op of operations) {
    handlers.set(op.name, async (socket, input) => {
      const startedAt = performance.now();
      const result = await withCaller(socket, clock, async (ctx) => {
        const answer = await runOperation(runner, op, input, ctx);
        runner.onAnswered?.(op, ctx, answer.status, (performance.now() - startedAt) / 1000);
        return answer;
      });
      if ('endsSession' in result && result.endsSession) {
        await endSession(socket, deps);
        limits.caps.releaseUser(socket);
      }
      return { status: result.status, body: result.body ?? null };
    });
  }
  handlers.set('subscribe', (socket, input) => handleSubscribe(socket, input, () => callerContext(socket, clock), limits.maxSubscriptions));
  handlers.set('unsubscribe', (socket, input) => handleUnsubscribe(socket, input));
  handlers.set('auth:renew', (socket, input) => renewSession(socket, input, deps, limits.caps));
  handlers.set('typing', createTypingHandler(clock));

  async function dispatch(socket: AppSocket, packet: unknown[]): Promise<void> {
    const [name, ...args] = packet;
    // Only the server puts a function in the packet (the ack of an event the client sent with a callback).
    const ack = typeof args[args.length - 1] === 'function' ? (args.pop() as Ack) : null;
    const handler = typeof name === 'string' ? handlers.get(name) : undefined;
    let result: Result;
    try {
      result = overEventBudget(socket, limits.eventsPerSecond, clock.now()) ?? (handler ? await handler(socket, asInput(args[0])) : NOT_FOUND);
    } catch (err) {
      platform.log.error({ err, event: typeof name === 'string' ? name.slice(0, 100) : typeof name }, 'socket event failed');
      result = { status: 500, body: INTERNAL_ERROR_BODY };
    }
    try {
      ack?.(result);
    } catch (err) {
      // An answer that cannot be encoded must not become an unhandled rejection that ends the process.
      platform.log.error({ err, event: typeof name === 'string' ? name.slice(0, 100) : typeof name }, 'could not answer a socket event');
    }
  }

  /** Register on a new socket: every packet it sends is dispatched, none reaches socket.on listeners. */
  return (socket: AppSocket) => {
    socket.use((packet) => {
      void dispatch(socket, packet);
    });
  };
}

/** The event's input: an object as sent; anything else (missing, null, a number, a list) counts as empty. */
function asInput(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null ? (value as Record<string, unknown>) : {};
}
