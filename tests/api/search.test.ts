import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { sql } from '../helpers/sql.js';
import { searchBothTransports, searchMarker } from '../helpers/search.js';
import { aComment, aPost } from '../builders/posts.js';
import { aCity, aResidentAt } from '../builders/feeds.js';
import { aBlock, aMute } from '../builders/safety.js';
import { aCommunity } from '../builders/communities.js';
import { aProduct, aStore } from '../builders/stores.js';
import type { TestUser } from '../builders/users.js';
import { tagStatsRefreshJob } from '../../src/modules/search/tag-stats.job.js';

/**
 * search.query, the tag feed and trending tags (DESIGN.md section 11, docs/modules/search.md). Every rule is asked over
 * REST and over the socket, which must answer the same status and body. Each test writes words of its own (a random
 * marker word), so what earlier runs left in the database never matches.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'off' });
});
afterAll(async () => {
  await app.stop();
});

const marker = searchMarker;

/** Search over both transports; asserts they agree and answers the body. */
const search = (as: TestUser | null, query: Record<string, unknown>, status = 200) => searchBothTransports(app, as, query, status);
const postIds = (body: any): string[] => (body.posts ?? body).results.map((p: any) => p.id);

describe('search.query: input', () => {
  test('when q is missing, empty or longer than 200 characters, then 400 {q: [...]} over both transports', async () => {
    for (const q of [undefined, '', 'x'.repeat(201)]) {
      const body = await search(null, q === undefined ? {} : { q }, 400);
      expect(body).toEqual({ q: [expect.any(String)] });
    }
    expect(await search(null, { q: 'x'.repeat(200) })).toMatchObject({ posts: { count: expect.any(Number) } });
    expect(await search(null, { q: 'bread', type: 'everything' }, 400)).toEqual({ type: [expect.any(String)] });
  });

  test('when what is typed is odd (quotes, lone signs, operators of other engines, only stop words), then 200 and never an error', async () => {
    for (const q of ['"', '-', '#', '@', '!!', "'", 'a & b | c', '(x', ':*', '\\', '"unclosed phrase', '- -"" #!', 'the of and', '--x', '日本語', '😀']) {
      const body = await search(null, { q });
      expect(Object.keys(body).sort()).toEqual(['comments', 'communities', 'places', 'posts', 'products', 'stores', 'tags', 'users']);
      // A page of posts alone builds its text query inside its one statement: the same never-an-error, and the same
      // matches as the posts of all types (not none: other test files' posts share the database).
      const postsAlone = await search(null, { q, type: 'posts' });
      expect(postIds(postsAlone).slice(0, postIds(body.posts).length)).toEqual(postIds(body.posts));
      expect(postsAlone.count).toBe(body.posts.count);
    }
  });
});

