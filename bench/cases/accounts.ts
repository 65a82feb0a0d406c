import { verifyPassword } from '../../src/modules/accounts/passwords.js';
import { signAccessToken } from '../../src/modules/accounts/tokens.js';
import { loadAuthUsers, type Bench } from '../lib/harness.js';
import { measure } from '../lib/stats.js';
import { iterations, type BenchCase, type Measurement } from './case.js';

/**
 * Login and the own-profile read. Login is dominated by argon2id (64 MiB, 3 passes, on purpose):
 * timing argon2.verify alone shows how much of a login it is.
 */
const USERS = 20;
const PASSWORD = 'bench-login-password';

async function ensureUsers(bench: Bench) {
  const names = Array.from({ length: USERS }, (_, i) => `benchacct_${i + 1}`);
  const existing = new Set((await loadAuthUsers(bench.pool, 'username = ANY($1)', [names])).map((u) => u.username));
  // Through the register operation, as a client would create them (only the first run pays for it).
  for (const username of names.filter((n) => !existing.has(n))) {
    await bench.call('accounts.register', { email: `${username}@bench.invalid`, username, display_name: username, password: PASSWORD }, null);
  }
  return loadAuthUsers(bench.pool, 'username = ANY($1) ORDER BY username', [names]);
}

export const accountsCase: BenchCase = {
  name: 'accounts',
  async run(bench) {
    const users = await ensureUsers(bench);
    const user = (i: number) => users[i % users.length];
    const results: Measurement[] = [];

    const logins = iterations(bench, 100);
    results.push({
      name: 'accounts.login',
      samples: await measure((i) => bench.call('accounts.login', { username: user(i).username, password: PASSWORD }, null), { iterations: logins, warmup: 5 }),
    });
    const { rows } = await bench.pool.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [users[0].id]);
    results.push({
      name: 'argon2.verify alone',
      samples: await measure(() => verifyPassword(rows[0].password_hash, PASSWORD), { iterations: logins, warmup: 5 }),
    });

    const reads = iterations(bench, 1000);
    results.push({ name: 'users.profile', samples: await measure((i) => bench.call('users.profile', {}, user(i)), { iterations: reads }) });
    const tokens = users.map((u) => signAccessToken(u.id));
    results.push({
      name: 'users.profile over HTTP',
      samples: await measure((i) => bench.http('GET', '/api/users/profile/', { token: tokens[i % tokens.length] }), { iterations: reads }),
    });
    // /health is SELECT 1 behind Express: minus the baseline, it is the cost of the HTTP transport alone.
    results.push({ name: 'GET /health over HTTP', samples: await measure(() => bench.http('GET', '/health'), { iterations: reads }) });
    return results;
  },
};
