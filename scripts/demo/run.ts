import { ApiError, type HyperlocalClient, type InputOf } from '@hyperlocal/client';
import { demoClient, eachLimited, upload } from './client.js';
import { DEFAULT_SEED, DEMO_PASSWORD, HOST_USERNAME, NEIGHBOURHOODS, planCity, type PlannedPost, type PlannedUser } from './city.js';
import { avatarPng, productPng, tuneWav } from './media.js';
import { Progress } from './progress.js';

export interface DemoOptions {
  /** The running service, e.g. http://localhost:8000. */
  url: string;
  /** People in the city (50 to 200 for a believable one). */
  users?: number;
  seed?: number;
  /** Posts per person (2.5 by default; tests use fewer). */
  postsPerPerson?: number;
  /** An administrator's login: accounts are then created with POST /api/admin/users/, past the per-address register budget. */
  adminEmail?: string;
  adminPassword?: string;
  /** Where the progress bar goes (stderr by default); quiet: none. */
  progressOut?: NodeJS.WritableStream & { isTTY?: boolean };
  quiet?: boolean;
}

export interface DemoResult {
  login: { username: string; email: string; password: string };
  mainLocationId: string;
  displayUrl: string;
  /** What this run created and what it found already there, per kind. */
  created: Record<string, number>;
  existing: Record<string, number>;
  seconds: number;
}

const KINDS = ['users', 'stores', 'products', 'communities', 'memberships', 'posts', 'comments', 'likes', 'votes', 'conversations', 'messages', 'mutes', 'blocks', 'reports', 'events', 'rsvps', 'lost_found', 'recommendations', 'alerts'] as const;
type Kind = (typeof KINDS)[number];

/** Requests in flight at once: enough to overlap round trips, few enough to stay polite on the embedded database. */
const CONCURRENCY = 4;

export class DemoError extends Error {}

