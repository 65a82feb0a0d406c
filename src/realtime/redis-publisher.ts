import type { Redis } from 'ioredis';

/**
 * The Redis adapters publish every cross-node event with `pub.publish(...)` (classic) or `pub.spublish(...)`
 * (sharded) and never handle a failure. During a Redis outage the client gives up on a command after its
 * retries, and that rejection, with no one listening, would end the process: one `notification:created`
 * during a Redis blip would take the node down. Every publish gets a handler that logs the loss (events are
 * hints; clients catch up from the database), while a caller that awaits the publish still sees the rejection.
 */
export function guardPublishes(pub: Redis, onLost: (err: unknown) => void): Redis {
  for (const command of ['publish', 'spublish'] as const) {
    const send = (pub[command] as (...args: unknown[]) => Promise<number>).bind(pub);
    (pub as unknown as Record<string, unknown>)[command] = (...args: unknown[]) => {
      const sent = send(...args);
      sent.catch(onLost);
      return sent;
    };
  }
  return pub;
}
