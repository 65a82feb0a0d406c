// @run-alone: kills processes (kill -9 of a real service, then its restart)
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { unique } from '../helpers/test-app.js';
import { aWebPushReceiver, subscriptionIdOf, type WebPushReceiver } from '../helpers/webpush-receiver.js';
import { killGroup, restJson, serviceReady, startServiceProcess, SERVICE_START_MS, type ServiceProcess } from '../helpers/service-process.js';

/**
 * DESIGN.md section 10: a notification committed but not yet pushed when its node is killed (`kill -9`) is pushed
 * after the restart, once. Real service processes (`npm start`'s command), a Web Push stand-in on loopback that
 * verifies the VAPID token and decrypts with `http_ece`.
 *
 * Holding the push back after its commit, for real: the first node runs with OUTBOX_MAX_IN_FLIGHT=1 and its only slot
 * is taken by a push to a device whose push service never answers (the sender waits up to 15 s). The message's push is
 * committed in the message's transaction and waits, unclaimed, for that slot; the node is killed then. The restarted
 * node (same DATA_DIR: the same VAPID keys) claims it at its start.
 */
const groups = new Set<number>();
const receivers: WebPushReceiver[] = [];
const dataDirs: string[] = [];

afterAll(async () => {
  for (const group of groups) killGroup(group, 'SIGKILL');
  await Promise.all(receivers.map((r) => r.close()));
  await Promise.all(dataDirs.map((dir) => fs.rm(dir, { recursive: true, force: true })));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function start(env: Record<string, string>): Promise<ServiceProcess> {
  const service = await startServiceProcess(env);
  groups.add(service.group);
  await serviceReady(service);
  return service;
}

async function register(service: ServiceProcess): Promise<{ id: string; token: string }> {
  const username = unique('crashpush');
  const res = await restJson(service, 'POST', '/api/auth/register/', {
    body: { email: `${username}@example.test`, username, display_name: 'Crash Push', password: 'correct-horse-battery' },
  });
  expect(res.status).toBe(201);
  return { id: res.body.user.id, token: res.body.access_token };
}

async function message(service: ServiceProcess, from: { token: string }, to: { id: string }, content: string) {
  const conversation = await restJson(service, 'POST', '/api/messages/conversations/', { token: from.token, body: { participant_ids: [to.id] } });
  expect([200, 201]).toContain(conversation.status);
  const sent = await restJson(service, 'POST', `/api/messages/conversations/${conversation.body.id}/messages/`, { token: from.token, body: { content } });
  expect(sent.status).toBe(201);
}

async function killedBeforePushPushesAfterRestart(database: Record<string, string>) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'hyperlocal-push-crash-'));
  dataDirs.push(dataDir);
  const env = { ...database, DATA_DIR: dataDir, PUSH_ALLOW_PRIVATE_ENDPOINTS: 'true' };
  const first = await start({ ...env, OUTBOX_MAX_IN_FLIGHT: '1' });
  const key = (await restJson(first, 'GET', '/api/push/vapid-public-key/')).body.public_key;
  const push = await aWebPushReceiver(key);
  receivers.push(push);

  const ana = await register(first);
  const held = await register(first);
  const bob = await register(first);
  const heldSub = push.subscribe();
  const bobSub = push.subscribe();
  push.answer = (p) => (p.subscriptionId === subscriptionIdOf(heldSub.endpoint) ? 'hang' : 201);
  expect((await restJson(first, 'POST', '/api/push/subscriptions/', { token: held.token, body: { kind: 'webpush', ...heldSub } })).status).toBe(201);
  expect((await restJson(first, 'POST', '/api/push/subscriptions/', { token: bob.token, body: { kind: 'webpush', ...bobSub } })).status).toBe(201);

  // The node's one outbox slot now waits on a push service that does not answer.
  await message(first, ana, held, 'hold on');
  await push.waitFor(1);
  await message(first, ana, bob, 'are you there?');
  await sleep(500);
  const toBob = (p: { subscriptionId: string }) => p.subscriptionId === subscriptionIdOf(bobSub.endpoint);
  expect(push.received.filter(toBob)).toHaveLength(0);

  killGroup(first.group, 'SIGKILL');
  await first.exited;
  expect(push.received.filter(toBob)).toHaveLength(0);

  const second = await start(env);
  const [got] = await push.waitFor(1, 30_000, toBob);
  // More than two polls (OUTBOX_POLL_MS, 1 s) for a second copy to show up, were there one.
  await sleep(2500);
  expect(push.received.filter(toBob)).toHaveLength(1);
  expect(got.vapid.ok).toBe(true);
  expect(got.payload).toMatchObject({ notification_type: 'new_message', title: 'New message', unread_count: 1 });
  const notes = await restJson(second, 'GET', '/api/notifications/', { token: bob.token });
  expect(got.payload.notification_id).toBe(notes.body.results[0].id);

  killGroup(second.group, 'SIGTERM');
  await second.exited;
}

(process.env.TEST_EMBEDDED ? test.skip : test)(
  'when a node on PostgreSQL is killed (kill -9) after a message commits and before its push is sent, then after the restart the device gets it once, decrypted and verified',
  () => killedBeforePushPushesAfterRestart({ DATABASE_URL: process.env.TEST_DATABASE_URL! }),
  SERVICE_START_MS * 3,
);

test(
  'when a node on the embedded database (DATABASE_URL unset) is killed (kill -9) after a message commits and before its push is sent, then after a restart on the same DATA_DIR the device gets it once',
  () => killedBeforePushPushesAfterRestart({}),
  SERVICE_START_MS * 3,
);
