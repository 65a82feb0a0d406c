import { io as ioClient, type Socket } from 'socket.io-client';
import type { AuthUser } from '../../src/core/context.js';
import { loadAuthUsers, type Bench } from '../lib/harness.js';
import { measure } from '../lib/stats.js';
import { iterations, type BenchCase, type Measurement } from './case.js';

/**
 * The neighbourhood display (`GET /display/{location_id}`): what a screen costs the service.
 * - the page itself over HTTP (the place with its counts, the QR code from its cache);
 * - the catch-up read a display makes on every (re)connection, `posts.by_location` with 24 posts (6 of them polls);
 * - a post reaching 200 displays: from `posts.create` to the last of 200 anonymous sockets subscribed to the
 *   place hearing `post:created` (single node, in-memory adapter).
 * 30 bench users (benchdisplay_*) live in one bench location; its posts are removed at the start of each run.
 */
const AUTHORS = 30;
const DISPLAYS = 200;
const POSTS = 24;

async function ensurePlace(bench: Bench): Promise<{ locationId: string; authors: AuthUser[] }> {
  const find = () => bench.pool.query<{ id: string }>(`SELECT id FROM locations WHERE name = 'Bench Display' AND city = 'Bench Display' LIMIT 1`);
  const locationId =
    (await find()).rows[0]?.id ??
    (await bench.pool.query<{ id: string }>(`INSERT INTO locations (name, country, city) VALUES ('Bench Display', 'Benchland', 'Bench Display') RETURNING id`)).rows[0].id;
  const names = Array.from({ length: AUTHORS }, (_, i) => `benchdisplay_${i}`);
  await bench.pool.query(
    `INSERT INTO users (email, username, display_name, password_hash, referral_code, location_id)
     SELECT name || '@bench.invalid', name, name, 'not-a-hash', upper(name), $2::uuid FROM unnest($1::text[]) AS t(name)
     ON CONFLICT DO NOTHING`,
    [names, locationId],
  );
  await bench.pool.query('UPDATE users SET location_id = $2 WHERE username = ANY($1)', [names, locationId]);
  await bench.pool.query('DELETE FROM posts WHERE location_id = $1', [locationId]);
  return { locationId, authors: await loadAuthUsers(bench.pool, 'username = ANY($1) ORDER BY username', [names]) };
}

async function connectDisplays(url: string, locationId: string): Promise<Socket[]> {
  return Promise.all(
    Array.from({ length: DISPLAYS }, async () => {
      const socket = ioClient(url, { path: '/socket.io/', transports: ['websocket'], forceNew: true, reconnection: false });
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', resolve);
        socket.once('connect_error', reject);
      });
      const ack = await socket.timeout(10_000).emitWithAck('subscribe', { channel: 'location', id: locationId });
      if (ack.status !== 200) throw new Error(`subscribe answered ${ack.status}`);
      return socket;
    }),
  );
}

export const displayCase: BenchCase = {
  name: 'display',
  async run(bench) {
    const { locationId, authors } = await ensurePlace(bench);
    const author = (i: number) => authors[i % AUTHORS];
    for (let i = 0; i < POSTS; i++) {
      const input =
        i % 4 === 0
          ? { post_type: 'poll', poll_question: `Bench question ${i}?`, poll_options: ['Yes', 'No', 'Maybe'] }
          : { post_type: 'text', content: `Bench display post ${i}: the bakery on the corner opens at seven` };
      await bench.call('posts.create', input, author(i));
    }
    const runs = iterations(bench, 300);
    const out: Measurement[] = [];

    const page = async () => {
      const res = await fetch(`${bench.server.url}/display/${locationId}`);
      if (res.status !== 200) throw new Error(`GET /display answered ${res.status}`);
      await res.text();
    };
    out.push({ name: 'GET /display/{id} over HTTP (the page)', samples: await measure(page, { iterations: runs, warmup: 20 }) });

    const catchUp = () => bench.call('posts.by_location', { location_id: locationId, page_size: POSTS }, null);
    out.push({ name: `posts.by_location, ${POSTS} posts (a display's catch-up)`, samples: await measure(catchUp, { iterations: runs, warmup: 20 }) });

    const displays = await connectDisplays(bench.server.url, locationId);
    try {
      const fanOutRuns = Math.min(runs, 60);
      const reachAll = async (i: number) => {
        const heard = Promise.all(displays.map((s) => new Promise((resolve) => s.once('post:created', resolve))));
        await bench.call('posts.create', { post_type: 'text', content: `Fan-out ${i}` }, author(i));
        await heard;
      };
      out.push({
        name: `posts.create until ${DISPLAYS} displays heard post:created`,
        samples: await measure(reachAll, { iterations: fanOutRuns, warmup: 5 }),
        note: `${DISPLAYS} anonymous sockets in sub:location:<id>, one node`,
      });
    } finally {
      for (const s of displays) s.close();
    }
    return out;
  },
};
