import { loadAuthUsers, type Bench } from '../lib/harness.js';
import { measure } from '../lib/stats.js';
import { iterations, type BenchCase, type Measurement } from './case.js';

/**
 * realtime.sync on synthetic data generated in SQL (kept in `bench_sync_dataset`; `--regenerate` rebuilds it):
 * 1,000 users with 200 notifications each over 60 days (200,000), 10,000 1:1 conversations (each user in 20)
 * of 20 messages each over 60 days (200,000), and 50,000 orders between them. Measured in-process: a sync after a
 * short gap (1 minute: nothing new), after two days away (a few items of each kind), and after 60 days (full
 * pages of 100, has_more). The plans of the three statements of a two-day sync are printed (EXPLAIN ANALYZE).
 */
const USERS = 1000;
const PARTNERS_EACH = 10;

async function generate(bench: Bench): Promise<void> {
  const q = (text: string, params: unknown[] = []) => bench.pool.query(text, params);
  await q('SET statement_timeout = 0');
  await q(`DELETE FROM users WHERE username LIKE 'benchsync\\_%'`);
  await q(
    `INSERT INTO users (email, username, display_name, password_hash, referral_code)
     SELECT 'benchsync_' || i || '@bench.invalid', 'benchsync_' || i, 'Bench sync ' || i, 'not-a-hash', 'BENCHSYNC' || i
     FROM generate_series(0, $1 - 1) AS i`,
    [USERS],
  );
  await q(`CREATE TEMP TABLE bench_sync_users AS SELECT id, substr(username, 11)::int AS n FROM users WHERE username LIKE 'benchsync\\_%'`);
  await q(
    `INSERT INTO notifications (user_id, notification_type, message, created_at, updated_at)
     SELECT u.id, 'general', 'bench ' || k, t, t
     FROM bench_sync_users u, generate_series(1, 200) AS k, LATERAL (SELECT now() - (k * 7200 + u.n) * interval '1 second' * 3.6 AS t) s`,
  );
  await q(
    `CREATE TEMP TABLE bench_sync_pairs AS
     SELECT gen_random_uuid() AS cid, a.id AS a, b.id AS b, a.n * $2 + k AS ord
     FROM bench_sync_users a, generate_series(1, $2) AS k JOIN bench_sync_users b ON true
     WHERE b.n = (a.n + k) % $1`,
    [USERS, PARTNERS_EACH],
  );
  await q(
    `INSERT INTO conversations (id, direct_key, created_by, created_at)
     SELECT cid, least(a::text, b::text) || ':' || greatest(a::text, b::text), a, now() - interval '61 days' FROM bench_sync_pairs`,
  );
  await q(`INSERT INTO conversation_participants (conversation_id, user_id) SELECT cid, a FROM bench_sync_pairs UNION ALL SELECT cid, b FROM bench_sync_pairs`);
  await q(
    `INSERT INTO messages (conversation_id, sender_id, text, created_at)
     SELECT cid, CASE WHEN m % 2 = 0 THEN a ELSE b END, 'bench message ' || m,
            now() - interval '60 days' + (m * 3 * 86400 - 3600 - ord % 3600) * interval '1 second'
     FROM bench_sync_pairs, generate_series(1, 20) AS m ORDER BY m, ord`,
  );
  await q(
    `UPDATE conversations c SET last_message_id = l.id, last_message_at = l.created_at, updated_at = l.created_at
     FROM (SELECT DISTINCT ON (conversation_id) conversation_id, id, created_at FROM messages
           WHERE conversation_id IN (SELECT cid FROM bench_sync_pairs) ORDER BY conversation_id, seq DESC) l
     WHERE c.id = l.conversation_id`,
  );
  await q(
    `UPDATE conversation_participants p SET activity_at = c.last_message_at
     FROM conversations c WHERE c.id = p.conversation_id AND c.id IN (SELECT cid FROM bench_sync_pairs)`,
  );
  await q(
    `INSERT INTO orders (user_id, seller_id, quantity, unit_price, total_price, status, created_at, updated_at)
     SELECT b.id, s.id, 1, 9.99, 9.99, 'processing', now() - i * interval '100 seconds', now() - i * interval '100 seconds'
     FROM generate_series(1, 50000) AS i
     JOIN bench_sync_users b ON b.n = i % $1
     JOIN bench_sync_users s ON s.n = (i * 7 + 1) % $1`,
    [USERS],
  );
  await q('DROP TABLE bench_sync_pairs, bench_sync_users');
  await q('ANALYZE notifications; ANALYZE conversations; ANALYZE conversation_participants; ANALYZE messages; ANALYZE orders');
  await q(`CREATE TABLE IF NOT EXISTS bench_sync_dataset (generated_at timestamptz NOT NULL)`);
  await q(`DELETE FROM bench_sync_dataset; INSERT INTO bench_sync_dataset VALUES (now())`);
}

