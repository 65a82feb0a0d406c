import { loadAuthUsers, type Bench } from '../lib/harness.js';
import { measure } from '../lib/stats.js';
import { iterations, type BenchCase, type Measurement } from './case.js';

/**
 * Direct messages and communities on synthetic data generated in SQL (kept in `bench_comms_dataset` for later
 * runs; `--regenerate` rebuilds it): 1,020 users, of whom 20 "busy" users have 500 1:1 conversations each
 * (10,000 conversations, 10 messages each, the other side's messages unread), one conversation of 20,000
 * messages, and 10,000 communities with 100,000 memberships. Measured: the conversation list page (the one
 * query with the participants, last message and unread count), a page of messages (first page and deep behind
 * a `before` cursor), a send (its notification rule, read mark and push included), the community list
 * (unfiltered and with a search) and a join followed by a leave.
 */
const BUSY = 20;
const PARTNERS = 1000;
const PER_BUSY = 500;
const COMMUNITIES = 10_000;

async function generate(bench: Bench): Promise<void> {
  const q = (text: string, params: unknown[] = []) => bench.pool.query(text, params);
  await q('SET statement_timeout = 0');
  await q(`DELETE FROM communities WHERE name LIKE 'benchcomm %'`);
  await q(`DELETE FROM conversations WHERE created_by IN (SELECT id FROM users WHERE username LIKE 'benchdm\\_%')`);
  await q(
    `INSERT INTO users (email, username, display_name, password_hash, referral_code)
     SELECT 'benchdm_' || i || '@bench.invalid', 'benchdm_' || i, 'Bench DM ' || i, 'not-a-hash', 'BENCHDM' || i
     FROM generate_series(0, $1 - 1) AS i ON CONFLICT DO NOTHING`,
    [BUSY + PARTNERS],
  );
  await q(`CREATE TEMP TABLE bench_dm_users AS SELECT id, substr(username, 9)::int AS n FROM users WHERE username LIKE 'benchdm\\_%'`);
  // 500 conversations per busy user, each with a distinct partner.
  await q(
    `CREATE TEMP TABLE bench_pairs AS
     SELECT gen_random_uuid() AS cid, b.id AS busy, p.id AS partner, b.n * $2 + k AS ord
     FROM generate_series(0, $2 - 1) AS k
     JOIN bench_dm_users b ON b.n < $1
     JOIN bench_dm_users p ON p.n = $1 + ((b.n * $2 + k) % $3)`,
    [BUSY, PER_BUSY, PARTNERS],
  );
  await q(
    `INSERT INTO conversations (id, direct_key, created_by, created_at)
     SELECT cid, least(busy::text, partner::text) || ':' || greatest(busy::text, partner::text), busy, now() - interval '40 days' FROM bench_pairs`,
  );
  await q(`INSERT INTO conversation_participants (conversation_id, user_id) SELECT cid, busy FROM bench_pairs UNION ALL SELECT cid, partner FROM bench_pairs`);
  await q(
    `INSERT INTO messages (conversation_id, sender_id, text, created_at)
     SELECT cid, CASE WHEN m % 2 = 0 THEN busy ELSE partner END, 'bench message ' || m,
            now() - interval '30 days' + (ord * interval '4 minutes') + m * interval '1 second'
     FROM bench_pairs, generate_series(1, 10) AS m ORDER BY ord, m`,
  );
  // The long conversation: the first busy user's first conversation gets 20,000 more messages.
  await q(
    `INSERT INTO messages (conversation_id, sender_id, text, created_at)
     SELECT cid, CASE WHEN m % 2 = 0 THEN busy ELSE partner END, 'long conversation ' || m, now() - interval '29 days' + m * interval '1 second'
     FROM bench_pairs, generate_series(1, 20000) AS m WHERE ord = 0 ORDER BY m`,
  );
  await q(
    `UPDATE conversations c SET last_message_id = l.id, last_message_at = l.created_at, updated_at = l.created_at
     FROM (SELECT DISTINCT ON (conversation_id) conversation_id, id, created_at FROM messages
           WHERE conversation_id IN (SELECT cid FROM bench_pairs) ORDER BY conversation_id, seq DESC) l
     WHERE c.id = l.conversation_id`,
  );
  await q(
    `UPDATE conversation_participants p SET activity_at = c.last_message_at
     FROM conversations c WHERE c.id = p.conversation_id AND c.id IN (SELECT cid FROM bench_pairs)`,
  );
  // Busy users have read their own messages only (the partners' are unread); partners have read everything.
  await q(
    `UPDATE conversation_participants p SET last_read_seq = r.seq
     FROM (SELECT conversation_id, max(seq) AS seq FROM messages WHERE conversation_id IN (SELECT cid FROM bench_pairs) GROUP BY 1) r
     WHERE p.conversation_id = r.conversation_id AND p.user_id IN (SELECT partner FROM bench_pairs)`,
  );
  await q(
    `INSERT INTO communities (name, description, category_id, owner_id, members_count, created_at)
     SELECT 'benchcomm ' || i || ' ' || (ARRAY['garden', 'dogs', 'running', 'books', 'jazz', 'chess', 'bakers', 'cyclists'])[1 + i % 8],
            'A bench community about ' || (ARRAY['tomatoes', 'walks', 'parks', 'novels', 'music', 'openings', 'bread', 'routes'])[1 + i % 8],
            (SELECT id FROM community_categories ORDER BY name OFFSET (i % 20) LIMIT 1),
            (SELECT id FROM bench_dm_users WHERE n = $1 + i % $2), 0, now() - i * interval '1 minute'
     FROM generate_series(0, $3 - 1) AS i`,
    [BUSY, PARTNERS, COMMUNITIES],
  );
  await q(
    `INSERT INTO community_members (community_id, user_id, role)
     SELECT c.id, u.id, CASE WHEN u.id = c.owner_id THEN 'owner' ELSE 'member' END
     FROM (SELECT id, owner_id, row_number() OVER (ORDER BY id) AS r FROM communities WHERE name LIKE 'benchcomm %') c
     JOIN bench_dm_users u ON u.n >= $1 AND (u.n + c.r) % 100 = 0
     ON CONFLICT DO NOTHING`,
    [BUSY],
  );
  await q(
    `UPDATE communities c SET members_count = m.n FROM (SELECT community_id, count(*) AS n FROM community_members GROUP BY 1) m
     WHERE c.id = m.community_id AND c.name LIKE 'benchcomm %'`,
  );
  await q('DROP TABLE bench_pairs, bench_dm_users');
  await q('ANALYZE conversations; ANALYZE conversation_participants; ANALYZE messages; ANALYZE communities; ANALYZE community_members');
  await q(`CREATE TABLE IF NOT EXISTS bench_comms_dataset (generated_at timestamptz NOT NULL)`);
  await q(`DELETE FROM bench_comms_dataset; INSERT INTO bench_comms_dataset VALUES (now())`);
}