describe('search.query: matching', () => {
  let city: ReturnType<typeof aCity>;
  let alice: TestUser & { locationId: string };
  let m: string;
  const posts: Record<string, any> = {};
  beforeAll(async () => {
    city = aCity();
    alice = await aResidentAt(app, city);
    m = marker();
    posts.plumber = await aPost(app, alice, { content: `Who knows a good plumber? ${m} asking for the kitchen sink` });
    posts.cafe = await aPost(app, alice, { content: `The new Café on the corner ${m} has great bread` });
    posts.phrase = await aPost(app, alice, { content: `${m} a street party is planned; bring chairs` });
    posts.scattered = await aPost(app, alice, { content: `${m} the party on our street was loud` });
    posts.tagged = await aPost(app, alice, { content: `Join the #StreetParty_${m} on Saturday` });
  });

  test('when a word is searched in another form or without its accent, then the post is found (stemming, accent folding)', async () => {
    expect(postIds(await search(alice, { q: `${m} plumbers` }))).toEqual([posts.plumber.id]);
    expect(postIds(await search(alice, { q: `${m} cafe` }))).toEqual([posts.cafe.id]);
    expect(postIds(await search(null, { q: `${m} CAFÉ`, type: 'posts' }))).toEqual([posts.cafe.id]);
  });

  test('when the last word is unfinished, then it matches as the start of a word; an earlier unfinished word does not', async () => {
    expect(postIds(await search(alice, { q: `${m} plumb` }))).toEqual([posts.plumber.id]);
    expect(postIds(await search(alice, { q: `${m} kitch` }))).toEqual([posts.plumber.id]);
    expect(postIds(await search(alice, { q: `kitch ${m}` }))).toEqual([]);
    expect(postIds(await search(alice, { q: `${m} plumb ` }))).toEqual([]);
  });

  test('when every word must match, a quoted phrase keeps its order and -word excludes', async () => {
    expect(postIds(await search(alice, { q: `${m} street party`, type: 'posts' })).sort()).toEqual([posts.phrase.id, posts.scattered.id].sort());
    expect(postIds(await search(alice, { q: `${m} "street party"`, type: 'posts' }))).toEqual([posts.phrase.id]);
    expect(postIds(await search(alice, { q: `${m} street party -loud`, type: 'posts' }))).toEqual([posts.phrase.id]);
    expect(postIds(await search(alice, { q: `${m} -"street party" party`, type: 'posts' }))).toEqual([posts.scattered.id]);
    expect(postIds(await search(alice, { q: `-${m}` }))).toEqual([]);
    expect(postIds(await search(alice, { q: `${m} plumber bread` }))).toEqual([]);
  });

  test('when #tag is searched, then the posts carrying the hashtag are found, and the tag itself', async () => {
    const body = await search(alice, { q: `#streetparty_${m}` });
    expect(postIds(body)).toEqual([posts.tagged.id]);
    expect(body.tags.results).toEqual([{ tag: `streetparty_${m}`, posts_count: 1 }]);
    expect(posts.tagged.tags).toEqual([`streetparty_${m}`]);
    // Stop words beside the tag: the tag decides (a page of posts alone, and all kinds at once, alike).
    expect(postIds(await search(alice, { q: `the #streetparty_${m}`, type: 'posts' }))).toEqual([posts.tagged.id]);
    expect(postIds(await search(alice, { q: `the #streetparty_${m}` }))).toEqual([posts.tagged.id]);
    // Stop words alone find nothing, even where they are written. (Finished words: a trailing space. Without it the
    // last word is a prefix being typed, and "of" rightly finds "off" in other files' posts of the shared database.)
    expect(await search(alice, { q: 'the of ', type: 'posts' })).toMatchObject({ count: 0, results: [] });
  });

  test('when @name is searched, then that person is found and their posts', async () => {
    const body = await search(null, { q: `@${alice.username}` });
    expect(body.users.results.map((u: any) => u.id)).toEqual([alice.id]);
    expect(body.posts.count).toBe(5);
    expect((await search(null, { q: `@${alice.username} plumber` })).posts.results.map((p: any) => p.id)).toEqual([posts.plumber.id]);
    expect((await search(null, { q: `@${alice.username.slice(0, -2)}` })).users.results.map((u: any) => u.id)).toContain(alice.id);
  });

  test('when a result is a post, then it carries a plain snippet of at most 200 characters and offsets of the matched words', async () => {
    const long = await aPost(app, alice, { content: `${'Lorem ipsum dolor sit amet. '.repeat(20)}Our ${m} plumbers fixed the leaking pipes. ${'Tail words here. '.repeat(20)}` });
    const [hit] = (await search(alice, { q: `${m} plumber leak`, type: 'posts' })).results;
    expect(hit.id).toBe(long.id);
    expect(hit.snippet.length).toBeLessThanOrEqual(200);
    expect(hit.snippet).not.toMatch(/[<>\u0001\u0002]/);
    const marked = hit.highlights.map(([a, b]: [number, number]) => hit.snippet.slice(a, b).toLowerCase());
    expect(marked).toEqual(expect.arrayContaining([m, 'plumbers', 'leaking']));
    const [prefixHit] = (await search(alice, { q: `${m} plumb`, type: 'posts' })).results;
    expect(prefixHit.highlights.map(([a, b]: [number, number]) => prefixHit.snippet.slice(a, b).toLowerCase())).toEqual(expect.arrayContaining(['plumber']));
  });

  test('when names are searched with a typo, then people, stores, products, communities and places are still found', async () => {
    const word = `Quillfeather${marker().slice(2, 6)}`;
    const bob = await aResidentAt(app, city, 300, 0);
    await app.rest('PATCH', '/api/users/profile/', { token: bob.token, body: { display_name: `${word} Smith` } });
    const store = await aStore(app, bob, { name: `${word} Bakery` });
    const product = await aProduct(app, bob, store.id, { name: `${word} sourdough` });
    const club = await aCommunity(app, bob, { name: `${word} walkers` });
    const typo = word.slice(0, 4) + word.slice(5); // one letter dropped
    const body = await search(alice, { q: typo });
    expect(body.users.results.map((u: any) => u.id)).toContain(bob.id);
    expect(body.stores.results.map((s: any) => s.id)).toContain(store.id);
    expect(body.products.results.map((p: any) => p.id)).toContain(product.id);
    expect(body.communities.results.map((c: any) => c.id)).toContain(club.id);
    // Communities are for signed-in people.
    expect((await search(null, { q: typo })).communities).toEqual({ count: 0, results: [] });
    const places = await search(alice, { q: city.name, type: 'places' });
    expect(places.results.map((p: any) => p.id)).toContain(alice.locationId);
  });

  test('when one type is asked, then its paginated envelope, page size 20 by default and at most 50', async () => {
    const w = marker();
    for (let i = 0; i < 3; i++) await aPost(app, alice, { content: `${w} number ${i}` });
    const page1 = await search(alice, { q: w, type: 'posts', page_size: 2 });
    expect(page1).toMatchObject({ count: 3, previous: null, next: expect.stringContaining('page=2') });
    expect(page1.results).toHaveLength(2);
    const page2 = await search(alice, { q: w, type: 'posts', page_size: 2, page: 2 });
    expect(page2).toMatchObject({ count: 3, next: null, results: [expect.any(Object)] });
    expect(await search(alice, { q: w, type: 'posts', page_size: 2, page: 3 }, 404)).toEqual({ detail: 'Invalid page.' });
    const all = await search(alice, { q: w });
    expect(all.posts.count).toBe(3);
  });
});