export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const started = Date.now();
  const baseUrl = options.url.replace(/\/+$/, '');
  const anonymous = demoClient(baseUrl);
  const size = options.users ?? 100;
  if (!Number.isInteger(size) || size < 10 || size > 500) throw new DemoError('--users must be a whole number from 10 to 500.');
  const plan = planCity(size, options.seed ?? DEFAULT_SEED, options.postsPerPerson);
  const created = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>;
  const existing = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>;

  // Health is not an operation of the API: a plain request.
  const health = await fetch(`${baseUrl}/health`).catch((err: Error) => {
    throw new DemoError(`No service answers at ${baseUrl} (${err.message}). Start it with \`npm start\`, or pass --url=.`);
  });
  if (health.status !== 200) throw new DemoError(`${baseUrl}/health answered ${health.status}: is the service healthy?`);

  const progress = new Progress(plan.users.length, options.progressOut, options.quiet);

  let admin: HyperlocalClient | undefined;
  if (options.adminEmail && options.adminPassword) {
    admin = demoClient(baseUrl);
    await admin.login({ username: options.adminEmail, password: options.adminPassword }).catch((err: ApiError) => {
      throw new DemoError(`The administrator ${options.adminEmail} could not log in (${err.status}): start the service with the same ADMIN_EMAIL and ADMIN_PASSWORD.`);
    });
  }

  // ---- People --------------------------------------------------------------------------------------------------
  /** Everyone this run holds a session for: signed up now, or logged in because something of theirs was missing. */
  const people = new Map<string, HyperlocalClient>();
  const ids = new Map<string, string>();
  const homes = new Map<string, string | null>();
  const planned = new Map(plan.users.map((u) => [u.username, u]));

  /** A person's client: the session their account was created with, else a login (only when something is missing). */
  const as = async (username: string): Promise<HyperlocalClient> => {
    const known = people.get(username);
    if (known) return known;
    const person = demoClient(baseUrl);
    await person.login({ username, password: DEMO_PASSWORD });
    people.set(username, person);
    return person;
  };

  progress.start('people');
  await eachLimited(plan.users, 2, async (u) => {
    const found = await anonymous.call('users.get', { username: u.username }).catch((err: ApiError) => {
      if (err.status === 404) return null;
      throw err;
    });
    if (found) {
      existing.users++;
      ids.set(u.username, found.id);
      homes.set(u.username, found.location?.id ?? null);
    } else {
      const account = {
        email: u.email,
        username: u.username,
        display_name: u.display_name,
        password: DEMO_PASSWORD,
        bio: u.bio || undefined,
        profile_picture: upload({ name: `${u.username}.png`, type: 'image/png', data: avatarPng(u.username) }),
      };
      let person: HyperlocalClient;
      if (admin) {
        const answer = await admin.call('admin.users_create', account);
        person = demoClient(baseUrl, { session: answer });
        ids.set(u.username, answer.user.id);
      } else {
        person = await registerAsNeighbour(baseUrl, account, plan.users.indexOf(u));
        ids.set(u.username, person.user!.id);
      }
      created.users++;
      people.set(u.username, person);
      homes.set(u.username, null);
    }
    progress.tick();
  });

  // Places: the first person of each neighbourhood founds it (with the geocoder's levels), the others join.
  const placeOf = new Map<number, string>();
  const settle = async (u: PlannedUser) => {
    const home = homes.get(u.username);
    if (home) {
      if (!placeOf.has(u.hood)) placeOf.set(u.hood, home);
      return;
    }
    const body = (await (await as(u.username)).call('locations.smart_update', {
      latitude: u.latitude,
      longitude: u.longitude,
      geocoded_data: { address: NEIGHBOURHOODS[u.hood].address },
    })) as { location: { id: string } };
    homes.set(u.username, body.location.id);
    if (!placeOf.has(u.hood)) placeOf.set(u.hood, body.location.id);
  };
  progress.start('places');
  for (let h = 0; h < NEIGHBOURHOODS.length; h++) {
    const first = plan.users.find((u) => u.hood === h);
    if (first) await settle(first);
  }
  await eachLimited(plan.users, CONCURRENCY, settle);
  const mainLocationId = homes.get(HOST_USERNAME);
  if (!mainLocationId) throw new DemoError('The demo account has no location.');

  // ---- Shops and products --------------------------------------------------------------------------------------
  const productCount = plan.stores.reduce((n, s) => n + s.products.length, 0);
  progress.start('shops', plan.stores.length + productCount);
  const storeIds = new Map<string, string>();
  const productIds = new Map<string, string>();
  await eachLimited(plan.stores, 2, async (s) => {
    const list = await anonymous.call('stores.list', { slug: s.slug });
    let store = list.results.find((x) => String(x.slug).toLowerCase() === s.slug);
    if (store) existing.stores++;
    else {
      store = await (await as(s.owner)).call('stores.create', {
        name: s.name,
        slug: s.slug,
        description: s.description,
        logo: upload({ name: `${s.slug}.png`, type: 'image/png', data: productPng(s.name) }),
      });
      created.stores++;
    }
    storeIds.set(s.slug, store.id);
    progress.tick();
    const products = await anonymous.call('products.list', { store: store.id, page_size: 100 });
    const byName = new Map(products.results.map((p) => [p.name, p.id]));
    for (const p of s.products) {
      let id = byName.get(p.name);
      if (id) existing.products++;
      else {
        const body = await (await as(s.owner)).call('products.create', {
          store_id: store.id,
          name: p.name,
          description: p.description,
          category: p.category as InputOf<'products.create'>['category'],
          price_type: 'fixed',
          price: p.price,
          stock: p.stock,
          uploaded_images: Array.from({ length: p.images }, (_, k) => upload({ name: `product-${k}.png`, type: 'image/png', data: productPng(p.name, k) })),
        });
        id = body.id;
        created.products++;
      }
      productIds.set(`${s.slug}/${p.name}`, id);
      progress.tick();
    }
  });

  // ---- Communities ---------------------------------------------------------------------------------------------
  const memberCount = plan.communities.reduce((n, c) => n + c.members.length, 0);
  progress.start('communities', plan.communities.length + memberCount);
  const communityIds = new Map<string, string>();
  const reader = admin ?? (await as(HOST_USERNAME));
  const categories = await reader.call('communities.categories');
  for (const c of plan.communities) {
    const list = await reader.call('communities.list', { search: c.name, page_size: 100 } as InputOf<'communities.list'>);
    let community = list.results.find((x) => String(x.name).toLowerCase() === c.name.toLowerCase());
    if (community) existing.communities++;
    else {
      community = await (await as(c.owner)).call('communities.create', {
        name: c.name,
        description: c.description,
        category: (categories.find((k) => k.name === c.category) ?? categories[0]).id,
        location: placeOf.get(c.hood),
        avatar: upload({ name: 'avatar.png', type: 'image/png', data: avatarPng(c.name) }),
      });
      created.communities++;
    }
    communityIds.set(c.name, community.id);
    progress.tick();
    const members = new Set<string>();
    for (let page = 1; ; page++) {
      const body = await reader.call('communities.members', { community_id: community.id, page, page_size: 100 });
      for (const m of body.results) members.add(m.user.username);
      if (!body.next) break;
    }
    await eachLimited(c.members, CONCURRENCY, async (username) => {
      if (members.has(username)) existing.memberships++;
      else {
        await (await as(username)).call('communities.join', { community_id: community.id });
        created.memberships++;
      }
      progress.tick();
    });
  }

  // ---- Posts, with their comments, likes and votes --------------------------------------------------------------
  progress.start('posts', plan.posts.length);
  const postKey = (username: string, type: string, content: string) => `${username}\u0000${type}\u0000${content}`;
  const known = new Set<string>();
  for (const location of new Set(placeOf.values())) {
    for (let page = 1; ; page++) {
      const body = await reader.call('posts.by_location', { location_id: location, page, page_size: 100 } as InputOf<'posts.by_location'>);
      for (const p of body.posts) known.add(postKey(p.user.username, p.post_type, p.content));
      if (page * 100 >= body.total_posts) break;
    }
  }
  // Reactions come only from people whose token this run already holds: a later run never logs a whole
  // neighbourhood in just to like a post (and a like is a toggle: it is only ever given on a new post).
  const reactor = (username: string) => people.get(username);
  await eachLimited(plan.posts, CONCURRENCY, async (p) => {
    if (known.has(postKey(p.author, p.post_type, p.content))) {
      existing.posts++;
      progress.tick();
      return;
    }
    const post = await createPost(await as(p.author), p, { storeIds, productIds, communityIds });
    created.posts++;
    for (const liker of p.likers) {
      const person = reactor(liker);
      if (!person) continue;
      await person.call('posts.like', { post_id: post.id });
      created.likes++;
    }
    const commentIds: string[] = [];
    for (const c of p.comments) {
      const person = c.author === p.author ? await as(c.author) : reactor(c.author);
      if (!person) continue;
      const parent = c.replyTo !== undefined ? commentIds[c.replyTo] : undefined;
      const body = await person.call('comments.create', { post: post.id, content: c.content, parent: parent ?? null });
      commentIds.push(body.id);
      created.comments++;
    }
    for (const v of p.voters) {
      const person = reactor(v.username);
      if (!person || !post.poll_data) continue;
      const optionIds = v.options.map((i) => post.poll_data!.options[i].id);
      await person.call('posts.vote_poll', optionIds.length === 1 ? { post_id: post.id, option_id: optionIds[0] } : { post_id: post.id, option_ids: optionIds });
      created.votes++;
    }
    progress.tick();
  });

  // ---- The demo account's conversations ----------------------------------------------------------------------------
  progress.start('conversations', plan.conversations.length);
  const host = await as(HOST_USERNAME);
  const open = new Map<string, string>();
  for (let page = 1; ; page++) {
    const body = await host.call('messages.conversations', { page, page_size: 100 });
    for (const c of body.results) if (!c.is_group && c.participants.length === 1) open.set(c.participants[0].username, c.id);
    if (!body.next) break;
  }
  for (const c of plan.conversations) {
    let conversationId = open.get(c.other);
    if (conversationId) existing.conversations++;
    else {
      const body = await host.call('messages.open_conversation', { participant_ids: [ids.get(c.other)!] });
      conversationId = body.id;
      created.conversations++;
    }
    const messages = await host.call('messages.list', { conversation_id: conversationId, page_size: 1 });
    if (messages.count > 0) existing.messages += messages.count;
    else {
      for (const m of c.messages) {
        const sender = m.fromHost ? host : await as(c.other);
        await sender.call('messages.send', { conversation_id: conversationId, content: m.content });
        created.messages++;
      }
    }
    progress.tick();
  }

  // ---- The demo account's safety: a muted and a blocked neighbour, and an open report for the moderation queue -------
  const safety = await applyDemoSafety(host, plan, { ids, mainLocationId });
  for (const kind of ['mutes', 'blocks', 'reports'] as const) (safety[kind] ? created : existing)[kind]++;

  // ---- The neighbourhood kinds (DESIGN.md section 13): a street party with RSVPs, a lost cat found, a recommended shop, one alert
  const kinds = await applyNeighbourhoodKinds(host, as, plan, { mainLocationId, storeIds });
  for (const kind of ['events', 'rsvps', 'lost_found', 'recommendations', 'alerts'] as const) {
    created[kind] += kinds.created[kind];
    existing[kind] += kinds.existing[kind];
  }
  progress.finish();
  for (const client of [anonymous, admin, ...people.values()]) client?.close();

  const hostPlan = planned.get(HOST_USERNAME)!;
  return {
    login: { username: hostPlan.username, email: hostPlan.email, password: DEMO_PASSWORD },
    mainLocationId,
    displayUrl: `${baseUrl}/display/${mainLocationId}`,
    created,
    existing,
    seconds: Math.round((Date.now() - started) / 100) / 10,
  };
}

