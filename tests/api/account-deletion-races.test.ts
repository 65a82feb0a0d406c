import fs from 'node:fs';
import path from 'node:path';
import type { PoolClient } from 'pg';
import { eventually, startTestApp, type TestApp } from '../helpers/test-app.js';
import { sql } from '../helpers/sql.js';
import { PNG_1X1 } from '../helpers/images.js';
import type { TestUser } from '../builders/users.js';
import { aComment, aPost, aResidentOf } from '../builders/posts.js';
import { platform } from '../../src/platform/index.js';

/**
 * An account deletion racing other people's writes (DESIGN.md section 9, Leaving; docs/modules/leaving.md,
 * "Concurrency"). Each race is made to happen in one order, not left to timing: a separate connection (the gate)
 * holds a lock that one side needs, the test waits until the other side is waiting too, then lets go. What is
 * checked is the end state: every comment that went has its tombstone, a reply is either deleted with its thread or
 * refused, every counter equals the rows it counts, and no uploaded file is left in storage for an account that is
 * gone. Both transports start the deletion (and the upload) in turn.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

type Transport = 'rest' | 'socket';
const TRANSPORTS: Transport[] = ['rest', 'socket'];

function deleteAccount(via: Transport, user: TestUser): Promise<{ status: number; body: unknown }> {
  return via === 'rest'
    ? app.rest('DELETE', '/api/users/profile/', { token: user.token, body: { password: user.password } })
    : app.emit('users.profile_delete', { password: user.password }, { token: user.token });
}

const replyTo = (user: TestUser, postId: string, parent: string) =>
  app.rest('POST', '/api/posts/comments/', { token: user.token, body: { post: postId, content: 'A reply in the nick of time', parent } });

/**
 * A gate: a connection of its own holding `LOCK TABLE <table> IN SHARE MODE`, which every insert or delete on that
 * table waits for. `waiters(n)` resolves once n other backends of this database wait on a lock.
 */
async function withGate<T>(table: string, fn: (gate: { waiters: (n: number) => Promise<void>; open: () => Promise<void> }) => Promise<T>): Promise<T> {
  const client: PoolClient = await platform.database.pool.connect();
  let open = false;
  try {
    await client.query('BEGIN');
    await client.query(`LOCK TABLE ${table} IN SHARE MODE`);
    const gatePid: number = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    return await fn({
      async waiters(n) {
        // Asked on a connection of its own: inside the gate's transaction pg_stat_activity is read once and kept.
        const activity = (columns: string, filter: string) =>
          platform.database.pool.query(`SELECT ${columns} FROM pg_stat_activity WHERE datname = current_database() AND pid <> $1 ${filter}`, [gatePid]);
        const waiting = async () => (await activity('count(*)::int AS n', `AND state = 'active' AND wait_event_type = 'Lock'`)).rows[0].n >= n;
        if (await eventually(waiting, 10_000)) return;
        const { rows } = await activity(`pid, state, wait_event_type, wait_event, left(query, 120) AS query`, '');
        throw new Error(`fewer than ${n} backends waiting on a lock: ${JSON.stringify(rows)}`);
      },
      async open() {
        open = true;
        await client.query('ROLLBACK');
      },
    });
  } finally {
    if (!open) await client.query('ROLLBACK').catch(() => undefined);
    client.release();
  }
}

/** The post's comments_count against its comment rows, and each parent's replies_count against its replies. */
async function countersOf(postId: string) {
  const [post] = await sql(`SELECT comments_count AS stored, (SELECT count(*)::int FROM comments WHERE post_id = $1) AS rows FROM posts WHERE id = $1`, [postId]);
  const parents = await sql(
    `SELECT c.id FROM comments c WHERE c.post_id = $1 AND c.replies_count <> (SELECT count(*) FROM comments r WHERE r.parent_id = c.id)`,
    [postId],
  );
  return { commentsCount: post.stored, commentRows: post.rows, wrongRepliesCounts: parents.length };
}
const tombstoned = async (ids: string[]) =>
  (await sql(`SELECT item_id FROM deletions WHERE type = 'comment' AND item_id = ANY($1::uuid[])`, [ids])).map((r) => r.item_id).sort();
const existing = async (ids: string[]) => (await sql(`SELECT id FROM comments WHERE id = ANY($1::uuid[])`, [ids])).map((r) => r.id);

// PGlite (TEST_EMBEDDED) has a single connection: a gate held there would hold everything.
const describeRaces = process.env.TEST_EMBEDDED ? describe.skip : describe;

