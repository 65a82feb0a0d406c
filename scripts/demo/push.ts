import { ApiError } from '@hyperlocal/client';
import { aWebPushReceiver, subscriptionIdOf, type ReceivedPush } from '../../tests/helpers/webpush-receiver.js';
import { DEFAULT_SEED, DEMO_PASSWORD, HOST_USERNAME, planCity } from './city.js';
import { demoClient } from './client.js';

/**
 * The last step of `npm run demo` (docs/push.md): a Web Push device for `demo`, end to end. A local stand-in for a
 * browser's push service (tests/helpers/webpush-receiver.ts) holds the subscription's P-256 key and auth secret as a
 * browser does; `demo` registers it (`push.subscribe`), a neighbour replies to a new post of `demo`'s, and what
 * arrives is printed: the VAPID token verified against the service's public key, the body decrypted with `http_ece`.
 *
 * The stand-in listens on loopback over plain http, which the service refuses unless it runs with
 * PUSH_ALLOW_PRIVATE_ENDPOINTS=true: then the demo says so and skips the step.
 */
export interface DemoPushResult {
  status: 'received' | 'refused' | 'nothing';
  push?: ReceivedPush;
  message: string;
}

export async function demoPush(baseUrl: string, opts: { seed?: number; users?: number; waitMs?: number } = {}): Promise<DemoPushResult> {
  const host = demoClient(baseUrl);
  await host.login({ username: HOST_USERNAME, password: DEMO_PASSWORD });
  const plan = planCity(opts.users ?? 100, opts.seed ?? DEFAULT_SEED);
  const hostPlan = plan.users.find((u) => u.username === HOST_USERNAME)!;
  const neighbourPlan = plan.users.find((u) => u.username !== HOST_USERNAME && u.hood === hostPlan.hood)!;
  const { public_key } = await host.call('push.vapid_public_key', {});
  const receiver = await aWebPushReceiver(public_key);
  try {
    const subscription = receiver.subscribe();
    let device;
    try {
      device = await host.call('push.subscribe', { kind: 'webpush', ...subscription, locale: 'en-GB' });
    } catch (err) {
      if (err instanceof ApiError && err.status === 400) {
        return { status: 'refused', message: 'Push: skipped. The demo\'s stand-in push service listens on loopback over http; start the service with PUSH_ALLOW_PRIVATE_ENDPOINTS=true to see a push arrive (docs/push.md).' };
      }
      throw err;
    }
    const post = await host.call('posts.create', { post_type: 'text', content: 'Does anyone know a good plumber near the Shore?' });
    const neighbour = demoClient(baseUrl);
    await neighbour.login({ username: neighbourPlan.username, password: DEMO_PASSWORD });
    await neighbour.call('comments.create', { post: post.id, content: 'Try Murray on Henderson Street, he fixed ours in an hour.' });
    neighbour.close();
    const [push] = await receiver.waitFor(1, opts.waitMs ?? 15_000, (p) => p.subscriptionId === subscriptionIdOf(subscription.endpoint)).catch(() => [undefined]);
    // The device stays registered only for the demo's own stand-in, which is gone once the demo ends.
    await host.call('push.unsubscribe', { subscription_id: device.id }).catch(() => undefined);
    if (!push) return { status: 'nothing', message: `Push: no push arrived within ${(opts.waitMs ?? 15_000) / 1000} s (is the service's outbox worker running?).` };
    const lines = [
      `Push: ${neighbourPlan.username} replied to a post of ${HOST_USERNAME}'s, and ${HOST_USERNAME}'s Web Push device got:`,
      `  headers  TTL ${push.ttl}, Urgency ${push.urgency}, Topic ${push.topic}, Content-Encoding ${push.contentEncoding}`,
      `  VAPID    ${push.vapid.ok ? `verified against the service's public key (sub ${push.vapid.sub})` : `NOT verified: ${push.vapid.problem}`}`,
      `  payload  ${push.bytes} bytes encrypted; decrypted with http_ece:`,
      ...JSON.stringify(push.payload, null, 2).split('\n').map((l) => `           ${l}`),
    ];
    return { status: 'received', push, message: lines.join('\n') };
  } finally {
    host.close();
    await receiver.close();
  }
}
