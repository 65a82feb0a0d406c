import type pg from 'pg';
import type { AuthUser } from '../../src/core/context.js';
import { loadAuthUsers, type Bench } from '../lib/harness.js';
import { measure } from '../lib/stats.js';
import { iterations, type BenchCase, type Measurement } from './case.js';

/**
 * A post to a community of 100,000 members and to one of 100 (issue 22): `posts.create` in-process (the post's
 * own answer: its transaction writes one outbox row whatever the size), and the time from the call until the last
 * member's `new_post` notification is committed (the fan-out's outbox row is deleted in the transaction of its last
 * batch; polled every 5 ms). The communities and their members are generated in SQL and kept (`--regenerate`).
 *
 * What the run leaves behind is removed as it goes, so the notifications table does not grow by the audience on
 * every post: after a timed answer the post is deleted (its fan-out stops after the batch it is writing, if any)
 * with the notifications it caused; after a timed delivery its notifications are deleted.
 */
const SIZES = [100_000, 100];
/** posts.create allows 30 a minute per user: the posts rotate over this many authors (members themselves). */
const AUTHORS = 10;

interface Audience {
  size: number;
  communityId: string;
  authors: AuthUser[];
}

const prefix = (size: number) => `bfo${size}_`;

async function withoutTimeout<T>(bench: Bench, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await bench.pool.connect();
  try {
    await client.query('SET statement_timeout = 0');
    return await fn(client);
  } finally {
    await client.query('RESET statement_timeout').catch(() => undefined);
    client.release();
  }
}

async function ensureAudience(bench: Bench, size: number): Promise<Audience> {
  const name = `benchfanout ${size}`;
  const users = prefix(size);
  const found = await bench.pool.query<{ id: string; n: number }>(
    `SELECT c.id, (SELECT count(*)::int FROM community_members m WHERE m.community_id = c.id) AS n FROM communities c WHERE c.name = $1`,
    [name],
  );
  let communityId = found.rows[0]?.id;
  if (!communityId || found.rows[0].n !== size || bench.args.regenerate) {
    console.log(`  [community-fanout] generating a community of ${size.toLocaleString('en')} members`);
    communityId = await withoutTimeout(bench, async (client) => {
      await client.query('DELETE FROM communities WHERE name = $1', [name]);
      await client.query(
        `INSERT INTO users (email, username, display_name, password_hash, referral_code)
         SELECT $1 || i || '@bench.invalid', $1 || i, 'Bench member ' || i, 'not-a-hash', upper($1) || i
         FROM generate_series(0, $2 - 1) AS i ON CONFLICT DO NOTHING`,
        [users, size],
      );
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO communities (name, category_id, owner_id, members_count)
         SELECT $1, (SELECT id FROM community_categories ORDER BY position, id LIMIT 1), (SELECT id FROM users WHERE username = $2 || '0'), $3
         RETURNING id`,
        [name, users, size],
      );
      await client.query(
        `INSERT INTO community_members (community_id, user_id, role)
         SELECT $1, id, CASE WHEN username = $2 || '0' THEN 'owner' ELSE 'member' END FROM users
         WHERE username LIKE $2 || '%' AND substr(username, length($2) + 1) ~ '^[0-9]+$' AND substr(username, length($2) + 1)::int < $3`,
        [rows[0].id, users, size],
      );
      return rows[0].id;
    });
  }
  const authorNames = Array.from({ length: AUTHORS }, (_, i) => `${users}${i}`);
  const authors = await loadAuthUsers(bench.pool, 'username = ANY($1) ORDER BY username', [authorNames]);
  return { size, communityId, authors };
}

async function post(bench: Bench, audience: Audience, i: number): Promise<string> {
  const result = await bench.call('posts.create', { post_type: 'text', content: `bench fan-out ${i}`, community_id: audience.communityId }, audience.authors[i % audience.authors.length]);
  return (result.body as { id: string }).id;
}

/** The notifications a post caused, found through its community's members (notifications has no index on target_id). */
async function deleteNotificationsOf(bench: Bench, audience: Audience, postId: string): Promise<void> {
  await withoutTimeout(bench, (client) =>
    client.query(`DELETE FROM notifications n USING community_members m WHERE m.community_id = $1 AND n.user_id = m.user_id AND n.target_id = $2`, [audience.communityId, postId]),
  );
}

async function fanoutDone(bench: Bench, postId: string): Promise<void> {
  for (;;) {
    const { rowCount } = await bench.pool.query('SELECT 1 FROM community_post_fanouts WHERE post_id = $1', [postId]);
    if (!rowCount) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export const communityFanoutCase: BenchCase = {
  name: 'community-fanout',
  async run(bench) {
    const out: Measurement[] = [];
    for (const size of SIZES) {
      const audience = await ensureAudience(bench, size);
      const label = `${size.toLocaleString('en')} members`;
      const answers: string[] = [];
      out.push({
        name: `posts.create to a community of ${label}: the answer`,
        samples: await measure(
          async (i) => {
            answers.push(await post(bench, audience, i));
          },
          { iterations: iterations(bench, 30), warmup: 0 },
        ),
        note: 'fan-outs running meanwhile; posts deleted after the run',
      });
      // Outside the timed region: the posts measured above and whatever their fan-outs wrote before they stopped.
      for (const id of answers) {
        await bench.pool.query('DELETE FROM posts WHERE id = $1', [id]);
        await deleteNotificationsOf(bench, audience, id);
      }
      const delivered: string[] = [];
      out.push({
        name: `posts.create to ${label} until the last member's notification exists`,
        samples: await measure(
          async (i) => {
            const id = await post(bench, audience, i);
            await fanoutDone(bench, id);
            delivered.push(id);
          },
          { iterations: iterations(bench, size >= 10_000 ? 3 : 30), warmup: 0 },
        ),
        note: `${(size - 1).toLocaleString('en')} notifications, batches of 2,000`,
      });
      for (const id of delivered) {
        await deleteNotificationsOf(bench, audience, id);
        await bench.pool.query('DELETE FROM posts WHERE id = $1', [id]);
      }
    }
    return out;
  },
};