/**
 * The demo account mutes one neighbour and blocks another (their posts leave its feeds: what the safety settings
 * look like with something in them), and reports a third neighbour's post, so that an administrator's moderation
 * queue (GET /api/admin/reports/) has an open report. The people are the first of the demo neighbourhood the host
 * has no conversation with, so no planned message is refused by the block. Each call answers 201 the first time
 * and 200 after (the same entry, the same open report): a later run adds nothing. True: made by this run.
 */
async function applyDemoSafety(host: HyperlocalClient, plan: ReturnType<typeof planCity>, refs: { ids: Map<string, string>; mainLocationId: string }) {
  const talking = new Set(plan.conversations.map((c) => c.other));
  const [muted, blocked] = plan.users.filter((u) => u.hood === 0 && u.username !== HOST_USERNAME && !talking.has(u.username));
  if (!muted || !blocked) return { mutes: false, blocks: false, reports: false };
  const spared = new Set([HOST_USERNAME, muted.username, blocked.username]);
  const hood = new Map(plan.users.map((u) => [u.username, u.hood]));
  const flagged = plan.posts.find((p) => !spared.has(p.author) && hood.get(p.author) === 0);
  // The host's own lists say what an earlier run made already (the calls themselves would answer 200 again).
  const listed = async (op: 'safety.mutes_list' | 'safety.blocks_list', userId: string) =>
    ((await host.call(op, { page_size: 100 })) as { results: Array<{ user: { id: string } }> }).results.some((r) => r.user.id === userId);
  const relate = async (list: 'safety.mutes_list' | 'safety.blocks_list', create: 'safety.mutes_create' | 'safety.blocks_create', userId: string) => {
    if (await listed(list, userId)) return false;
    await host.call(create, { user_id: userId });
    return true;
  };
  const mutes = await relate('safety.mutes_list', 'safety.mutes_create', refs.ids.get(muted.username)!);
  const blocks = await relate('safety.blocks_list', 'safety.blocks_create', refs.ids.get(blocked.username)!);
  let reports = false;
  const postId = flagged && (await findPostId(host, refs.mainLocationId, flagged));
  if (postId) {
    const mine = (await host.call('safety.reports_list', { page_size: 100 })) as { results: Array<{ target_id: string; status: string }> };
    if (!mine.results.some((r) => r.target_id === postId && r.status === 'open')) {
      await host.call('safety.reports_create', { target_type: 'post', target_id: postId, reason: 'spam', details: 'Demo report: the same flyer posted again and again.' });
      reports = true;
    }
  }
  return { mutes, blocks, reports };
}

