import { io as ioClient, type Socket } from 'socket.io-client';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUserFrom, anIp, callerFrom } from '../helpers/caller.js';
import { authenticateAccessToken } from '../../src/modules/accounts/tokens.js';

/**
 * A client that hangs up while its handshake token is being checked never becomes a connected socket, and
 * Socket.IO tells nobody: the connection caps must not count it, or a few such hang-ups (on purpose or from
 * a flaky network) lock the user and the address out until the node restarts. The test holds the token check
 * to hang up at exactly that moment.
 */
let app: TestApp;
let hold: { read: () => void; release: Promise<void> } | null = null;

async function heldAuthenticate(token: string) {
  const result = await authenticateAccessToken(token);
  const held = hold;
  if (held) {
    hold = null;
    held.read();
    await held.release;
  }
  return result;
}

beforeAll(async () => {
  app = await startTestApp({ SOCKET_MAX_CONNECTIONS_PER_USER: '1', SOCKET_MAX_CONNECTIONS_PER_IP: '1' }, { realtime: { authenticate: heldAuthenticate } });
});
afterAll(async () => {
  await app.stop();
});

const open = (ip: string, token: string): Socket =>
  ioClient(app.url, { path: '/socket.io/', transports: ['websocket'], extraHeaders: { 'x-forwarded-for': ip }, auth: { token }, reconnection: false, forceNew: true });

const connected = (socket: Socket) =>
  new Promise<Error | null>((resolve) => {
    socket.once('connect', () => resolve(null));
    socket.once('connect_error', (err) => resolve(err));
  });

test('when a client hangs up during the token check, then its user and address keep their connection slot', async () => {
  const alice = await aUserFrom(callerFrom(app));
  const ip = anIp();
  for (let attempt = 0; attempt < 3; attempt++) {
    let read!: () => void;
    let release!: () => void;
    const readDone = new Promise<void>((resolve) => (read = resolve));
    hold = { read, release: new Promise<void>((resolve) => (release = resolve)) };
    const quitter = open(ip, alice.token);
    await readDone;
    quitter.close();
    // Let the server see the close before the handshake goes on.
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
  }

  const socket = open(ip, alice.token);
  try {
    expect(await connected(socket)).toBeNull();
  } finally {
    socket.close();
  }
});
