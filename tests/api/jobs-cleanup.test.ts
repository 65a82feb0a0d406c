import { jest } from '@jest/globals';
import { startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';
import { sql } from '../helpers/sql.js';
import { platform } from '../../src/platform/index.js';
import { JOBS, runJob, type JobDefinition } from '../../src/jobs/index.js';
import { jobLockKey, withJobLock } from '../../src/jobs/lock.js';
import { expiredPasswordResetsJob, expiredRevokedRefreshTokensJob, oldAccessChangesJob } from '../../src/modules/accounts/cleanup.job.js';

/**
 * The cleanup jobs delete what can no longer mean anything (expired reset codes, revoked refresh tokens past
 * their expiry) and nothing else; a second run deletes nothing more; with REDIS_URL a run happens on one node
 * only, and a long run keeps extending its lock; every run is logged with its duration.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const requestReset = (email: string) => app.rest('POST', '/api/auth/password-reset/request/', { body: { email } });

describe('expired password-reset codes', () => {
  test('when the job runs, then expired codes are deleted, a pending code stays, and a second run deletes nothing', async () => {
    const [expired, pending] = [await aUser(app), await aUser(app)];
    expect((await requestReset(expired.email)).status).toBe(200);
    expect((await requestReset(pending.email)).status).toBe(200);
    await sql(`UPDATE password_resets SET expires_at = now() - interval '1 minute' WHERE user_id = $1`, [expired.id]);

    expect(await runJob(expiredPasswordResetsJob)).toBe(true);
    const left = await sql<{ user_id: string }>('SELECT user_id FROM password_resets WHERE user_id = ANY($1)', [[expired.id, pending.id]]);
    expect(left.map((r) => r.user_id)).toEqual([pending.id]);

    const again = await expiredPasswordResetsJob.run();
    expect(again).toEqual({ deleted: 0 });
    expect(await sql('SELECT 1 FROM password_resets WHERE user_id = $1', [pending.id])).toHaveLength(1);
  });
});

describe('access changes older than an hour', () => {
  test('when the job runs, then rows older than an hour are deleted and recent ones stay', async () => {
    const [old, recent] = [await aUser(app), await aUser(app)];
    for (const user of [old, recent]) expect((await app.rest('POST', '/api/auth/logout/', { body: { refresh: user.refresh } })).status).toBe(200);
    await sql(`UPDATE access_changes SET changed_at = now() - interval '61 minutes' WHERE user_id = $1`, [old.id]);

    expect(await runJob(oldAccessChangesJob)).toBe(true);
    const left = await sql<{ user_id: string }>('SELECT user_id FROM access_changes WHERE user_id = ANY($1)', [[old.id, recent.id]]);
    expect(left.map((r) => r.user_id)).toEqual([recent.id]);
    expect(await oldAccessChangesJob.run()).toEqual({ deleted: 0 });
  });
});

describe('revoked refresh tokens past their expiry', () => {
  test('when the job runs, then revoked and expired tokens are deleted; live and revoked-unexpired ones stay; the session still works', async () => {
    const alice = await aUser(app);
    // Rotate once: the first token is revoked (blacklisted), its successor is live.
    const rotated = await app.rest('POST', '/api/auth/refresh/', { body: { refresh: alice.refresh } });
    expect(rotated.status).toBe(200);
    const tokens = await sql<{ jti: string; revoked: boolean }>('SELECT jti, revoked_at IS NOT NULL AS revoked FROM refresh_tokens WHERE user_id = $1', [alice.id]);
    const revoked = tokens.find((t) => t.revoked)!;
    const live = tokens.find((t) => !t.revoked)!;
    // A second user's revoked token that has not expired yet must stay (reuse detection needs it).
    const bob = await aUser(app);
    await app.rest('POST', '/api/auth/refresh/', { body: { refresh: bob.refresh } });
    await sql(`UPDATE refresh_tokens SET expires_at = now() - interval '1 second' WHERE jti = ANY($1)`, [[revoked.jti]]);

    expect(await runJob(expiredRevokedRefreshTokensJob)).toBe(true);
    const left = await sql<{ jti: string }>('SELECT jti FROM refresh_tokens WHERE user_id = $1', [alice.id]);
    expect(left.map((r) => r.jti)).toEqual([live.jti]);
    expect(await sql('SELECT 1 FROM refresh_tokens WHERE user_id = $1 AND revoked_at IS NOT NULL', [bob.id])).toHaveLength(1);
    expect(await expiredRevokedRefreshTokensJob.run()).toEqual({ deleted: 0 });
    // Alice's session lives on: the access token from the rotation is accepted, and its refresh token rotates.
    expect((await app.rest('GET', '/api/users/profile/', { token: rotated.body.access_token })).status).toBe(200);
    expect((await app.rest('POST', '/api/auth/refresh/', { body: { refresh: rotated.body.refresh_token } })).status).toBe(200);
  });
});

describe('every job', () => {
  test('is listed, and each run is logged with its duration and what it did', async () => {
    expect(JOBS.map((j) => j.name)).toEqual(expect.arrayContaining(['accounts.expired_password_resets', 'accounts.expired_refresh_tokens', 'locations.boundaries']));
    const info = jest.spyOn(platform.log, 'info');
    try {
      await runJob(expiredPasswordResetsJob);
      const logged = info.mock.calls.find((call) => call[1] === 'job finished');
      expect(logged?.[0]).toEqual({ job: 'accounts.expired_password_resets', durationMs: expect.any(Number), result: { deleted: expect.any(Number) } });
    } finally {
      info.mockRestore();
    }
  });
});

const withRedis = process.env.REDIS_URL ? describe : describe.skip;
withRedis('the job lock (REDIS_URL)', () => {
  test('when another node holds a job’s lock, then this node skips the run', async () => {
    const job: JobDefinition = { name: unique('job'), schedule: '* * * * *', run: jest.fn(async () => undefined) };
    await platform.redis!.set(jobLockKey(job.name), 'another-node', 'EX', 60);
    try {
      expect(await runJob(job)).toBe(false);
      expect(job.run).not.toHaveBeenCalled();
    } finally {
      await platform.redis!.del(jobLockKey(job.name));
    }
  });

  test('when a job runs longer than the lock’s time-to-live, then the lock is extended until it ends, and released after', async () => {
    const name = unique('job');
    const seen: Array<string | null> = [];
    const ran = await withJobLock(
      name,
      async () => {
        for (let i = 0; i < 4; i++) {
          await new Promise((resolve) => setTimeout(resolve, 300));
          seen.push(await platform.redis!.get(jobLockKey(name)));
        }
      },
      { ttlSeconds: 0.5 },
    );
    expect(ran).toBe(true);
    // 1.2 s of work under a 0.5 s lock: the key was there (held by this run) at every check.
    expect(seen.every((holder) => typeof holder === 'string')).toBe(true);
    expect(new Set(seen).size).toBe(1);
    expect(await platform.redis!.get(jobLockKey(name))).toBeNull();
  });

  test('when another deployment or test run on the same Redis holds a lock of the same job under another JOB_LOCK_PREFIX, then this node still runs it', async () => {
    const job: JobDefinition = { name: unique('job'), schedule: '* * * * *', run: jest.fn(async () => undefined) };
    // The default prefix's key: what another deployment, or a test process without its own prefix, would hold.
    expect(platform.config.JOB_LOCK_PREFIX).not.toBe('lock:job');
    await platform.redis!.set(`lock:job:${job.name}`, 'another-deployment', 'EX', 60);
    try {
      expect(await runJob(job)).toBe(true);
      expect(job.run).toHaveBeenCalledTimes(1);
      expect(jobLockKey(job.name)).toBe(`${platform.config.JOB_LOCK_PREFIX}:${job.name}`);
    } finally {
      await platform.redis!.del(`lock:job:${job.name}`);
    }
  });

  test('when two nodes start the same job at once, then it runs once', async () => {
    let runs = 0;
    const job: JobDefinition = {
      name: unique('job'),
      schedule: '* * * * *',
      run: async () => {
        runs++;
        await new Promise((resolve) => setTimeout(resolve, 200));
      },
    };
    const results = await Promise.all([runJob(job), runJob(job)]);
    expect(results.sort()).toEqual([false, true]);
    expect(runs).toBe(1);
  });
});