type KindCounts = Record<'events' | 'rsvps' | 'lost_found' | 'recommendations' | 'alerts', number>;

/**
 * The neighbourhood kinds in the demo's own neighbourhood: the host's street party next Saturday with neighbours going
 * and interested, a neighbour's lost cat found (posted lost, then resolved), a neighbour recommending a shop, and the
 * host's alert (every other resident is notified, through the outbox). The neighbours are the last of the place's
 * people, never the ones the host mutes or blocks. Each is looked up first among the place's posts: a later run adds
 * nothing.
 */
async function applyNeighbourhoodKinds(
  host: HyperlocalClient,
  as: (username: string) => Promise<HyperlocalClient>,
  plan: ReturnType<typeof planCity>,
  refs: { mainLocationId: string; storeIds: Map<string, string> },
): Promise<{ created: KindCounts; existing: KindCounts }> {
  const created: KindCounts = { events: 0, rsvps: 0, lost_found: 0, recommendations: 0, alerts: 0 };
  const existing: KindCounts = { events: 0, rsvps: 0, lost_found: 0, recommendations: 0, alerts: 0 };
  // Not the two the host mutes and blocks (applyDemoSafety picks them the same way): the host must see their posts.
  const talking = new Set(plan.conversations.map((c) => c.other));
  const avoided = new Set(plan.users.filter((u) => u.hood === 0 && u.username !== HOST_USERNAME && !talking.has(u.username)).slice(0, 2).map((u) => u.username));
  const neighbours = plan.users.filter((u) => u.hood === 0 && u.username !== HOST_USERNAME && !avoided.has(u.username)).slice(-6).map((u) => u.username);
  if (neighbours.length < 3) return { created, existing };
  const posted = async (type: string, content: string): Promise<any | null> => {
    for (let page = 1; ; page++) {
      const body = (await host.call('posts.by_location', { location_id: refs.mainLocationId, page, page_size: 100 })) as { posts: any[]; total_posts: number };
      const found = body.posts.find((x) => x.post_type === type && x.content === content);
      if (found) return found;
      if (page * 100 >= body.total_posts) return null;
    }
  };

  const partyText = 'Tables out on the street from four: bring a dish to share, music until ten. Children welcome!';
  if (await posted('event', partyText)) existing.events++;
  else {
    const saturday = new Date();
    saturday.setUTCDate(saturday.getUTCDate() + ((6 - saturday.getUTCDay() + 7) % 7 || 7));
    saturday.setUTCHours(16, 0, 0, 0);
    const party = await host.call('posts.create', {
      post_type: 'event',
      title: 'Street party',
      content: partyText,
      event_starts_at: saturday.toISOString(),
      event_ends_at: new Date(saturday.getTime() + 6 * 3_600_000).toISOString(),
      event_place_name: 'The top of the street',
      event_address: 'Between the bakery and the park gate',
      event_capacity: 80,
    } as InputOf<'posts.create'>);
    created.events++;
    for (const [i, username] of neighbours.entries()) {
      await (await as(username)).call('posts.rsvp', { post_id: party.id, status: i < 4 ? 'going' : 'interested' });
      created.rsvps++;
    }
  }

  const catText = 'Lost: our grey tabby Miso, green collar, last seen by the church on Tuesday evening.';
  const owner = await as(neighbours[0]);
  const cat = await posted('lost_found', catText);
  if (cat) existing.lost_found++;
  else {
    const lost = await owner.call('posts.create', { post_type: 'lost_found', content: catText, lost_found_status: 'lost' } as InputOf<'posts.create'>);
    await owner.call('comments.create', { post: lost.id, content: 'Found him! He was asleep in the garden shed at number 12. Thank you all.', parent: null });
    await owner.call('posts.resolve', { post_id: lost.id });
    created.lost_found++;
  }

  const storeId = [...refs.storeIds.values()][0];
  const tipText = 'Fixed my bike the same afternoon and only charged for the part. Friendly, honest, recommended!';
  if (await posted('recommendation', tipText)) existing.recommendations++;
  else if (storeId) {
    await (await as(neighbours[1])).call('posts.create', { post_type: 'recommendation', content: tipText, recommended_store_id: storeId } as InputOf<'posts.create'>);
    created.recommendations++;
  }

  const alertText = 'Water is off on our street until 6 pm while the main is repaired. Fill a jug now!';
  if (await posted('alert', alertText)) existing.alerts++;
  else {
    await host.call('posts.create', { post_type: 'alert', title: 'Water cut today', content: alertText } as InputOf<'posts.create'>);
    created.alerts++;
  }
  return { created, existing };
}

