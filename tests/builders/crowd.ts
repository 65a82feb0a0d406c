import crypto from 'node:crypto';
import { platform } from '../../src/platform/index.js';
import { issueTokens } from '../../src/modules/accounts/sessions.js';
import type { TestUser } from './users.js';

/**
 * Many signed-in users at once, for concurrency and fan-out tests: rows inserted in one statement and
 * tokens issued the way login issues them, without registering each (registration hashes a password with
 * argon2, about half a second each on a small machine). They cannot log in with a password.
 */
export async function aCrowd(n: number, opts: { locationId?: string } = {}): Promise<TestUser[]> {
  const names = Array.from({ length: n }, () => `crowd${crypto.randomUUID().replace(/-/g, '').slice(0, 12)}`);
  const { rows } = await platform.database.pool.query<{ id: string; username: string; email: string; display_name: string }>(
    `INSERT INTO users (email, username, display_name, password_hash, referral_code, location_id)
     SELECT n || '@example.test', n, 'Crowd ' || n, '!unusable', substr(md5(n), 1, 12), $2::uuid FROM unnest($1::text[]) AS n
     RETURNING id, username, email, display_name`,
    [names, opts.locationId ?? null],
  );
  // Tokens in batches: a crowd of thousands issued all at once queues past the pool's connect timeout on a busy machine.
  const crowd: TestUser[] = [];
  for (let i = 0; i < rows.length; i += TOKEN_BATCH) {
    crowd.push(
      ...(await Promise.all(
        rows.slice(i, i + TOKEN_BATCH).map(async (r) => {
          const tokens = await issueTokens(platform.db, r.id);
          return { id: r.id, username: r.username, email: r.email, password: '', token: tokens.access_token, refresh: tokens.refresh_token, body: { id: r.id, username: r.username, display_name: r.display_name } };
        }),
      )),
    );
  }
  return crowd;
}

const TOKEN_BATCH = 8;
