import { z } from 'zod';
import { defineOperation, noContent, ok } from '../../core/operation.js';
import type { RateLimitRule } from '../../core/operation.js';
import { zPage, zPageSize, zUuid } from '../../core/validation.js';
import { zNoContent, zPaginated } from '../../core/response-schemas.js';
import { fieldError } from '../../core/errors.js';
import { platform } from '../../platform/index.js';
import { listDevices, subscribe, unsubscribe, vapidPublicKey } from './push.service.js';
import { zPushSubscriptionBody } from './push.serializer.js';

/** Push devices (DESIGN.md section 10; docs/push.md). Every operation is the caller's own devices: anyone else's is 404. */
const perUser = (points: number, durationSeconds: number): RateLimitRule[] => [{ name: 'user', points, durationSeconds, key: 'user' }];

const base64urlBytes = (bytes: number, check?: (b: Buffer) => boolean) =>
  z.string().max(200).refine((v) => {
    if (!/^[A-Za-z0-9_-]+={0,2}$/.test(v)) return false;
    const b = Buffer.from(v.replace(/=+$/, ''), 'base64url');
    return b.length === bytes && (!check || check(b));
  }, `Must be ${bytes} bytes in base64url.`);

const zEndpoint = () =>
  z
    .string()
    .max(2000, 'Ensure this field has no more than 2000 characters.')
    .refine((v) => {
      try {
        const url = new URL(v);
        return url.protocol === 'https:' || url.protocol === 'http:';
      } catch {
        return false;
      }
    }, 'Enter a valid URL.');

export const zSubscribeInput = z
  .object({
    kind: z.enum(['webpush', 'fcm', 'apns'], { error: "Must be one of 'webpush', 'fcm', 'apns'." }),
    endpoint: zEndpoint().optional(),
    keys: z.object({ p256dh: base64urlBytes(65, (b) => b[0] === 4), auth: base64urlBytes(16) }).optional(),
    // A browser's PushSubscription.toJSON() also has it; the push service's own hint, not used.
    expirationTime: z.number().nullable().optional(),
    token: z.string().min(1).max(4096).optional(),
    environment: z.enum(['production', 'sandbox'], { error: "Must be 'production' or 'sandbox'." }).optional(),
    locale: z.string().max(35).nullable().optional(),
  })
  .superRefine((v, issue) => {
    const required = (field: string) => issue.addIssue({ code: 'custom', path: [field], message: 'This field is required.' });
    if (v.kind === 'webpush') {
      if (!v.endpoint) required('endpoint');
      if (!v.keys) required('keys');
    } else if (!v.token) required('token');
    if (v.kind === 'apns' && v.token && !/^[0-9a-fA-F]{32,200}$/.test(v.token)) issue.addIssue({ code: 'custom', path: ['token'], message: 'An APNs device token is hexadecimal.' });
  });

export const subscribePushOp = defineOperation({
  name: 'push.subscribe',
  method: 'POST',
  path: '/api/push/subscriptions/',
  auth: 'user',
  summary: "Register a device for pushes: a browser's PushSubscription (webpush), an FCM token or an APNs token; the same one again answers 200 and moves to the caller",
  tags: ['push'],
  input: zSubscribeInput,
  rateLimits: perUser(60, 3600),
  responses: { 201: zPushSubscriptionBody, 200: zPushSubscriptionBody },
  handler: async (input, ctx) => {
    if (input.kind === 'webpush' && new URL(input.endpoint!).protocol === 'http:' && !platform.config.PUSH_ALLOW_PRIVATE_ENDPOINTS) {
      throw fieldError('endpoint', 'Only https endpoints are allowed.');
    }
    const { status, body } = await subscribe(ctx, { ...input, token: input.kind === 'apns' ? input.token?.toLowerCase() : input.token });
    return ok(body, status);
  },
});

export const listPushSubscriptionsOp = defineOperation({
  name: 'push.list',
  method: 'GET',
  path: '/api/push/subscriptions/',
  auth: 'user',
  summary: "The caller's devices, newest first (never their endpoints, keys or tokens)",
  tags: ['push'],
  input: z.object({ page: zPage(), page_size: zPageSize() }),
  responses: { 200: zPaginated(zPushSubscriptionBody) },
  handler: async (input, ctx) => ok(await listDevices(ctx, input)),
});

export const unsubscribePushOp = defineOperation({
  name: 'push.unsubscribe',
  method: 'DELETE',
  path: '/api/push/subscriptions/{subscription_id}/',
  auth: 'user',
  summary: 'Remove one of the caller\'s devices: it gets no more pushes',
  tags: ['push'],
  input: z.object({ subscription_id: zUuid() }),
  responses: { 204: zNoContent },
  errors: [404],
  handler: async (input, ctx) => {
    await unsubscribe(ctx, input.subscription_id);
    return noContent();
  },
});

export const vapidPublicKeyOp = defineOperation({
  name: 'push.vapid_public_key',
  method: 'GET',
  path: '/api/push/vapid-public-key/',
  auth: 'public',
  summary: "The VAPID public key (base64url) a browser passes to pushManager.subscribe as applicationServerKey",
  tags: ['push'],
  input: z.object({}),
  responses: { 200: z.object({ public_key: z.string() }).meta({ id: 'VapidPublicKey' }) },
  handler: async () => ok(vapidPublicKey()),
});

export const pushOperations = [subscribePushOp, listPushSubscriptionsOp, unsubscribePushOp, vapidPublicKeyOp];