describe('search.query: ranking', () => {
  test('when matches are as relevant, then the nearest place comes first, then the newest', async () => {
    const city = aCity();
    const near = await aResidentAt(app, city);
    const far = await aResidentAt(app, city, 8000, 0);
    const m = marker();
    const farOld = await aPost(app, far, { content: `${m} ladder to lend` });
    const nearOld = await aPost(app, near, { content: `${m} ladder to lend` });
    const nearNew = await aPost(app, near, { content: `${m} ladder to lend` });
    const farNew = await aPost(app, far, { content: `${m} ladder to lend` });
    expect(postIds(await search(null, { q: `${m} ladder`, location_id: near.locationId, type: 'posts' }))).toEqual([nearNew.id, nearOld.id, farNew.id, farOld.id]);
    expect(postIds(await search(null, { q: `${m} ladder`, location_id: far.locationId, type: 'posts' }))).toEqual([farNew.id, farOld.id, nearNew.id, nearOld.id]);
    // The caller's own place when none is given.
    expect(postIds(await search(far, { q: `${m} ladder`, type: 'posts' }))).toEqual([farNew.id, farOld.id, nearNew.id, nearOld.id]);
    // Relevance first: the word in the title outranks distance.
    const titled = await aPost(app, far, { title: `${m} ladder`, content: `${m} ladder to lend, aluminium ladder` });
    expect(postIds(await search(null, { q: `${m} ladder`, location_id: near.locationId, type: 'posts' }))[0]).toBe(titled.id);
    expect(await search(null, { q: m, location_id: '00000000-0000-4000-8000-000000000000' }, 404)).toEqual({ detail: expect.any(String) });
    // A page of posts alone reads the place inside its one statement: unknown is 404 whether posts match or not.
    for (const q of [m, `${m} nomatchzzq`, 'the', '-ladder'])
      expect(await search(null, { q, type: 'posts', location_id: '00000000-0000-4000-8000-000000000000' }, 404)).toEqual({ detail: expect.any(String) });
  });

  test('when comments match, then they come ranked (the better match first, then the newest), as whole comments', async () => {
    const city = aCity();
    const author = await aResidentAt(app, city);
    const m = marker();
    const post = await aPost(app, author, { content: 'a post about ladders' });
    const older = await aComment(app, author, post.id, { content: `${m} ladder here` });
    const best = await aComment(app, author, post.id, { content: `${m} ladder, ${m} ladder and one more ${m} ladder` });
    const newer = await aComment(app, author, post.id, { content: `${m} ladder there` });
    const found = await search(author, { q: `${m} ladder`, type: 'comments' });
    expect(found.results.map((c: any) => c.id)).toEqual([best.id, newer.id, older.id]);
    expect(found.results[1]).toMatchObject({ id: newer.id, post: post.id, content: `${m} ladder there` });
  });
});

