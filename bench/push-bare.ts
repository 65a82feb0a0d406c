import fs from 'node:fs/promises';
import http from 'node:http';
import webpush from 'web-push';

/**
 * The bare baseline of `npm run bench -- push`: the same pushes sent with `web-push` alone, no service, no database.
 * Reads a JSON file `{vapid, concurrency, pushes: [{endpoint, keys, payload, topic}]}`; each push is encrypted
 * (aes128gcm) and signed (VAPID) by web-push's generateRequestDetails and POSTed over a keep-alive agent of as many
 * sockets as the service's (the stand-in is plain http on loopback, which web-push's own sendNotification, https only,
 * cannot reach; the service sends the same way). Prints `{ms, sent, failed}` as JSON.
 */
const file = process.argv[2]!;
const job = JSON.parse(await fs.readFile(file, 'utf8')) as {
  vapid: { subject: string; publicKey: string; privateKey: string };
  concurrency: number;
  pushes: Array<{ endpoint: string; keys: { p256dh: string; auth: string }; payload: unknown; topic: string }>;
};
const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
// `--cached-vapid`: one VAPID token per origin for the whole run, as the service keeps one (web-push alone signs one per push).
const cachedVapid = process.argv.includes('--cached-vapid');
const tokens = new Map<string, string>();
let next = 0;
let sent = 0;
let failed = 0;
const started = performance.now();
async function worker(): Promise<void> {
  while (next < job.pushes.length) {
    const push = job.pushes[next++]!;
    const details = webpush.generateRequestDetails({ endpoint: push.endpoint, keys: push.keys }, JSON.stringify(push.payload), {
      ...(cachedVapid ? {} : { vapidDetails: job.vapid }),
      TTL: 86_400,
      urgency: 'normal',
      topic: push.topic,
      contentEncoding: 'aes128gcm',
    });
    if (cachedVapid) {
      const origin = new URL(push.endpoint).origin;
      if (!tokens.has(origin)) tokens.set(origin, (webpush.getVapidHeaders(origin, job.vapid.subject, job.vapid.publicKey, job.vapid.privateKey, 'aes128gcm') as { Authorization: string }).Authorization);
      (details.headers as Record<string, string>).Authorization = tokens.get(origin)!;
    }
    const status = await new Promise<number>((resolve) => {
      const req = http.request(push.endpoint, { method: 'POST', headers: details.headers as http.OutgoingHttpHeaders, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', () => resolve(0));
      req.end(details.body);
    });
    if (status >= 200 && status < 300) sent++;
    else failed++;
  }
}
await Promise.all(Array.from({ length: job.concurrency }, worker));
console.log(JSON.stringify({ ms: performance.now() - started, sent, failed }));
agent.destroy();
