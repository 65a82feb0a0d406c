import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUserFrom, callerFrom } from '../helpers/caller.js';
import { authenticateAccessToken } from '../../src/modules/accounts/tokens.js';

/**
 * auth:renew checks the new token against the database. If the user's sessions change while that read runs
 * (the session of the new token is revoked), the renewal must not cache what it read before the change: it
 * reads again. The token check is held by the test to put the race in that order.
 */
let app: TestApp;
const reads: string[] = [];
let gate: { token: string; read: () => void; release: Promise<void> } | null = null;

async function heldAuthenticate(token: string) {
  reads.push(token);
  const result = await authenticateAccessToken(token);
  const held = gate;
  if (held && held.token === token) {
    gate = null; // one read only: a second read of the same token goes through
    held.read();
    await held.release;
  }
  return result;
}

beforeAll(async () => {
  app = await startTestApp({}, { realtime: { authenticate: heldAuthenticate } });
});
afterAll(async () => {
  await app.stop();
});

function holdNextRead(token: string) {
  let read!: () => void;
  let release!: () => void;
  const readDone = new Promise<void>((resolve) => (read = resolve));
  gate = { token, read, release: new Promise<void>((resolve) => (release = resolve)) };
  return { readDone, release };
}

describe('auth:renew racing a session end', () => {
  test('when the renewing token’s session is revoked while its check runs, then the renewal reads again and is refused; the socket keeps its current session', async () => {
    const caller = callerFrom(app);
    const alice = await aUserFrom(caller);
    const second = await caller.rest('POST', '/api/auth/login/', { body: { username: alice.username, password: alice.password } });
    const socket = await app.socket(alice.token);
    expect((await socket.timeout(5000).emitWithAck('users.profile', {})).status).toBe(200);

    const { readDone, release } = holdNextRead(second.body.access_token);
    const renewal = socket.timeout(10000).emitWithAck('auth:renew', { token: second.body.access_token });
    await readDone; // the check saw the session alive...
    expect((await caller.rest('POST', '/api/auth/logout/', { body: { refresh: second.body.refresh_token } })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200)); // ...and the node has applied the session end to this socket
    release();

    expect(await renewal).toEqual({ status: 401, body: expect.objectContaining({ detail: expect.any(String) }) });
    expect(reads.filter((t) => t === second.body.access_token)).toHaveLength(2);
    // Still signed in with the first session, which nothing ended.
    expect(await socket.timeout(5000).emitWithAck('users.profile', {})).toMatchObject({ status: 200, body: { id: alice.id } });
  });

  test('when nothing changes during the check, then the renewal reads once and is accepted', async () => {
    const caller = callerFrom(app);
    const alice = await aUserFrom(caller);
    const second = await caller.rest('POST', '/api/auth/login/', { body: { username: alice.username, password: alice.password } });
    const socket = await app.socket(alice.token);
    const before = reads.length;
    expect(await socket.timeout(5000).emitWithAck('auth:renew', { token: second.body.access_token })).toMatchObject({ status: 200 });
    expect(reads.length - before).toBe(1);
  });
});