describe('search.query: the one post rule', () => {
  test('when blocks, mutes, moderation, deletion, communities or discoverable stand between, then nothing unreadable is found', async () => {
    const city = aCity();
    const me = await aResidentAt(app, city);
    const blocked = await aResidentAt(app, city);
    const blocker = await aResidentAt(app, city);
    const muted = await aResidentAt(app, city);
    const shy = await aResidentAt(app, city);
    const other = await aResidentAt(app, city);
    const m = marker();
    const p = {
      blocked: await aPost(app, blocked, { content: `${m} from blocked` }),
      blocker: await aPost(app, blocker, { content: `${m} from blocker` }),
      muted: await aPost(app, muted, { content: `${m} from muted` }),
      shy: await aPost(app, shy, { content: `${m} from shy` }),
      hidden: await aPost(app, other, { content: `${m} hidden one` }),
      deleted: await aPost(app, other, { content: `${m} deleted one` }),
      fine: await aPost(app, other, { content: `${m} fine one` }),
      mine: await aPost(app, me, { content: `${m} my own` }),
    };
    const club = await aCommunity(app, other);
    const clubPost = await aPost(app, other, { content: `${m} community one`, community_id: club.id });
    const c = {
      underHidden: await aComment(app, other, p.hidden.id, { content: `${m} comment under hidden` }),
      fine: await aComment(app, other, p.fine.id, { content: `${m} comment fine` }),
      byBlocked: await aComment(app, blocked, p.fine.id, { content: `${m} comment by blocked` }),
      hiddenParent: await aComment(app, other, p.fine.id, { content: `${m} comment hidden parent` }),
    };
    const reply = await aComment(app, other, p.fine.id, { content: `${m} reply under hidden comment`, parent: c.hiddenParent.id });
    await aBlock(app, me, blocked);
    await aBlock(app, blocker, me);
    await aMute(app, me, muted);
    await app.rest('PATCH', '/api/users/profile/', { token: shy.token, body: { discoverable: false } });
    await sql(`UPDATE posts SET hidden_at = now() WHERE id = $1`, [p.hidden.id]);
    await sql(`UPDATE comments SET hidden_at = now() WHERE id = $1`, [c.hiddenParent.id]);
    expect((await app.rest('DELETE', `/api/feed/posts/${p.deleted.id}/`, { token: other.token })).status).toBe(204);

    const mine = await search(me, { q: m });
    expect(mine.posts.results.map((x: any) => x.id).sort()).toEqual([p.fine.id, p.mine.id, clubPost.id].sort());
    expect(mine.comments.results.map((x: any) => x.id)).toEqual([c.fine.id]);
    const anonymous = await search(null, { q: m, type: 'posts' });
    const names = Object.fromEntries(Object.entries(p).map(([k, v]) => [v.id, k]));
    expect(anonymous.results.map((x: any) => names[x.id] ?? x.id).sort()).toEqual(['blocked', 'blocker', 'muted', 'fine', 'mine'].sort());
    expect((await search(null, { q: m, type: 'comments' })).results.map((x: any) => x.id).sort()).toEqual([c.fine.id, c.byBlocked.id].sort());
    // Each found item reads by id; each left out the caller cannot read, or is muted (a list leaves it out) or not discoverable.
    for (const id of postIds(mine)) expect((await app.rest('GET', `/api/feed/posts/${id}/`, { token: me.token })).status).toBe(200);
    for (const id of [p.blocked.id, p.blocker.id, p.hidden.id, p.deleted.id]) expect((await app.rest('GET', `/api/feed/posts/${id}/`, { token: me.token })).status).toBe(404);
    // The shy person finds their own; the hidden post's author finds it; the author of the hidden comment finds its reply's parent.
    expect((await search(shy, { q: m, type: 'posts' })).results.map((x: any) => x.id)).toContain(p.shy.id);
    expect((await search(other, { q: `${m} hidden`, type: 'posts' })).results.map((x: any) => x.id)).toEqual([p.hidden.id]);
    expect((await search(other, { q: `${m} hidden`, type: 'comments' })).results.map((x: any) => x.id).sort()).toEqual([c.underHidden.id, c.hiddenParent.id, reply.id].sort());
    // Not found by name either.
    expect((await search(me, { q: `@${shy.username}` })).users.results).toEqual([]);
    expect((await search(me, { q: `@${blocked.username}` })).users.results).toEqual([]);
    expect((await search(me, { q: `@${blocker.username}` })).users.results).toEqual([]);
    expect((await search(null, { q: `@${blocked.username}` })).users.results.map((u: any) => u.id)).toEqual([blocked.id]);
  }, 120_000);
});

