import fc from 'fast-check';
import { startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { sql } from '../helpers/sql.js';
import { aComment, aPost } from '../builders/posts.js';
import { aCity, aResidentAt } from '../builders/feeds.js';
import type { TestUser } from '../builders/users.js';

/**
 * The one post rule, as a property (DESIGN.md section 11): whatever blocks (either way), mutes, moderation, deletions and
 * discoverable settings stand between a caller and a neighbourhood's posts and comments, search finds exactly what the
 * caller may read by id and lists (no muted author, no undiscoverable author but the caller), and nothing else; and
 * every item found reads by id (200) for that caller (a post by `posts.get`, a comment by its history read, which answers
 * whoever may read the comment and 404 to anyone else). Each run arranges a fresh world: posts, comments and replies
 * through the API, the relations through their tables. Runs alternate REST and the socket.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'off' });
});
afterAll(async () => {
  await app.stop();
});

const AUTHORS = 4;
const letters = (s: string) => s.replace(/[0-9]/g, (d) => 'abcdefghij'[Number(d)]);

const aWorld = fc.record({
  anonymous: fc.boolean(),
  // For each author: the viewer blocks them, they block the viewer, the viewer mutes them, they are not discoverable.
  relations: fc.array(fc.record({ blocks: fc.boolean(), blockedBy: fc.boolean(), muted: fc.boolean(), shy: fc.boolean() }), { minLength: AUTHORS, maxLength: AUTHORS }),
  // Posts: [author index (AUTHORS = the viewer), hidden, deleted]; comments on them: [post index, author index, hidden,
  // the earlier comment it answers (an index; none when there is no such comment yet)].
  posts: fc.array(fc.tuple(fc.nat(AUTHORS), fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 5 }),
  comments: fc.array(fc.tuple(fc.nat(4), fc.nat(AUTHORS), fc.boolean(), fc.nat(6)), { maxLength: 6 }),
  viewerShy: fc.boolean(),
});

describe('search: nothing the caller cannot read by id is ever found', () => {
  let city: ReturnType<typeof aCity>;
  let viewer: TestUser;
  let authors: TestUser[];
  beforeAll(async () => {
    city = aCity();
    viewer = await aResidentAt(app, city);
    authors = [];
    for (let i = 0; i < AUTHORS; i++) authors.push(await aResidentAt(app, city, 100 * (i + 1), 0));
  });

  test('for random blocks, mutes, hidden and deleted posts and comments, and discoverable settings', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(aWorld, async (w) => {
        run++;
        const everyone = [...authors, viewer];
        const ids = everyone.map((u) => u.id);
        await sql('DELETE FROM user_blocks WHERE blocker_id = ANY($1::uuid[]) OR blocked_id = ANY($1::uuid[])', [ids]);
        await sql('DELETE FROM user_mutes WHERE muter_id = ANY($1::uuid[])', [ids]);
        await sql('UPDATE users SET discoverable = true WHERE id = ANY($1::uuid[])', [ids]);
        const m = letters(unique('zp'));

        const posts: Array<{ id: string; author: number; hidden: boolean; deleted: boolean }> = [];
        for (const [author, hidden, deleted] of w.posts) {
          const post = await aPost(app, everyone[author], { content: `${m} post by ${author}` });
          posts.push({ id: post.id, author, hidden, deleted });
        }
        const comments: Array<{ id: string; post: number; author: number; hidden: boolean; parent: number | null }> = [];
        for (const [p, author, hidden, answers] of w.comments) {
          const parent = answers < comments.length ? answers : null;
          const on = parent === null ? p % posts.length : comments[parent].post;
          const reply = parent === null ? {} : { parent: comments[parent].id };
          const comment = await aComment(app, everyone[author], posts[on].id, { content: `${m} comment by ${author}`, ...reply });
          comments.push({ id: comment.id, post: on, author, hidden, parent });
        }

        // The world's rules, arranged where the service keeps them.
        for (const [i, r] of w.relations.entries()) {
          if (r.blocks) await sql('INSERT INTO user_blocks (blocker_id, blocked_id) VALUES ($1, $2)', [viewer.id, authors[i].id]);
          if (r.blockedBy) await sql('INSERT INTO user_blocks (blocker_id, blocked_id) VALUES ($1, $2)', [authors[i].id, viewer.id]);
          if (r.muted) await sql('INSERT INTO user_mutes (muter_id, muted_id) VALUES ($1, $2)', [viewer.id, authors[i].id]);
          if (r.shy) await sql('UPDATE users SET discoverable = false WHERE id = $1', [authors[i].id]);
        }
        if (w.viewerShy) await sql('UPDATE users SET discoverable = false WHERE id = $1', [viewer.id]);
        for (const p of posts) if (p.hidden) await sql('UPDATE posts SET hidden_at = now() WHERE id = $1', [p.id]);
        for (const c of comments) if (c.hidden) await sql('UPDATE comments SET hidden_at = now() WHERE id = $1', [c.id]);
        for (const p of posts) if (p.deleted) await sql('DELETE FROM posts WHERE id = $1', [p.id]);

        // The model: what the caller may find.
        const me = w.anonymous ? null : viewer;
        const isMe = (a: number) => me !== null && a === AUTHORS;
        const rel = (a: number) => (a === AUTHORS ? { blocks: false, blockedBy: false, muted: false, shy: w.viewerShy } : w.relations[a]);
        const separated = (a: number) => me !== null && !isMe(a) && (rel(a).blocks || rel(a).blockedBy);
        const listed = (a: number) => !separated(a) && !(me !== null && !isMe(a) && rel(a).muted) && (!rel(a).shy || isMe(a));
        const postReadable = (p: (typeof posts)[number]) => !p.deleted && (!p.hidden || isMe(p.author)) && !separated(p.author);
        const expectedPosts = posts.filter((p) => postReadable(p) && listed(p.author)).map((p) => p.id).sort();
        // A hidden comment takes the replies below it along, for everyone but each reply's own author.
        const hiddenAbove = (c: (typeof comments)[number]): boolean => c.hidden || (c.parent !== null && hiddenAbove(comments[c.parent]));
        const expectedComments = comments
          .filter((c) => postReadable(posts[c.post]) && (!hiddenAbove(c) || isMe(c.author)) && listed(c.author))
          .map((c) => c.id)
          .sort();

        const ask = async (type: string) => {
          const input = { q: m, type, page_size: 50 };
          const opts = me ? { token: me.token } : {};
          const res = run % 2 ? await app.emit('search.query', input, opts) : await app.rest('GET', '/api/search/', { ...opts, query: input });
          expect(res.status).toBe(200);
          return res.body.results.map((x: any) => x.id).sort() as string[];
        };
        const foundPosts = await ask('posts');
        const foundComments = await ask('comments');
        const opts = me ? { token: me.token } : {};
        for (const id of foundPosts) expect((await app.rest('GET', `/api/feed/posts/${id}/`, opts)).status).toBe(200);
        for (const id of foundComments) expect((await app.rest('GET', `/api/posts/comments/${id}/history/`, opts)).status).toBe(200);
        expect(foundPosts).toEqual(expectedPosts);
        expect(foundComments).toEqual(expectedComments);
      }),
      { numRuns: 12, seed: Number(process.env.SEARCH_PROPERTY_SEED ?? Date.now() % 2 ** 31), endOnFailure: true },
    );
  }, 240_000);
});
