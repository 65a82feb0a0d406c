import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';
import { platform } from '../../src/platform/index.js';

/**
 * Found in review: a socket event whose caller cannot be checked (the database is gone) must be answered
 * like REST answers it, with a 500 ack, and must not take the whole process down.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

test('when the database stops answering, then an authenticated socket event and a subscribe are acked 500 like REST, and the process lives on', async () => {
  const alice = await aUser(app);
  const socket = await app.socket(alice.token);
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  process.on('unhandledRejection', onRejection);
  try {
    // The outside world failing: every query from now on is refused.
    await platform.database.pool.end();
    const rest = await app.rest('GET', '/api/users/profile/', { token: alice.token });
    expect(rest).toMatchObject({ status: 500, body: { detail: 'A server error occurred.' } });
    expect(await socket.timeout(5000).emitWithAck('users.profile', {})).toEqual({ status: 500, body: rest.body });
    expect(await socket.timeout(5000).emitWithAck('subscribe', { channel: 'location', id: '00000000-0000-4000-8000-000000000000' })).toEqual({ status: 500, body: rest.body });
    await new Promise((resolve) => setImmediate(resolve));
    expect(rejections).toEqual([]);
  } finally {
    process.off('unhandledRejection', onRejection);
  }
});
