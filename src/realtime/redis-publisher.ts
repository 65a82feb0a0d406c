import type { Redis } from 'ioredis';

/**
 * The Redis adapter publishes every cross-node event with `pub.publish(...)` and never handles a failure.
 * During a Redis outage the client gives up on a command after its retries, and that rejection, with no one
 * listening, would end the process: one `notification:created` during a Redis blip would take the node down.
 * Every publish gets a handler that logs the loss (events are hints; clients catch up from the database),
 * while a caller that awaits the publish still sees the rejection.
 */
export function guardPublishes(pub: Redis, onLost: (err: unknown) => void): Redis {
  const publish = pub.publish.bind(pub) as (...args: unknown[]) => Promise<number>;
  pub.publish = ((...args: unknown[]) => {
    const sent = publish(...args);
    sent.catch(onLost);
    return sent;
  }) as Redis['publish'];
  return pub;
}
