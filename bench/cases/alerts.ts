import type pg from 'pg';
import type { AuthUser } from '../../src/core/context.js';
import { loadAuthUsers, type Bench } from '../lib/harness.js';
import { measure } from '../lib/stats.js';
import { iterations, type BenchCase, type Measurement } from './case.js';
import { outboxWorker } from '../../src/platform/outbox.js';

/**
 * An alert in a place of 20,000 residents (issue 38, DESIGN.md section 13): `posts.create` with `post_type: 'alert'`
 * in-process (the post's own answer: its transaction writes one outbox row whatever the place's size), and the time
 * from the call until the last resident's `alert` notification is committed (the outbox row is deleted in the
 * transaction of the last batch; polled every 5 ms). The place and its residents are generated in SQL and kept
 * (`--regenerate`). Targets: the answer's p99 under 100 ms, the last notification within 20 s.
 *
 * An author may post 3 alerts a day: the posts rotate over AUTHORS residents, and each run first deletes the alerts
 * an earlier run left (with their notifications). After the timed answers the posts are deleted, which stops their
 * fan-outs after the batch they are writing; after a timed delivery its notifications are deleted.
 */
const RESIDENTS = 20_000;
const AUTHORS = 40;
const NAME = 'Bench Alerts';
const PREFIX = 'balert_';

interface Place {
  locationId: string;
  authors: AuthUser[];
}

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

async function ensurePlace(bench: Bench): Promise<Place> {
  const found = await bench.pool.query<{ id: string; n: number }>(
    `SELECT l.id, (SELECT count(*)::int FROM users u WHERE u.location_id = l.id) AS n FROM locations l WHERE l.name = $1 AND l.country = 'Benchland'`,
    [NAME],
  );
  let locationId = found.rows[0]?.id;
  if (!locationId || found.rows[0].n !== RESIDENTS || bench.args.regenerate) {
    console.log(`  [alerts] generating a place of ${RESIDENTS.toLocaleString('en')} residents`);
    locationId = await withoutTimeout(bench, async (client) => {
      await client.query(`DELETE FROM users WHERE username LIKE $1 || '%'`, [PREFIX]);
      await client.query(`DELETE FROM locations WHERE name = $1 AND country = 'Benchland'`, [NAME]);
      const { rows } = await client.query<{ id: string }>(`INSERT INTO locations (name, country, city) VALUES ($1, 'Benchland', $1) RETURNING id`, [NAME]);
      await client.query(
        `INSERT INTO users (email, username, display_name, password_hash, referral_code, location_id)
         SELECT $1 || i || '@bench.invalid', $1 || i, 'Bench resident ' || i, 'not-a-hash', upper($1) || i, $3
         FROM generate_series(0, $2 - 1) AS i`,
        [PREFIX, RESIDENTS, rows[0].id],
      );
      return rows[0].id;
    });
  }
  const authors = await loadAuthUsers(bench.pool, 'username = ANY($1) ORDER BY username', [Array.from({ length: AUTHORS }, (_, i) => `${PREFIX}${i}`)]);
  return { locationId, authors };
}

async function deleteAlerts(bench: Bench, place: Place, postIds?: string[]): Promise<void> {
  await withoutTimeout(bench, async (client) => {
    const { rows } = postIds
      ? { rows: postIds.map((id) => ({ id })) }
      : await client.query<{ id: string }>(`SELECT id FROM posts WHERE location_id = $1 AND post_type = 'alert'`, [place.locationId]);
    if (!rows.length) return;
    const ids = rows.map((r) => r.id);
    await client.query(`DELETE FROM posts WHERE id = ANY($1::uuid[])`, [ids]);
    await client.query(`DELETE FROM notifications n USING users u WHERE u.location_id = $1 AND n.user_id = u.id AND n.target_id = ANY($2::uuid[])`, [place.locationId, ids]);
    await client.query(`DELETE FROM outbox WHERE kind = 'posts.alert_fanout' AND payload->>'post_id' = ANY($1::text[])`, [ids]);
  });
}

let posted = 0;
async function alert(bench: Bench, place: Place): Promise<string> {
  const n = posted++;
  const result = await bench.call('posts.create', { post_type: 'alert', title: 'Water cut', content: `bench alert ${n}` }, place.authors[n % place.authors.length]);
  return (result.body as { id: string }).id;
}

async function fanoutDone(bench: Bench, postId: string): Promise<void> {
  for (;;) {
    const { rowCount } = await bench.pool.query(`SELECT 1 FROM outbox WHERE kind = 'posts.alert_fanout' AND payload->>'post_id' = $1`, [postId]);
    if (!rowCount) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export const alertsCase: BenchCase = {
  name: 'alerts',
  async run(bench) {
    const out: Measurement[] = [];
    const place = await ensurePlace(bench);
    await deleteAlerts(bench, place);
    const label = `${RESIDENTS.toLocaleString('en')} residents`;
    // The post's own cost: the outbox worker paused, so no fan-out runs beside it (its rows are deleted unrun).
    const alone: string[] = [];
    await outboxWorker?.stop();
    out.push({
      name: `posts.create alert in a place of ${label}: the answer, no fan-out running`,
      samples: await measure(
        async () => {
          alone.push(await alert(bench, place));
        },
        { iterations: Math.min(iterations(bench, 20), 20), warmup: 0 },
      ),
      note: 'the outbox worker paused: the post and its one outbox row',
    });
    await deleteAlerts(bench, place, alone);
    outboxWorker?.start();
    const answers: string[] = [];
    // At most 3 alerts a day per author: AUTHORS × 3 alerts in all per run.
    const answerRuns = Math.min(iterations(bench, 30), AUTHORS * 3 - 30);
    out.push({
      name: `posts.create alert in a place of ${label}: the answer`,
      samples: await measure(
        async () => {
          answers.push(await alert(bench, place));
        },
        { iterations: answerRuns, warmup: 0 },
      ),
      note: 'fan-outs running meanwhile; posts deleted after the run',
    });
    await deleteAlerts(bench, place, answers);
    const delivered: string[] = [];
    let counted = -1;
    out.push({
      name: `posts.create alert to ${label} until the last resident's notification exists`,
      samples: await measure(
        async () => {
          const id = await alert(bench, place);
          await fanoutDone(bench, id);
          delivered.push(id);
        },
        { iterations: Math.min(iterations(bench, 3), 6), warmup: 0 },
      ),
      note: `${(RESIDENTS - 1).toLocaleString('en')} notifications, batches of 1,000`,
    });
    if (delivered.length) {
      const { rows } = await bench.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM notifications WHERE target_id = $1 AND notification_type = 'alert'`, [delivered[0]]);
      counted = rows[0].n;
      if (counted !== RESIDENTS - 1) throw new Error(`the alert reached ${counted} residents, not ${RESIDENTS - 1}`);
    }
    await deleteAlerts(bench, place, delivered);
    return out;
  },
};