describe('discoverable on the profile', () => {
  test('when a person turns discoverable off, then their profile and export say so, and it is true by default', async () => {
    const city = aCity();
    const u = await aResidentAt(app, city);
    expect((await app.rest('GET', '/api/users/profile/', { token: u.token })).body.discoverable).toBe(true);
    const off = await app.rest('PATCH', '/api/users/profile/', { token: u.token, body: { discoverable: false } });
    expect(off).toMatchObject({ status: 200, body: { discoverable: false } });
    const viaSocket = await app.emit('users.profile', {}, { token: u.token });
    expect(viaSocket.body.discoverable).toBe(false);
    const stranger = await aResidentAt(app, city);
    // The older name search (users.search) leaves them out too, over both transports.
    const byName = await app.rest('GET', '/api/users/search/', { token: stranger.token, query: { query: u.username } });
    expect(byName.body).toEqual([]);
    expect(await app.emit('users.search', { query: u.username }, { token: stranger.token })).toEqual({ status: 200, body: [] });
    await app.rest('PATCH', '/api/users/profile/', { token: u.token, body: { discoverable: 'true' } });
    expect((await app.rest('GET', '/api/users/search/', { token: stranger.token, query: { query: u.username } })).body.map((x: any) => x.id)).toEqual([u.id]);
    await app.rest('PATCH', '/api/users/profile/', { token: u.token, body: { discoverable: false } });
    const publicView = await app.rest('GET', `/api/users/${u.username}`, { token: stranger.token });
    expect(publicView.body).not.toHaveProperty('discoverable');
    const exported = await app.rest('GET', '/api/users/profile/export/', { token: u.token });
    expect(exported.status).toBe(200);
    expect(JSON.stringify(exported.body)).toContain('"discoverable":false');
  });
});

