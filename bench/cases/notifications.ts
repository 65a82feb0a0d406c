import { notifications } from '../../src/models/index.js';
import { transaction, type Tx } from '../../src/platform/db.js';
import { PendingEvents } from '../../src/core/events.js';
import { notifyMany } from '../../src/modules/notifications/notifications.service.js';
import { findNotification } from '../../src/modules/notifications/notifications.queries.js';
import { serializeNotification } from '../../src/modules/notifications/notifications.serializer.js';
import { platform } from '../../src/platform/index.js';
import type { Bench } from '../lib/harness.js';
import { measure } from '../lib/stats.js';
import { iterations, type BenchCase } from './case.js';

/**
 * A fan-out notification to 200 users, inside one transaction (rolled back, so the table does not grow):
 * notifyMany (one INSERT ... SELECT over unnest, one read) against the per-recipient loop that notify()
 * used to be (one INSERT and one read back per recipient: 400 statements).
 */
const RECIPIENTS = 200;
const BASE_URL = 'http://bench.invalid';

async function ensureRecipients(bench: Bench): Promise<{ actorId: string; ids: string[] }> {
  const names = Array.from({ length: RECIPIENTS + 1 }, (_, i) => `benchfan_${i}`);
  await bench.pool.query(
    `INSERT INTO users (email, username, display_name, password_hash, referral_code)
     SELECT name || '@bench.invalid', name, name, 'not-a-hash', upper(name) FROM unnest($1::text[]) AS t(name)
     ON CONFLICT DO NOTHING`,
    [names],
  );
  const { rows } = await bench.pool.query<{ id: string; username: string }>('SELECT id, username FROM users WHERE username = ANY($1) ORDER BY username', [names]);
  const actor = rows.find((r) => r.username === 'benchfan_0')!;
  return { actorId: actor.id, ids: rows.filter((r) => r !== actor).map((r) => r.id) };
}

class RollBack extends Error {}
async function rolledBack(fn: (tx: Tx, events: PendingEvents) => Promise<unknown>): Promise<void> {
  await transaction(platform.db, async (tx, events) => {
    await fn(tx, events);
    throw new RollBack();
  }).catch((err) => {
    if (!(err instanceof RollBack)) throw err;
  });
}

export const notificationsCase: BenchCase = {
  name: 'notifications',
  async run(bench) {
    const { actorId, ids } = await ensureRecipients(bench);
    const n = { actorId, type: 'new_post' as const, targetType: 'Post', message: 'benchfan_0 posted in your community' };
    const runs = iterations(bench, 30);
    return [
      {
        name: `per recipient (old notify), ${RECIPIENTS} recipients`,
        samples: await measure(
          () =>
            rolledBack(async (tx, events) => {
              for (const recipientId of ids) {
                const [row] = await tx.insert(notifications).values({ userId: recipientId, actorId, notificationType: n.type, targetType: n.targetType, message: n.message }).returning({ id: notifications.id });
                events.add('notification.created', { userId: recipientId, notification: serializeNotification((await findNotification(row.id, tx))!, { baseUrl: BASE_URL }) });
              }
            }),
          { iterations: runs, warmup: 3 },
        ),
      },
      {
        name: `notifyMany, ${RECIPIENTS} recipients`,
        samples: await measure(() => rolledBack((tx, events) => notifyMany(tx, events, ids, n)), { iterations: runs, warmup: 3 }),
      },
    ];
  },
};
