import fs from 'node:fs';
import http2 from 'node:http2';
import crypto from 'node:crypto';
import { createFcmSender } from '../src/modules/push/senders/fcm.js';
import { createApnsSender, apnsBody, apnsHeaders } from '../src/modules/push/senders/apns.js';
import { signJwt } from '../src/modules/push/senders/jws.js';
import type { PushDevice, PushMessage } from '../src/modules/push/push-sender.js';
import { startFcmStandin } from '../tests/helpers/push-fcm-standin.js';
import { startApnsStandin } from '../tests/helpers/push-apns-standin.js';

/**
 * `npx tsx bench/push-native.ts [pushes] [in-flight]`: the FCM and APNs senders against their loopback stand-ins
 * (which verify every request, as in the tests), N pushes with a bounded number in flight (the outbox's default, 32),
 * each beside a bare baseline in the same run: the same requests made by hand (APNs: one HTTP/2 session and one
 * provider token made once; FCM: fetch with a bearer fetched once). Prints pushes per second and per-push latency.
 */
const N = Number(process.argv[2] ?? 2000);
const IN_FLIGHT = Number(process.argv[3] ?? 32);

const message: PushMessage = {
  payload: {
    notification_id: crypto.randomUUID(),
    notification_type: 'post_like',
    title: 'New like',
    body: 'ana and 4 others liked your post',
    target_type: 'Post',
    target_id: crypto.randomUUID(),
    unread_count: 7,
    created_at: new Date().toISOString(),
  },
  collapseId: 'post_like-abcdefghijklmnopqrstuv',
  ttlSeconds: 86_400,
  urgency: 'normal',
};

async function run(label: string, send: (i: number) => Promise<unknown>) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < N) {
        const i = next++;
        const t = performance.now();
        await send(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))].toFixed(1);
  const rate = N / seconds;
  console.log(`| ${label} | ${N} | ${rate.toFixed(0)} | ${q(0.5)} | ${q(0.99)} |`);
  return rate;
}

const fcm = await startFcmStandin();
const apns = await startApnsStandin();
console.log(`| case | pushes | pushes/s | p50 ms | p99 ms |\n|---|---|---|---|---|`);
try {
  const apnsToken = (i: number) => i.toString(16).padStart(64, '0');
  const apnsDevice = (i: number): PushDevice => ({ id: String(i), kind: 'apns', endpoint: null, keys: null, token: apnsToken(i), environment: 'production', locale: null });
  const fcmDevice = (i: number): PushDevice => ({ id: String(i), kind: 'fcm', endpoint: null, keys: null, token: `fcm:${i}`, environment: null, locale: null });

  // APNs: bare baseline, then the sender.
  const session = http2.connect(apns.origin, { ca: fs.readFileSync(apns.caFile) });
  const bearer = signJwt('ES256', crypto.createPrivateKey(fs.readFileSync(apns.keyFile)), { kid: apns.keyId }, { iss: apns.teamId, iat: Math.floor(Date.now() / 1000) });
  const body = JSON.stringify(apnsBody(message));
  const bareApns = await run('APNs bare (http2 by hand)', (i) =>
    new Promise<void>((resolve, reject) => {
      const stream = session.request(apnsHeaders(apnsToken(i), message, apns.topic, bearer, Date.now()));
      stream.on('response', () => undefined);
      stream.resume();
      stream.on('end', () => resolve());
      stream.on('error', reject);
      stream.end(body);
    }),
  );
  session.close();
  const apnsSender = createApnsSender({ APNS_KEY_FILE: apns.keyFile, APNS_KEY_ID: apns.keyId, APNS_TEAM_ID: apns.teamId, APNS_TOPIC: apns.topic, APNS_ENDPOINT: apns.origin, APNS_CA_FILE: apns.caFile });
  const senderApns = await run('APNs sender', async (i) => {
    const result = await apnsSender.send(apnsDevice(i), message);
    if (result.outcome !== 'sent') throw new Error(JSON.stringify(result));
  });
  await apnsSender.close?.();

  // FCM: bare baseline (one token exchange made by the sender first, reused by hand), then the sender.
  const fcmSender = createFcmSender({ FCM_SERVICE_ACCOUNT: fcm.serviceAccountFile, FCM_ENDPOINT: fcm.endpoint });
  await fcmSender.send(fcmDevice(0), message);
  const fcmBearer = fcm.messages[0].bearer;
  const url = `${fcm.endpoint}/v1/projects/${fcm.projectId}/messages:send`;
  const bareFcm = await run('FCM bare (fetch by hand)', async (i) => {
    const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${fcmBearer}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: { token: `fcm:${i}`, data: { title: message.payload.title } } }) });
    await res.arrayBuffer();
  });
  const senderFcm = await run('FCM sender', async (i) => {
    const result = await fcmSender.send(fcmDevice(i), message);
    if (result.outcome !== 'sent') throw new Error(JSON.stringify(result));
  });
  console.log(`\nratio sender/bare: APNs ${(senderApns / bareApns).toFixed(2)}, FCM ${(senderFcm / bareFcm).toFixed(2)}; token exchanges: FCM ${fcm.exchanges.length}, APNs connections ${apns.connections()}`);
} finally {
  await fcm.close();
  await apns.close();
}