describe('hashtags, the tag feed and trending tags', () => {
  test('when posts and comments are written and edited, then their tags follow the text, lower case, once each', async () => {
    const city = aCity();
    const u = await aResidentAt(app, city);
    const m = marker();
    const post = await aPost(app, u, { content: `#Garden_${m} sale! #garden_${m} #Café #日本 C#sharp x#y http://a.b/#frag #${'a'.repeat(51)}` });
    expect(post.tags).toEqual([`garden_${m}`, 'café', '日本']);
    const edited = await app.rest('PATCH', `/api/feed/posts/${post.id}/`, { token: u.token, body: { content: `now #Swap_${m}` } });
    expect(edited.body.tags).toEqual([`swap_${m}`]);
    const read = await app.emit('posts.get', { post_id: post.id }, { token: u.token });
    expect(read.body.tags).toEqual([`swap_${m}`]);
    const comment = await aComment(app, u, post.id, { content: `me too #Swap_${m}` });
    expect(comment.tags).toEqual([`swap_${m}`]);
    const commentEdit = await app.rest('PATCH', `/api/posts/comments/${comment.id}/`, { token: u.token, body: { content: 'no tags now' } });
    expect(commentEdit.body.tags).toEqual([]);
    expect(postIds(await search(u, { q: `#garden_${m}` }))).toEqual([]);
    expect(postIds(await search(u, { q: `#swap_${m}` }))).toEqual([post.id]);
  });

  test('when a tag feed is read, then the posts with the tag, nearest place first, over both transports', async () => {
    const city = aCity();
    const near = await aResidentAt(app, city);
    const far = await aResidentAt(app, city, 6000, 0);
    const tag = `fair_${marker()}`;
    const farPost = await aPost(app, far, { content: `#${tag} far` });
    const nearPost = await aPost(app, near, { content: `#${tag} near` });
    await aPost(app, near, { content: `no tag ${tag}` });
    const rest = await app.rest('GET', `/api/feed/tags/${tag.toUpperCase()}/`, { query: { location_id: far.locationId } });
    expect(rest.status).toBe(200);
    expect(rest.body.results.map((x: any) => x.id)).toEqual([farPost.id, nearPost.id]);
    expect(await app.emit('feeds.tag', { tag: tag.toUpperCase(), location_id: far.locationId })).toEqual({ status: 200, body: rest.body });
    const fromNear = await app.rest('GET', `/api/feed/tags/${tag}/`, { token: near.token });
    expect(fromNear.body.results.map((x: any) => x.id)).toEqual([nearPost.id, farPost.id]);
    await aBlock(app, near, far);
    expect((await app.rest('GET', `/api/feed/tags/${tag}/`, { token: near.token })).body.results.map((x: any) => x.id)).toEqual([nearPost.id]);
  });

  test('when people tag posts near a place, then trending counts distinct people over 24 h, at most 10, without hidden posts', async () => {
    const city = aCity();
    const people = [await aResidentAt(app, city), await aResidentAt(app, city, 200, 0), await aResidentAt(app, city, 0, 300)];
    const far = await aResidentAt(app, city, 30_000, 0);
    const m = marker();
    for (const p of people) await aPost(app, p, { content: `#popular_${m}` });
    await aPost(app, people[0], { content: `#popular_${m} again #solo_${m}` });
    await aPost(app, people[0], { content: `#solo_${m} twice` });
    await aPost(app, far, { content: `#faraway_${m}` });
    const old = await aPost(app, people[1], { content: `#old_${m}` });
    await sql(`UPDATE posts SET created_at = now() - interval '25 hours' WHERE id = $1`, [old.id]);
    const hidden = await aPost(app, people[2], { content: `#hidden_${m}` });
    await sql(`UPDATE posts SET hidden_at = now() WHERE id = $1`, [hidden.id]);
    for (let i = 0; i < 10; i++) await aPost(app, people[1], { content: `#filler${i}_${m}` });

    const rest = await app.rest('GET', '/api/search/trending-tags/', { query: { location_id: people[0].locationId } });
    expect(rest.status).toBe(200);
    expect(await app.emit('search.trending_tags', { location_id: people[0].locationId })).toEqual({ status: 200, body: rest.body });
    const results = rest.body.results;
    expect(results).toHaveLength(10);
    expect(results[0]).toEqual({ tag: `popular_${m}`, posts_count: 4, people_count: 3 });
    expect(results[1]).toEqual({ tag: `solo_${m}`, posts_count: 2, people_count: 1 });
    const tags = results.map((r: any) => r.tag);
    for (const t of [`faraway_${m}`, `old_${m}`, `hidden_${m}`]) expect(tags).not.toContain(t);
    expect((await app.rest('GET', '/api/search/trending-tags/', { query: { location_id: '00000000-0000-4000-8000-000000000000' } })).status).toBe(404);
    expect((await app.rest('GET', '/api/search/trending-tags/', { query: {} })).body).toEqual({ location_id: [expect.any(String)] });
  });

  test('when a tagged post is edited, hidden and shown again, loses its place or is deleted, then trending and the tags found follow it', async () => {
    const city = aCity();
    const [ann, ben] = [await aResidentAt(app, city), await aResidentAt(app, city, 200, 0)];
    const m = marker();
    const trending = async () =>
      Object.fromEntries(
        (await app.rest('GET', '/api/search/trending-tags/', { query: { location_id: ann.locationId } })).body.results
          .filter((r: any) => r.tag.endsWith(m))
          .map((r: any) => [r.tag, r.posts_count]),
      );
    // The tags found are counted by search.tag_stats_refresh (every 5 minutes; tests/api/search-tag-dictionary.test.ts).
    const found = async () => {
      await tagStatsRefreshJob.run();
      return (await search(ann, { q: `#kept_${m}`, type: 'tags' })).results;
    };
    const edited = await aPost(app, ann, { content: `#gone_${m} #kept_${m}` });
    const moved = await aPost(app, ben, { content: `#kept_${m}` });
    const deleted = await aPost(app, ben, { content: `#kept_${m} #doomed_${m}` });
    expect(await trending()).toEqual({ [`kept_${m}`]: 3, [`gone_${m}`]: 1, [`doomed_${m}`]: 1 });
    expect(await found()).toEqual([{ tag: `kept_${m}`, posts_count: 3 }]);

    expect((await app.rest('PATCH', `/api/feed/posts/${edited.id}/`, { token: ann.token, body: { content: `#kept_${m} #new_${m}` } })).status).toBe(200);
    expect(await trending()).toEqual({ [`kept_${m}`]: 3, [`new_${m}`]: 1, [`doomed_${m}`]: 1 });
    await sql(`UPDATE posts SET hidden_at = now() WHERE id = $1`, [edited.id]);
    expect(await trending()).toEqual({ [`kept_${m}`]: 2, [`doomed_${m}`]: 1 });
    expect(await found()).toEqual([{ tag: `kept_${m}`, posts_count: 2 }]);
    await sql(`UPDATE posts SET hidden_at = NULL WHERE id = $1`, [edited.id]);
    expect(await trending()).toEqual({ [`kept_${m}`]: 3, [`new_${m}`]: 1, [`doomed_${m}`]: 1 });
    // A post whose place is gone (locations ON DELETE SET NULL) is no neighbourhood post: not counted anywhere.
    await sql(`UPDATE posts SET location_id = NULL WHERE id = $1`, [moved.id]);
    expect((await app.rest('DELETE', `/api/feed/posts/${deleted.id}/`, { token: ben.token })).status).toBe(204);
    expect(await trending()).toEqual({ [`kept_${m}`]: 1, [`new_${m}`]: 1 });
    expect(await found()).toEqual([{ tag: `kept_${m}`, posts_count: 1 }]);
  });
});

