import { io as ioClient } from 'socket.io-client';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';
import { operations } from '../../src/registry.js';

/**
 * From a security review: one anonymous message with an unexpected shape ended the whole process. No client
 * input, on any event, with any number or type of arguments, may throw outside a handler.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const MISSING_SUBSCRIPTION_FIELDS = { status: 400, body: { channel: ['This field is required.'], id: ['This field is required.'] } };

/** Every event a client can name: each operation, the three protocol events, and names nobody serves. */
const EVENTS = [...operations.map((op) => op.name), 'subscribe', 'unsubscribe', 'auth:renew', 'no.such.event', 'error', '__proto__', 'constructor', 'toString'];
/** Payloads of every shape, followed by arguments nobody expects. */
const ARGUMENT_LISTS: unknown[][] = [[], [null], [0], [42], ['text'], [[1, 2]], [true], [{ channel: 'location', id: 'x' }, 'extra'], [{}, 'extra', 3], [null, null, null]];

test('when every event is sent with every shape of arguments, without and with an ack, then the service stays up and answers a new socket', async () => {
  const alice = await aUser(app);
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
  try {
    for (const token of [undefined, alice.token]) {
      const s = await app.socket(token);
      for (const event of EVENTS) {
        for (const args of ARGUMENT_LISTS) {
          s.emit(event, ...args); // no ack requested
          // With an ack the server must answer something well-formed, whatever it was sent.
          const ack = await s.timeout(5000).emitWithAck(event, ...args);
          expect(ack).toEqual({ status: expect.any(Number), body: expect.anything() });
          expect(ack.status).toBeLessThan(500);
        }
      }
      s.close();
    }
    const fresh = await app.socket();
    expect(await fresh.timeout(5000).emitWithAck('users.profile', {})).toEqual({ status: 401, body: { detail: 'Authentication credentials were not provided.' } });
    expect(uncaught).toEqual([]);
  } finally {
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
  }
});

describe('an event sent with only a callback', () => {
  test.each(['subscribe', 'unsubscribe'])('when %s gets only a callback, then it acks 400 with field errors', async (event) => {
    const s = await app.socket();
    expect(await s.timeout(5000).emitWithAck(event)).toEqual(MISSING_SUBSCRIPTION_FIELDS);
  });

  test('when auth:renew gets only a callback, then it acks 400 token required', async () => {
    const s = await app.socket();
    expect(await s.timeout(5000).emitWithAck('auth:renew')).toEqual({ status: 400, body: { token: ['This field is required.'] } });
  });

  test('when an operation gets only a callback, then it answers as with an empty input', async () => {
    const s = await app.socket();
    expect(await s.timeout(5000).emitWithAck('accounts.login')).toEqual(await s.timeout(5000).emitWithAck('accounts.login', {}));
  });
});

test.each(['no.such.event', 'error', '__proto__', 'hasOwnProperty'])('when the event name %s is served by nothing, then the ack is 404 Not found.', async (event) => {
  const s = await app.socket();
  expect(await s.timeout(5000).emitWithAck(event, {})).toEqual({ status: 404, body: { detail: 'Not found.' } });
});

describe('handshake tokens that are not strings', () => {
  const connectError = (auth: Record<string, unknown>) =>
    new Promise<string>((resolve, reject) => {
      const s = ioClient(app.url, { path: '/socket.io/', transports: ['websocket'], auth, reconnection: false, forceNew: true });
      s.once('connect', () => {
        s.close();
        reject(new Error(`connected with auth ${JSON.stringify(auth)}`));
      });
      s.once('connect_error', (err) => {
        s.close();
        resolve(err.message);
      });
    });

  test.each([[{ token: 42 }], [{ token: { sub: 'x' } }], [{ token: '' }], [{ token: null }], [{ token: ['a'] }], [{ token: true }]])('when the handshake token is %j, then the connection is refused with unauthorized', async (auth) => {
    expect(await connectError(auth)).toBe('unauthorized');
  });

  test('when no token is given at all, then the socket connects as anonymous', async () => {
    const s = await app.socket();
    expect(await s.timeout(5000).emitWithAck('users.profile', {})).toMatchObject({ status: 401 });
  });
});
