// The bare baseline of `npm run bench -- realtime`: Socket.IO alone in a process of its own, as the service
// node is. `subscribe {id}` joins the location room; `POST /emit {content}` (the REST call, as posts.create is
// for the service) broadcasts the payload the parent set once, with that content, by one `io.to(room).emit`.
import http from 'node:http';
import { Server } from 'socket.io';
import { profileWindow } from './lib/window-profile.mjs';

let payload = {};
const httpServer = http.createServer((req, res) => {
  let text = '';
  req.on('data', (c) => (text += c));
  req.on('end', () => {
    const { room, content } = JSON.parse(text);
    io.to(room).emit('post:created', { ...payload, content });
    res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
  });
});
const io = new Server(httpServer, { path: '/socket.io/' });
io.on('connection', (socket) => {
  socket.on('subscribe', (input, ack) => {
    void socket.join(`sub:location:${input.id}`);
    ack({ status: 200, body: input });
  });
});

let cpuAtStart = process.cpuUsage();
process.on('message', async (msg) => {
  if (msg.cmd === 'profile') {
    await profileWindow(msg);
    process.send({ cmd: 'profiled' });
  } else if (msg.cmd === 'payload') {
    payload = msg.payload;
    process.send({ cmd: 'payload set' });
  } else if (msg.cmd === 'memory') {
    globalThis.gc();
    const m = process.memoryUsage();
    process.send({ cmd: 'memory', bytes: m.heapUsed + m.external, rss: m.rss });
  } else if (msg.cmd === 'cpu') {
    if (msg.reset) cpuAtStart = process.cpuUsage();
    const cpu = process.cpuUsage(cpuAtStart);
    process.send({ cmd: 'cpu', cpuMs: (cpu.user + cpu.system) / 1000 });
  }
});
httpServer.listen(0, '127.0.0.1', () => process.stdout.write(`listening http://127.0.0.1:${httpServer.address().port}\n`));
process.on('SIGTERM', () => {
  io.close();
  process.exit(0);
});