describeRaces.each(TRANSPORTS)('a reply racing the deletion of its thread (deletion over %s)', (via) => {
  /** Bob's post; the leaver's comment on it; a bystander's comment that stays. */
  async function aThread() {
    const leaver = await aResidentOf(app);
    const [bob, carol, dave] = [await aResidentOf(app), await aResidentOf(app), await aResidentOf(app)];
    const post = await aPost(app, bob);
    const root = await aComment(app, leaver, post.id);
    const bystander = await aComment(app, bob, post.id);
    return { leaver, bob, carol, dave, post, root, bystander };
  }

  test("when a reply to the leaver's comment is being written as the deletion starts, then the reply lands first and goes with the thread: tombstones for both, counters exact, no deadlock", async () => {
    const { leaver, carol, post, root, bystander } = await aThread();
    // The reply holds the post and its parent and waits at its notification to the leaver (the gate), as a slow one would.
    const { reply, deleted } = await withGate('notifications', async (gate) => {
      const reply = replyTo(carol, post.id, root.id);
      await gate.waiters(1);
      const deleted = deleteAccount(via, leaver);
      await gate.waiters(2);
      await gate.open();
      return { reply: await reply, deleted: await deleted };
    });

    expect(reply.status).toBe(201);
    expect(deleted.status).toBe(204);
    expect(await existing([root.id, reply.body.id, bystander.id])).toEqual([bystander.id]);
    expect(await tombstoned([root.id, reply.body.id])).toEqual([root.id, reply.body.id].sort());
    expect(await countersOf(post.id)).toEqual({ commentsCount: 1, commentRows: 1, wrongRepliesCounts: 0 });
  });

  test('when a reply deeper in the thread commits while the deletion waits for it, then it is deleted with a tombstone, and comments_count is exact', async () => {
    const { leaver, carol, dave, post, root, bystander } = await aThread();
    const middle = await aComment(app, carol, post.id, { parent: root.id });
    // Dave answers Carol (nobody notifies the leaver): his reply holds the post and Carol's comment, then waits at the gate.
    const { reply, deleted } = await withGate('notifications', async (gate) => {
      const reply = replyTo(dave, post.id, middle.id);
      await gate.waiters(1);
      const deleted = deleteAccount(via, leaver);
      await gate.waiters(2);
      await gate.open();
      return { reply: await reply, deleted: await deleted };
    });

    expect(reply.status).toBe(201);
    expect(deleted.status).toBe(204);
    const thread = [root.id, middle.id, reply.body.id];
    expect(await existing([...thread, bystander.id])).toEqual([bystander.id]);
    expect(await tombstoned(thread)).toEqual([...thread].sort());
    expect(await countersOf(post.id)).toEqual({ commentsCount: 1, commentRows: 1, wrongRepliesCounts: 0 });
  });

  test('when a reply comes while the deletion holds the thread, then it waits and is refused (parent not found), and nothing is counted for it', async () => {
    const { leaver, carol, dave, post, root, bystander } = await aThread();
    const middle = await aComment(app, carol, post.id, { parent: root.id });
    // The deletion has deleted the thread and waits at the gate (its notifications step) holding the post.
    const { reply, deleted } = await withGate('notifications', async (gate) => {
      const deleted = deleteAccount(via, leaver);
      await gate.waiters(1);
      const reply = replyTo(dave, post.id, middle.id);
      await gate.waiters(2);
      await gate.open();
      return { reply: await reply, deleted: await deleted };
    });

    expect(deleted.status).toBe(204);
    expect(reply).toMatchObject({ status: 400, body: { parent: ['Comment not found.'] } });
    expect(await existing([root.id, middle.id, bystander.id])).toEqual([bystander.id]);
    expect(await tombstoned([root.id, middle.id])).toEqual([root.id, middle.id].sort());
    expect(await countersOf(post.id)).toEqual({ commentsCount: 1, commentRows: 1, wrongRepliesCounts: 0 });
  });
});

describeRaces.each(TRANSPORTS)('a profile picture uploaded while the account is being deleted (upload over %s)', (via) => {
  const picturesDir = () => path.join(app.dataDir, 'media', 'profile_pictures');
  const storedPictures = () => (fs.existsSync(picturesDir()) ? fs.readdirSync(picturesDir()).sort() : []);

  function upload(user: TestUser): Promise<{ status: number; body: unknown }> {
    if (via === 'rest') {
      return app.http().patch('/api/users/profile/').set('Authorization', `Bearer ${user.token}`).attach('profile_picture', PNG_1X1, 'me.png')
        .then((res) => ({ status: res.status, body: res.body }));
    }
    const file = { fieldname: 'profile_picture', originalname: 'me.png', mimetype: 'image/png', size: PNG_1X1.length, buffer: PNG_1X1 };
    // The deletion's commit closes the account's sockets, this one included: its answer may never come.
    return app.emit('users.profile_patch', { profile_picture: file }, { token: user.token }).catch((err: Error) => ({ status: 0, body: err.message }));
  }

  test('when the upload reaches the database after the deletion locked the account, then its files are removed and storage holds nothing of the account', async () => {
    const leaver = await aResidentOf(app);
    const before = storedPictures();
    // The deletion holds the user row and waits at the gate (its notifications step); the upload has written its
    // files and waits for the user row.
    const { uploaded, deleted } = await withGate('notifications', async (gate) => {
      const deleted = deleteAccount('rest', leaver);
      await gate.waiters(1);
      const uploaded = upload(leaver);
      await gate.waiters(2);
      expect(storedPictures().length).toBeGreaterThan(before.length);
      await gate.open();
      return { uploaded: await uploaded, deleted: await deleted };
    });

    expect(deleted.status).toBe(204);
    if (via === 'rest') expect(uploaded).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
    else expect([0, 404]).toContain(uploaded.status);
    expect(await eventually(async () => storedPictures().join() === before.join(), 5000)).toBe(true);
  });
});