describe('search.query: the ranking window', () => {
  test('when more posts match than RANK_WINDOW, then the newest RANK_WINDOW are ranked and counted, and an older better match is left out', async () => {
    const { RANK_WINDOW } = await import('../../src/modules/search/search.queries.js');
    const city = aCity();
    const author = await aResidentAt(app, city);
    const m = marker();
    // The oldest is the best match (the word in its title), but RANK_WINDOW newer ones match too.
    const [{ id: oldBest }] = await sql<{ id: string }>(
      `INSERT INTO posts (user_id, post_type, title, content, location_id, created_at) VALUES ($1, 'text', $2, $2, $3, now() - interval '2 days') RETURNING id`,
      [author.id, `${m} ${m}`, author.locationId],
    );
    await sql(
      `INSERT INTO posts (user_id, post_type, content, location_id, created_at)
       SELECT $1, 'text', $2 || ' number ' || g, $3, now() - interval '1 day' + g * interval '1 second' FROM generate_series(1, ${RANK_WINDOW}) g`,
      [author.id, m, author.locationId],
    );
    const first = await search(null, { q: m, type: 'posts', page_size: 50 });
    expect(first.count).toBe(RANK_WINDOW);
    expect(first.results).toHaveLength(50);
    const last = await search(null, { q: m, type: 'posts', page_size: 50, page: RANK_WINDOW / 50 });
    const seen = [...first.results, ...last.results].map((p: any) => p.id);
    expect(seen).not.toContain(oldBest);
    expect(last.next).toBeNull();
    // Narrower words reach it again.
    expect(postIds(await search(null, { q: `${m} -number`, type: 'posts' }))).toEqual([oldBest]);
  });
});