async function ensureData(bench: Bench): Promise<void> {
  const { rows } = await bench.pool.query(`SELECT to_regclass('bench_sync_dataset') AS t`);
  const present = rows[0].t ? (await bench.pool.query('SELECT 1 FROM bench_sync_dataset')).rowCount : 0;
  if (present && !bench.args.regenerate) return;
  const started = Date.now();
  await generate(bench);
  console.log(`  sync data generated in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** The three statements of a sync (as src/modules/*queries issue them), for their plans. */
async function explain(bench: Bench, userId: string, since: string): Promise<void> {
  const pos = `('${since}'::timestamptz, 'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid)`;
  const statements: Array<[string, string]> = [
    [
      'notifications',
      `SELECT n.*, a.username FROM notifications n LEFT JOIN users a ON a.id = n.actor_id
       WHERE n.user_id = '${userId}' AND (n.updated_at, n.id) > ${pos} ORDER BY n.updated_at, n.id LIMIT 101`,
    ],
    [
      'messages',
      `SELECT m.id, u.username FROM conversation_participants me JOIN messages m ON m.conversation_id = me.conversation_id
       LEFT JOIN users u ON u.id = m.sender_id
       WHERE me.user_id = '${userId}' AND me.activity_at >= '${since}'::timestamptz AND (m.created_at, m.id) > ${pos}
       ORDER BY m.created_at, m.id LIMIT 101`,
    ],
    [
      'orders',
      `SELECT * FROM (
         (SELECT id, updated_at FROM orders WHERE user_id = '${userId}' AND (updated_at, id) > ${pos} ORDER BY updated_at, id LIMIT 101)
         UNION ALL
         (SELECT id, updated_at FROM orders WHERE seller_id = '${userId}' AND user_id <> '${userId}' AND (updated_at, id) > ${pos} ORDER BY updated_at, id LIMIT 101)
       ) mine ORDER BY updated_at, id LIMIT 101`,
    ],
  ];
  for (const [kind, text] of statements) {
    const { rows } = await bench.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${text}`);
    console.log(`\n  plan of the ${kind} statement (sync after two days):\n` + rows.map((r) => '    ' + r['QUERY PLAN']).join('\n'));
  }
}

export const syncCase: BenchCase = {
  name: 'sync',
  async run(bench) {
    await ensureData(bench);
    const users = await loadAuthUsers(bench.pool, `username LIKE 'benchsync\\_%' ORDER BY username`);
    const u = (i: number) => users[i % users.length];
    const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
    const runs = iterations(bench, 300);
    const results: Measurement[] = [];
    const sizes = async (since: string) => {
      const body = (await bench.call('realtime.sync', { since }, u(0))).body as Record<string, unknown[]>;
      return `${body.notifications.length}/${body.messages.length}/${body.orders.length} items`;
    };
    const gaps: Array<[string, number]> = [
      ['1 minute', 60_000],
      ['2 days', 2 * 86_400_000],
      ['60 days (full pages)', 60 * 86_400_000],
    ];
    for (const [label, ms] of gaps) {
      const since = ago(ms);
      results.push({
        name: `realtime.sync after ${label}`,
        samples: await measure((i) => bench.call('realtime.sync', { since }, u(i)), { iterations: runs, warmup: 20 }),
        note: await sizes(since),
      });
    }
    await explain(bench, u(0).id, ago(2 * 86_400_000));
    return results;
  },
};