async function ensureData(bench: Bench): Promise<void> {
  const { rows } = await bench.pool.query(`SELECT to_regclass('bench_comms_dataset') AS t`);
  const present = rows[0].t ? (await bench.pool.query('SELECT 1 FROM bench_comms_dataset')).rowCount : 0;
  if (present && !bench.args.regenerate) return;
  const started = Date.now();
  await generate(bench);
  console.log(`  messages-communities data generated in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

export const messagesCommunitiesCase: BenchCase = {
  name: 'messages-communities',
  async run(bench) {
    await ensureData(bench);
    const busy = await loadAuthUsers(bench.pool, `username = ANY($1) ORDER BY username`, [Array.from({ length: BUSY }, (_, i) => `benchdm_${i}`)]);
    const partners = await loadAuthUsers(bench.pool, `username LIKE 'benchdm\\_%' AND substr(username, 9)::int >= $1 ORDER BY username`, [BUSY]);
    const first = await bench.pool.query<{ id: string }>(
      `SELECT p.conversation_id AS id FROM conversation_participants p JOIN conversations c ON c.id = p.conversation_id
       WHERE p.user_id = $1 ORDER BY (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id) DESC LIMIT 1`,
      [busy[0].id],
    );
    const longId = first.rows[0].id;
    const deep = await bench.pool.query<{ id: string }>(`SELECT id FROM messages WHERE conversation_id = $1 ORDER BY seq LIMIT 1 OFFSET 2000`, [longId]);
    const conversationsOf = await bench.pool.query<{ user_id: string; conversation_id: string }>(
      `SELECT DISTINCT ON (user_id) user_id, conversation_id FROM conversation_participants WHERE user_id = ANY($1) ORDER BY user_id, conversation_id`,
      [busy.map((u) => u.id)],
    );
    const someConversation = new Map(conversationsOf.rows.map((r) => [r.user_id, r.conversation_id]));
    const community = await bench.pool.query<{ id: string }>(`SELECT id FROM communities WHERE name LIKE 'benchcomm %' ORDER BY members_count DESC LIMIT 1`);
    const b = (i: number) => busy[i % busy.length];
    const p = (i: number) => partners[i % partners.length];
    // Within the per-user read budget (600 a minute): the long conversation has one reader, so fewer runs there.
    const reads = iterations(bench, 500);
    const results: Measurement[] = [];
    results.push({
      name: 'messages.conversations (500 conversations, page of 20)',
      samples: await measure((i) => bench.call('messages.conversations', {}, b(i)), { iterations: reads, warmup: 20 }),
    });
    results.push({
      name: 'messages.list, first page (20,000 messages)',
      samples: await measure((i) => bench.call('messages.list', { conversation_id: longId }, busy[0]), { iterations: Math.min(reads, 250), warmup: 20 }),
    });
    results.push({
      name: 'messages.list, before a message 18,000 back',
      samples: await measure(() => bench.call('messages.list', { conversation_id: longId, before: deep.rows[0].id }, busy[0]), { iterations: Math.min(reads, 250), warmup: 20 }),
    });
    results.push({
      name: 'messages.send (notification rule, read mark, push)',
      samples: await measure((i) => bench.call('messages.send', { conversation_id: someConversation.get(b(i).id)!, content: `bench send ${i}` }, b(i)), {
        iterations: Math.min(reads, 1000),
        warmup: 20,
      }),
    });
    results.push({
      name: 'communities.list (10,000 communities)',
      samples: await measure((i) => bench.call('communities.list', {}, p(i)), { iterations: reads, warmup: 20 }),
    });
    results.push({
      name: 'communities.list search=garden',
      samples: await measure((i) => bench.call('communities.list', { search: 'garden' }, p(i)), { iterations: reads, warmup: 20 }),
    });
    results.push({
      name: 'communities.join then leave',
      samples: await measure(
        async (i) => {
          await bench.call('communities.join', { community_id: community.rows[0].id }, b(i));
          await bench.call('communities.leave', { community_id: community.rows[0].id }, b(i));
        },
        { iterations: Math.min(reads, 500), warmup: 10 },
      ),
    });
    return results;
  },
};