describe('search.query: the ranking window of comments', () => {
  test('when more comments match than RANK_WINDOW, then the newest RANK_WINDOW the caller may find are ranked and counted, the better match first', async () => {
    const { RANK_WINDOW } = await import('../../src/modules/search/search.queries.js');
    const city = aCity();
    const me = await aResidentAt(app, city);
    const author = await aResidentAt(app, city);
    const blocked = await aResidentAt(app, city);
    const muted = await aResidentAt(app, city);
    const m = marker();
    const post = await aPost(app, author, { content: 'a post to comment on' });
    const hiddenPost = await aPost(app, author, { content: 'a post moderation hid' });
    const insert = (user: string, on: string, content: string, age: string) =>
      sql<{ id: string }>(`INSERT INTO comments (post_id, user_id, content, created_at) VALUES ($1, $2, $3, now() - $4::interval) RETURNING id`, [on, user, content, age]);
    // The oldest is the best match of all (the word four times), but RANK_WINDOW newer ones match too: the oldest of
    // those is the best match among them, and newer still are better matches the caller may not find.
    const [{ id: oldBest }] = await insert(author.id, post.id, `${m} ${m} ${m} ${m}`, '3 days');
    const [{ id: windowBest }] = await insert(author.id, post.id, `${m} ${m} ${m} in the window`, '2 days');
    await sql(
      `INSERT INTO comments (post_id, user_id, content, created_at)
       SELECT $1, $2, $3 || ' number ' || g, now() - interval '2 days' + g * interval '1 second' FROM generate_series(1, ${RANK_WINDOW - 1}) g`,
      [post.id, author.id, m],
    );
    const [{ id: byBlocked }] = await insert(blocked.id, post.id, `${m} ${m} ${m} by blocked`, '1 hour');
    const [{ id: byMuted }] = await insert(muted.id, post.id, `${m} ${m} ${m} by muted`, '1 hour');
    const [{ id: hiddenOne }] = await insert(author.id, post.id, `${m} ${m} ${m} hidden`, '1 hour');
    const [{ id: underHiddenPost }] = await insert(author.id, hiddenPost.id, `${m} ${m} ${m} under a hidden post`, '1 hour');
    const [{ id: parent }] = await insert(author.id, post.id, 'a comment moderation hid', '2 hours');
    const [{ id: underHiddenComment }] = await sql<{ id: string }>(
      `INSERT INTO comments (post_id, user_id, parent_id, content, created_at) VALUES ($1, $2, $3, $4, now() - interval '1 hour') RETURNING id`,
      [post.id, author.id, parent, `${m} ${m} ${m} under a hidden comment`],
    );
    await aBlock(app, me, blocked);
    await aMute(app, me, muted);
    await sql(`UPDATE comments SET hidden_at = now() WHERE id = ANY($1::uuid[])`, [[hiddenOne, parent]]);
    await sql(`UPDATE posts SET hidden_at = now() WHERE id = $1`, [hiddenPost.id]);

    const first = await search(me, { q: m, type: 'comments', page_size: 50 });
    expect(first.count).toBe(RANK_WINDOW);
    expect(first.results).toHaveLength(50);
    expect(first.results[0].id).toBe(windowBest);
    const pages = [first];
    for (let page = 2; page <= RANK_WINDOW / 50; page++) pages.push(await search(me, { q: m, type: 'comments', page_size: 50, page }));
    expect(pages[pages.length - 1].next).toBeNull();
    const seen = pages.flatMap((p) => p.results.map((c: any) => c.id));
    expect(new Set(seen).size).toBe(RANK_WINDOW);
    for (const id of [oldBest, byBlocked, byMuted, hiddenOne, underHiddenPost, underHiddenComment]) expect(seen).not.toContain(id);
    // The all-types answer: the same count and the same best.
    const all = await search(me, { q: m });
    expect(all.comments.count).toBe(RANK_WINDOW);
    expect(all.comments.results.map((c: any) => c.id)).toEqual(first.results.slice(0, 5).map((c: any) => c.id));
    // Anonymous callers are in no block or mute: those two are in their window, the hidden ones are not.
    const anonymous = await search(null, { q: m, type: 'comments', page_size: 50 });
    expect(anonymous.count).toBe(RANK_WINDOW);
    expect(anonymous.results.slice(0, 2).map((c: any) => c.id).sort()).toEqual([byBlocked, byMuted].sort());
    for (const id of [hiddenOne, underHiddenPost, underHiddenComment]) expect(anonymous.results.map((c: any) => c.id)).not.toContain(id);
    // Narrower words reach the older one again.
    expect((await search(me, { q: `${m} -number -window`, type: 'comments' })).results.map((c: any) => c.id)).toEqual([oldBest]);
  }, 60_000);
});
