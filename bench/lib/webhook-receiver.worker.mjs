// The webhooks bench's receiver (bench/webhooks.ts), in a thread of its own: verifying each request with
// standardwebhooks and parsing it is work the bench's load generator must not wait behind, or the orders' answer
// times of the rounds with a webhook would count the receiver's work too (a receiver stands in for another machine).
// Messages in: {id, op: 'secret' | 'status', value} and {id, op: 'arrivals', from}; every one is answered {id, ...}.
import http from 'node:http';
import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { Webhook } from 'standardwebhooks';

// The lowest priority, for this thread alone (on Linux a nice value belongs to a thread, and pid 0 is the caller):
// the receiver stands in for another machine, so it takes only CPU time nothing else on this one wants, instead of
// competing with the service under test for the machine's few cores. Its answers are no later for it as long as the
// machine has idle time (the orders at 50 a second use well under one core). `niced` reports whether it took.
let niced = false;
try {
  os.setPriority(19);
  niced = os.getPriority() === 19;
} catch {
  niced = false;
}

const arrivals = [];
const state = { verifier: null, status: 200 };

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    // On the epoch's scale, so the bench's thread can compare it with its own clock (performance.timeOrigin differs).
    const at = performance.timeOrigin + performance.now();
    const raw = Buffer.concat(chunks).toString('utf8');
    const headers = { 'webhook-id': String(req.headers['webhook-id']), 'webhook-timestamp': String(req.headers['webhook-timestamp']), 'webhook-signature': String(req.headers['webhook-signature']) };
    let valid = true;
    try {
      state.verifier.verify(raw, headers);
    } catch {
      valid = false;
    }
    const status = state.status;
    arrivals.push({ id: headers['webhook-id'], orderId: JSON.parse(raw).data?.id, at, status, valid });
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(status === 200 ? 'ok' : 'down');
  });
});

server.listen(0, '127.0.0.1', () => parentPort.postMessage({ id: 0, port: server.address().port, niced }));

parentPort.on('message', (m) => {
  if (m.op === 'secret') state.verifier = new Webhook(m.value);
  else if (m.op === 'status') state.status = m.value;
  else if (m.op === 'arrivals') return parentPort.postMessage({ id: m.id, arrivals: arrivals.slice(m.from) });
  else if (m.op === 'close') return server.close(() => parentPort.postMessage({ id: m.id }));
  parentPort.postMessage({ id: m.id });
});
