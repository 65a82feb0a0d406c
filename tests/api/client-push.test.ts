import { createClient, pushSubscriptionInput, subscribeBrowserPush } from '@hyperlocal/client';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aWebPushReceiver, subscriptionIdOf, type WebPushReceiver } from '../helpers/webpush-receiver.js';
import { aResident } from '../builders/locations.js';
import { aConversation, aMessage } from '../builders/messages.js';

/**
 * The client's Web Push helper (docs/push.md): a browser's PushSubscription, made with the service's VAPID key, becomes
 * the `push.subscribe` call; a push to the device then arrives, decrypted as the browser's service worker gets it.
 * The browser's push manager is played by the stand-in's subscriptions (a P-256 key and an auth secret each).
 */
let app: TestApp;
let push: WebPushReceiver;

beforeAll(async () => {
  app = await startTestApp({ PUSH_ALLOW_PRIVATE_ENDPOINTS: 'true' });
  push = await aWebPushReceiver((await app.rest('GET', '/api/push/vapid-public-key/')).body.public_key);
});
afterAll(async () => {
  await push.close();
  await app.stop();
});

test('subscribeBrowserPush subscribes with the VAPID key, registers the device (the same one again at the next start), and a message reaches it', async () => {
  const bob = await aResident(app);
  const ana = await aResident(app);
  const client = createClient({ baseUrl: app.url, transports: ['websocket'] });
  try {
    await client.login({ username: bob.username, password: bob.password });
    const sub = push.subscribe();
    let current: { toJSON(): typeof sub } | null = null;
    const keysAsked: string[] = [];
    const registration = {
      pushManager: {
        getSubscription: async () => current,
        subscribe: async (options: { userVisibleOnly: boolean; applicationServerKey: string | ArrayBuffer | ArrayBufferView }) => {
          expect(options.userVisibleOnly).toBe(true);
          keysAsked.push(Buffer.from(options.applicationServerKey as Uint8Array).toString('base64url'));
          current = { toJSON: () => sub };
          return current;
        },
      },
    };
    const device = await subscribeBrowserPush(client, registration, { locale: 'en-GB' });
    expect(device).toEqual({ id: expect.any(String), kind: 'webpush', created_at: expect.any(String), last_success_at: null });
    expect(keysAsked).toEqual([push.applicationServerKey]);
    // The next start: the existing subscription, the same device.
    expect(await subscribeBrowserPush(client, registration)).toEqual(device);
    expect(keysAsked).toHaveLength(1);

    await aMessage(app, ana, (await aConversation(app, ana, bob)).id, 'Parcel for you');
    const [got] = await push.waitFor(1, 10_000, (p) => p.subscriptionId === subscriptionIdOf(sub.endpoint));
    expect(got.vapid.ok).toBe(true);
    expect(got.payload).toMatchObject({ notification_type: 'new_message', title: 'New message', body: `You have a new message from ${ana.username}` });
  } finally {
    client.close();
  }
});

test('pushSubscriptionInput takes a PushSubscription or its toJSON(), and refuses one without keys', () => {
  const json = { endpoint: 'https://push.example/abc', expirationTime: null, keys: { p256dh: 'BPk', auth: 'xyz' } };
  expect(pushSubscriptionInput(json)).toEqual({ kind: 'webpush', endpoint: json.endpoint, keys: json.keys });
  expect(pushSubscriptionInput({ toJSON: () => json }, 'pt-PT')).toEqual({ kind: 'webpush', endpoint: json.endpoint, keys: json.keys, locale: 'pt-PT' });
  expect(() => pushSubscriptionInput({ endpoint: 'https://push.example/abc' })).toThrow(TypeError);
});
