import { describeWithRedis, startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUserFrom, anIp, callerFrom, type Caller } from '../helpers/caller.js';
import { platform } from '../../src/platform/index.js';

/**
 * Account abuse: a stranger spending an account's login budget must not lock its owner out of a client
 * the owner already uses; reset codes cannot be guessed from many addresses; a Redis outage does not
 * turn rate-limited operations into 500s; RATE_LIMITS=off lifts operation limits (load tests only).
 * Each group starts its own app (one at a time: the platform is a process-wide singleton).
 */
let app: TestApp;
const withApp = (env: Record<string, string> = {}) => {
  beforeAll(async () => {
    app = await startTestApp(env);
  });
  afterAll(async () => {
    await app.stop();
  });
};

const login = (caller: Caller, username: string, password: string) => caller.rest('POST', '/api/auth/login/', { body: { username, password } });

describe('login lock-out by strangers', () => {
  withApp();
  test('when a stranger exhausts the account budget from other addresses, then the owner still logs in from a client it used before, and new clients stay throttled', async () => {
    const ownerDevice = callerFrom(app);
    const user = await aUserFrom(ownerDevice);
    expect((await login(ownerDevice, user.username, user.password)).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await login(callerFrom(app), user.username, `guess-${i}-password`)).status).toBe(401);
    expect((await login(callerFrom(app), user.username, 'guess-11-password')).status).toBe(429);
    // The right password from an unknown address is still refused: the protection holds for strangers.
    expect((await login(callerFrom(app), user.username, user.password)).status).toBe(429);
    expect((await login(ownerDevice, user.username, user.password)).status).toBe(200);
  }, 120_000);

  test('when a known client itself guesses too often, then its own budget runs out', async () => {
    const ownerDevice = callerFrom(app);
    const user = await aUserFrom(ownerDevice);
    for (let i = 0; i < 10; i++) expect((await login(ownerDevice, user.username, `typo-${i}-password`)).status).toBe(401);
    expect((await login(ownerDevice, user.username, user.password)).status).toBe(429);
  }, 120_000);
});

describe('password reset confirmations per account', () => {
  withApp();
  test('when codes for one account are tried from many addresses, then the 11th confirmation within the hour is 429', async () => {
    const user = await aUserFrom(callerFrom(app));
    const confirm = (email: string) => callerFrom(app).rest('POST', '/api/auth/password-reset/confirm/', { body: { email, otp: '123456', new_password: 'guessed-new-password' } });
    for (let i = 0; i < 10; i++) expect((await confirm(i % 2 ? user.email : user.email.toUpperCase())).status).toBe(400);
    const blocked = await confirm(user.email);
    expect(blocked.status).toBe(429);
    expect(blocked.headers['retry-after']).toBeDefined();
  }, 120_000);
});

describeWithRedis('Redis unreachable', () => {
  withApp();

  test('when the Redis client of the rate limits drops its connection, then login and register still answer (not 500), and limits still count', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    // A blip as the limiter sees it: the client is not connected.
    const redis = platform.redis!;
    await new Promise((resolve) => {
      redis.once('end', resolve);
      redis.disconnect();
    });
    expect(redis.status).toBe('end');
    expect((await aUserFrom(callerFrom(app))).id).toBeDefined();
    expect((await login(caller, user.username, user.password)).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await login(callerFrom(app), user.username, `guess-${i}-password`)).status).toBe(401);
    expect((await login(callerFrom(app), user.username, 'guess-11-password')).status).toBe(429);
  }, 120_000);
});

describe('RATE_LIMITS=off', () => {
  withApp({ RATE_LIMITS: 'off' });

  test('when limits are off, then attempts beyond every budget are answered, not throttled', async () => {
    const ip = anIp();
    const user = await aUserFrom(callerFrom(app, ip));
    for (let i = 0; i < 12; i++) expect((await login(callerFrom(app, ip), user.username, `guess-${i}-password`)).status).toBe(401);
    expect((await login(callerFrom(app, ip), user.username, user.password)).status).toBe(200);
  }, 120_000);
});
