// Client process of `npm run bench -- realtime` (a child process of its own, so that neither its CPU nor its
// descriptors are the server's): it holds its share of the sockets, stamps each `post:created` on arrival, and
// answers the parent over IPC. Plain JavaScript, started without tsx.
//
// The sockets speak the Engine.IO 4 / Socket.IO 5 wire protocol directly over `ws` (websocket transport only):
// open `0{...}`, connect `40`, ping `2` -> pong `3`, an event `42[...]`, an event with ack `42<id>[...]` answered
// by `43<id>[...]`. A socket.io-client socket costs ~10 times the memory and parses every frame's JSON; here an
// arrival is one byte search for the marker in the raw frame, so the load generator stays a small part of the
// CPU it shares with the server (the bare baseline pays the same per arrival anyway).
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';

const sockets = [];
/** marker -> arrival times (ms since the epoch, performance.timeOrigin + performance.now(): comparable across processes). */
const arrivals = new Map();
let recording = false;
let cpuAtStart = process.cpuUsage();
let wallAtStart = performance.now();
const now = () => performance.timeOrigin + performance.now();

const EVENT = Buffer.from('42["post:created"');
const OPEN = Buffer.from('~rtb:');
const CLOSE = 0x7e; // '~'

function onFrame(socket, data) {
  // Engine.IO message packets start with '4'; Socket.IO events with '2' after it.
  const first = data[0];
  if (first === 0x32 /* '2' ping */) return socket.send('3');
  if (first !== 0x34 /* '4' */) return;
  if (data[1] === 0x32 /* event */) {
    if (!recording || data.compare(EVENT, 0, EVENT.length, 0, EVENT.length) !== 0) return;
    const at = now();
    const start = data.indexOf(OPEN, EVENT.length);
    if (start < 0) return;
    const end = data.indexOf(CLOSE, start + OPEN.length);
    const marker = data.toString('latin1', start + OPEN.length, end);
    let list = arrivals.get(marker);
    if (!list) arrivals.set(marker, (list = []));
    list.push(at);
  } else if (data[1] === 0x33 /* ack */) {
    const text = data.toString();
    const m = /^43(\d+)(.*)$/s.exec(text);
    const resolve = m && socket.acks.get(Number(m[1]));
    if (resolve) (socket.acks.delete(Number(m[1])), resolve(JSON.parse(m[2])[0]));
  } else if (data[1] === 0x30 /* connect */) {
    socket.onConnect?.(null);
  } else if (data[1] === 0x34 /* connect_error */) {
    socket.onConnect?.(data.toString().slice(2));
  }
}

function connectOne(url, subscribe) {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`, { perMessageDeflate: false });
    const fail = (error) => {
      ws.terminate();
      resolve({ ok: false, error });
    };
    const timer = setTimeout(() => fail('timed out'), 60_000);
    ws.acks = new Map();
    ws.nextAck = 1;
    ws.on('error', (err) => (clearTimeout(timer), fail(err.message)));
    ws.on('message', (data) => {
      if (data[0] === 0x30 /* open */) return ws.send('40');
      onFrame(ws, data);
    });
    ws.onConnect = async (error) => {
      ws.onConnect = null;
      if (error) return (clearTimeout(timer), fail(`connect_error ${error}`));
      sockets.push(ws);
      ws.on('error', () => undefined);
      if (!subscribe) return (clearTimeout(timer), resolve({ ok: true }));
      const id = ws.nextAck++;
      const ack = await new Promise((r) => {
        ws.acks.set(id, r);
        ws.send(`42${id}${JSON.stringify(['subscribe', subscribe])}`);
      });
      clearTimeout(timer);
      resolve({ ok: ack.status === 200, error: ack.status === 200 ? undefined : JSON.stringify(ack) });
    };
  });
}

process.on('message', async (msg) => {
  if (msg.cmd === 'connect') {
    let failed = 0;
    let firstError;
    for (let i = 0; i < msg.count; i += 100) {
      const batch = [];
      // `rooms` (the cluster bench's city): socket j subscribes to rooms[j]; otherwise the first `subscribed` to `subscribe`.
      for (let j = i; j < Math.min(msg.count, i + 100); j++) batch.push(connectOne(msg.url, msg.rooms ? msg.rooms[j] : j < msg.subscribed ? msg.subscribe : null));
      for (const r of await Promise.all(batch)) if (!r.ok) (failed++, (firstError ??= r.error));
    }
    process.send({ cmd: 'connected', failed, firstError });
  } else if (msg.cmd === 'record') {
    recording = msg.on;
    if (msg.on) (cpuAtStart = process.cpuUsage(), (wallAtStart = performance.now()));
    const cpu = process.cpuUsage(cpuAtStart);
    process.send({ cmd: 'recording', cpuMs: (cpu.user + cpu.system) / 1000, wallMs: performance.now() - wallAtStart });
  } else if (msg.cmd === 'count') {
    let n = 0;
    for (const list of arrivals.values()) n += list.length;
    process.send({ cmd: 'counted', arrivals: n });
  } else if (msg.cmd === 'collect') {
    const out = Object.fromEntries(arrivals);
    arrivals.clear();
    process.send({ cmd: 'collected', arrivals: out });
  } else if (msg.cmd === 'close') {
    for (const s of sockets) s.terminate();
    sockets.length = 0;
    process.send({ cmd: 'closed' });
  }
});
process.send({ cmd: 'ready' });
