import type { Config } from '../../platform/config.js';
import type { Logger } from '../../platform/logger.js';
import type { PushDeviceKind, PushSender } from './push-sender.js';
import { createWebPushSender } from './senders/webpush.js';
import { resolveVapid } from './vapid.js';
import { flushSuccesses } from './push-successes.js';
import { createFcmSender } from './senders/fcm.js';
import { createApnsSender } from './senders/apns.js';

/**
 * The push services this node speaks to, one sender per device kind, built from the configuration on first use
 * (DESIGN.md section 10). A kind with no sender, or one whose settings are missing (`configured()` false), is refused
 * at subscription with 400 `{kind: ['…not configured…']}`; devices of it already stored get no pushes.
 *
 * Each builder below answers its sender from the configuration; FCM and APNs add theirs here (issue 35, second part).
 */
export type PushSenderBuilder = (config: Config, log: Logger) => PushSender | null;

export const pushSenderBuilders: PushSenderBuilder[] = [
  (config, log) => createWebPushSender({ vapid: resolveVapid(config, log), allowPrivate: config.PUSH_ALLOW_PRIVATE_ENDPOINTS }),
  (config, log) => createFcmSender(config, log),
  (config, log) => createApnsSender(config, log),
];

let senders: Map<PushDeviceKind, PushSender> | null = null;
let builtFor: Config | null = null;

/** The senders for this configuration (built once per configuration: a test app started anew gets new ones). */
export function pushSenders(config: Config, log: Logger): ReadonlyMap<PushDeviceKind, PushSender> {
  if (senders && builtFor === config) return senders;
  const previous = senders;
  senders = new Map();
  builtFor = config;
  for (const build of pushSenderBuilders) {
    const sender = build(config, log);
    if (sender) senders.set(sender.kind, sender);
  }
  if (previous) for (const sender of previous.values()) void sender.close?.();
  return senders;
}

/** Tests: replace one kind's sender (e.g. with a stubbed resolver) until the next configuration or `resetPushSenders`. */
export function overridePushSender(config: Config, log: Logger, sender: PushSender): void {
  (pushSenders(config, log) as Map<PushDeviceKind, PushSender>).set(sender.kind, sender);
}

/** At shutdown (before the database closes): records the last successes, closes keep-alive connections and HTTP/2 sessions. */
export async function closePushSenders(): Promise<void> {
  await flushSuccesses();
  const current = senders;
  senders = null;
  builtFor = null;
  if (current) await Promise.allSettled([...current.values()].map((s) => s.close?.()));
}

export function isKindConfigured(config: Config, log: Logger, kind: PushDeviceKind): boolean {
  return pushSenders(config, log).get(kind)?.configured() ?? false;
}