/** The id of a planned post in a place, read as the host sees the place's posts (null when it is not there). */
async function findPostId(host: HyperlocalClient, locationId: string, p: PlannedPost): Promise<string | null> {
  for (let page = 1; ; page++) {
    const body = (await host.call('posts.by_location', { location_id: locationId, page, page_size: 100 })) as { posts: any[]; total_posts: number };
    const found = body.posts.find((x) => x.user.username === p.author && x.post_type === p.post_type && x.content === p.content);
    if (found) return found.id;
    if (page * 100 >= body.total_posts) return null;
  }
}

/**
 * Public registration, which allows 20 accounts an hour per client address. Each demo person signs up "from their
 * own address": the demo runs beside the service and the service believes X-Forwarded-For from loopback by default
 * (TRUSTED_PROXIES=loopback, a local reverse proxy), so it plays the proxy in front of 100 neighbours, each within
 * their own budget. The addresses are from 198.18.0.0/15, the range reserved for benchmarks and tests. Where the
 * service trusts no local proxy, the budget is the demo's own: when spent, say how to go on instead of waiting.
 */
async function registerAsNeighbour(baseUrl: string, account: InputOf<'accounts.register'>, index: number): Promise<HyperlocalClient> {
  const address = `198.18.${Math.floor(index / 250)}.${1 + (index % 250)}`;
  const person = demoClient(baseUrl, { headers: { 'x-forwarded-for': address } });
  try {
    await person.register(account);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 429) throw err;
    throw new DemoError(
      'The service allows 20 registrations an hour from one address and does not take this machine for a proxy ' +
        '(TRUSTED_PROXIES), so the demo cannot sign its people up one address each. Start the service with an ' +
        'administrator (ADMIN_EMAIL=admin@example.org ADMIN_PASSWORD=<secret> npm start) and run the demo with the ' +
        'same two variables: administrators create accounts without that budget. Running the demo again resumes ' +
        'where it stopped.',
    );
  }
  return person;
}

async function createPost(author: HyperlocalClient, p: PlannedPost, refs: { storeIds: Map<string, string>; productIds: Map<string, string>; communityIds: Map<string, string> }) {
  const input: InputOf<'posts.create'> = { post_type: p.post_type as InputOf<'posts.create'>['post_type'], content: p.content };
  if (p.title) input.title = p.title;
  if (p.poll) Object.assign(input, { poll_question: p.poll.question, poll_options: p.poll.options, poll_allows_multiple: p.poll.multiple });
  if (p.post_type === 'product_share') input.shared_product_id = refs.productIds.get(p.shares!);
  if (p.post_type === 'store_share') input.shared_store_id = refs.storeIds.get(p.shares!);
  if (p.post_type === 'community_share') input.shared_community_id = refs.communityIds.get(p.shares!);
  if (p.post_type === 'image') input.media = Array.from({ length: p.images ?? 1 }, (_, k) => upload({ name: `photo-${k}.png`, type: 'image/png', data: productPng(p.content, k) }));
  if (p.post_type === 'audio') input.audio_file = upload({ name: 'tune.wav', type: 'audio/wav', data: tuneWav(p.content) });
  return author.call('posts.create', input);
}
