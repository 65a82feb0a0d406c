// Worker thread of `npm run bench -- realtime`: the client sockets live here, on their own event loop, so that
// the server's thread measures the server. Plain JavaScript: a worker does not inherit tsx's loader.
import { parentPort } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { io } from 'socket.io-client';

const sockets = [];
const arrivals = new Map(); // marker -> arrival times (ms since the process's time origin)
let recording = false;
const now = () => performance.timeOrigin + performance.now();

function connectOne(url, subscribe) {
  return new Promise((resolve) => {
    const s = io(url, { path: '/socket.io/', transports: ['websocket'], reconnection: false, forceNew: true });
    s.once('connect_error', (err) => resolve({ ok: false, error: err.message }));
    s.once('connect', async () => {
      sockets.push(s);
      if (!subscribe) return resolve({ ok: true });
      s.on('post:created', (payload) => {
        if (!recording) return;
        const at = now();
        const key = payload && payload.content;
        let list = arrivals.get(key);
        if (!list) arrivals.set(key, (list = []));
        list.push(at);
      });
      const ack = await s.timeout(30000).emitWithAck('subscribe', subscribe).catch((e) => ({ status: 0, body: String(e) }));
      resolve({ ok: ack.status === 200, error: ack.status === 200 ? undefined : JSON.stringify(ack) });
    });
  });
}

parentPort.on('message', async (msg) => {
  if (msg.cmd === 'connect') {
    let failed = 0;
    let firstError;
    for (let i = 0; i < msg.count; i += 100) {
      const batch = [];
      for (let j = i; j < Math.min(msg.count, i + 100); j++) batch.push(connectOne(msg.url, j < msg.subscribed ? msg.subscribe : null));
      for (const r of await Promise.all(batch)) if (!r.ok) (failed++, (firstError ??= r.error));
    }
    parentPort.postMessage({ cmd: 'connected', failed, firstError });
  } else if (msg.cmd === 'record') {
    recording = msg.on;
    parentPort.postMessage({ cmd: 'recording' });
  } else if (msg.cmd === 'collect') {
    const out = Object.fromEntries(arrivals);
    arrivals.clear();
    parentPort.postMessage({ cmd: 'collected', arrivals: out });
  } else if (msg.cmd === 'close') {
    for (const s of sockets) s.close();
    sockets.length = 0;
    parentPort.postMessage({ cmd: 'closed' });
  }
});
