// The neighbourhood display's script, on @hyperlocal/client (served by this service at /client/hyperlocal.js): an
// anonymous client, the location's room, and the same operations any client uses (posts.by_location, posts.get,
// stores.list, products.by_location). The client keeps the rooms across reconnections, paces its events under the
// socket's budget and waits out a 429; after every (re)connection, before it reports `live`, the page reads the
// location's posts again (onCatchUp), so a flaky network loses nothing. Pushed events that arrive meanwhile are held
// by the client until then.
// Every text from the service goes in with textContent: a post that contains HTML shows as text.
import { createClient } from '/client/hyperlocal.js';

const MAX_POSTS = 24;
const MARKET_ITEMS = 5;
const MARKET_REFRESH_MS = 10 * 60_000;

const locationId = document.body.dataset.locationId;
const $ = (id) => document.getElementById(id);
const postsList = $('posts');

/** id -> {post, el}: what the page shows, newest first in postsList. */
const shown = new Map();
/** Poll posts whose own room the client watches (poll results are pushed there only). */
const watchedPolls = new Set();
let postCount = readCount('count-posts');
/** The service said this place is gone: nothing to wait for. */
let placeGone = false;
let everLive = false;

const client = createClient({ baseUrl: location.origin, onCatchUp: () => catchUpScreen() });
// Exposed for the page's browser test and for whoever debugs a display from its console.
window.hyperlocalDisplay = { client };

client.on('status', (status) => {
  if (placeGone) return;
  if (status === 'live') {
    everLive = true;
    setStatus('live', 'Live');
    void refreshMarket();
    void refreshSummary();
    return;
  }
  // Poll results on screen move live again only once their rooms are joined and read (catchUpScreen).
  for (const el of postsList.querySelectorAll('[data-live]')) el.removeAttribute('data-live');
  if (status === 'catching-up' || !everLive) setStatus('connecting', everLive ? 'Reconnecting…' : 'Connecting…');
  else setStatus('offline', 'Reconnecting…');
});
client.on('subscription:ended', ({ channel, id, status }) => {
  if (channel === 'post') return void watchedPolls.delete(id);
  if (channel !== 'location') return;
  placeGone = true;
  setStatus('offline', status === 404 ? 'This place no longer exists' : 'Cannot follow this place');
});

client.on('post:created', (post) => {
  if (post.location !== locationId) return;
  if (post.tags?.length) scheduleTrending();
  if (!shown.has(post.id)) setPostCount(postCount + 1);
  upsertPost(post, true);
  void watchPoll(post);
});
// An edit (DESIGN.md section 13) redraws a post on screen; one scrolled off is left alone.
client.on('post:updated', (post) => {
  if (post.location === locationId && shown.has(post.id)) upsertPost(post, false);
});
client.on('post:deleted', ({ id }) => {
  if (removePost(id)) setPostCount(Math.max(0, postCount - 1));
});
client.on('post:stats', (stats) => updateStats(stats));
client.on('poll:updated', ({ post_id, poll_data }) => updatePoll(post_id, poll_data));
client.on('poll:expired', ({ post_id, poll_data }) => updatePoll(post_id, poll_data));
client.on('location:updated', (location) => {
  if (location.id !== locationId) return;
  $('place-name').textContent = location.name;
  document.title = `${location.name} · live`;
  setCount('count-members', location.total_users);
  locationEvents++;
});

// location:updated events heard so far: a summary read that an event overtook is older than what is on screen.
let locationEvents = 0;

// The location's room, kept by the client from now on: joined at every connection before catchUpScreen runs.
void client.subscribe({ channel: 'location', id: locationId });

/**
 * After every (re)connection, with the rooms joined again: read the location's posts. Poll results are pushed to
 * each poll's own room, so polls the read brings that were not watched yet are joined after it, and read once more.
 */
async function catchUpScreen() {
  await catchUp();
  const unwatched = openPolls().filter((post) => !watchedPolls.has(post.id));
  if (unwatched.length) {
    await Promise.all(unwatched.map((post) => joinPollRoom(post.id)));
    await catchUp();
  }
  markLivePolls();
}

/** The neighbours count (and the name) as they are now: people who moved in while the page was away sent no event. */
async function refreshSummary() {
  const heardBefore = locationEvents;
  try {
    const res = await fetch(`/display/${encodeURIComponent(locationId)}/summary.json`, { cache: 'no-store' });
    if (!res.ok) return;
    const summary = await res.json();
    if (locationEvents !== heardBefore) return;
    if (typeof summary.name === 'string') {
      $('place-name').textContent = summary.name;
      document.title = `${summary.name} · live`;
    }
    if (typeof summary.total_users === 'number') setCount('count-members', summary.total_users);
  } catch {
    // offline: the next connection reads again
  }
}

async function catchUp() {
  const { location_name, total_posts, posts } = await client.call('posts.by_location', { location_id: locationId, page_size: MAX_POSTS });
  $('place-name').textContent = location_name;
  setPostCount(total_posts);
  const fresh = new Set(posts.map((p) => p.id));
  // A shown post as recent as the read's oldest that the read does not hold was deleted meanwhile.
  const oldest = posts.length === MAX_POSTS ? posts[posts.length - 1].created_at : '';
  for (const { post } of [...shown.values()]) {
    if (!fresh.has(post.id) && post.created_at >= oldest) removePost(post.id);
  }
  // After a reconnection, what arrived while the page was away is new to whoever watches the screen.
  const highlight = caughtUpOnce;
  for (const post of [...posts].reverse()) upsertPost(post, highlight && !shown.has(post.id));
  caughtUpOnce = true;
}

let caughtUpOnce = false;

const openPolls = () => [...shown.values()].map(({ post }) => post).filter((post) => post.poll_data && !post.poll_data.is_expired);

// ---------- posts ----------

/** Show a post, or refresh it in place; `highlight` marks it as just arrived. */
function upsertPost(post, highlight) {
  const known = shown.get(post.id);
  if (known) {
    known.post = post;
    const el = renderPost(post);
    if (known.el.dataset.live) el.dataset.live = known.el.dataset.live;
    known.el.replaceWith(el);
    known.el = el;
    return;
  }
  const el = renderPost(post);
  if (highlight) el.classList.add('post--new');
  shown.set(post.id, { post, el });
  // Newest first, by creation time (a catch-up may hand over posts older than some already shown).
  const after = [...postsList.children].find((other) => shown.get(other.dataset.postId)?.post.created_at < post.created_at);
  postsList.insertBefore(el, after ?? null);
  while (postsList.children.length > MAX_POSTS) removePost(postsList.lastElementChild.dataset.postId);
  document.body.classList.toggle('has-posts', shown.size > 0);
}

function removePost(id) {
  const known = shown.get(id);
  if (!known) return false;
  known.el.remove();
  shown.delete(id);
  if (watchedPolls.delete(id)) client.unsubscribe({ channel: 'post', id }).catch(() => undefined);
  document.body.classList.toggle('has-posts', shown.size > 0);
  return true;
}

async function joinPollRoom(postId) {
  if (watchedPolls.has(postId)) return false;
  watchedPolls.add(postId);
  try {
    await client.subscribe({ channel: 'post', id: postId });
    return true;
  } catch {
    // refused (the post is gone): nothing to watch
  }
  watchedPolls.delete(postId);
  return false;
}

/** A poll that arrives live: join its room, then read it once, so no vote is missed between the two. */
async function watchPoll(post) {
  if (!post.poll_data || post.poll_data.is_expired) return;
  if (!(await joinPollRoom(post.id))) return;
  try {
    const fresh = await client.call('posts.get', { post_id: post.id });
    updatePoll(post.id, fresh.poll_data);
    if (client.status === 'live') shown.get(post.id)?.el.setAttribute('data-live', 'true');
  } catch {
    // offline: the next connection reads again
  }
}

/** `data-live` marks a poll whose results move live (its room joined and read since). */
function markLivePolls() {
  for (const id of watchedPolls) shown.get(id)?.el.setAttribute('data-live', 'true');
}

function updateStats({ post_id, likes_count, comments_count, views_count }) {
  const known = shown.get(post_id);
  if (!known) return;
  const before = known.post;
  known.post = { ...before, likes_count, comments_count, views_count };
  setStat(known.el, 'likes', likes_count, likes_count !== before.likes_count);
  setStat(known.el, 'comments', comments_count, comments_count !== before.comments_count);
}

function updatePoll(postId, pollData) {
  const known = shown.get(postId);
  if (!known || !pollData) return;
  known.post = { ...known.post, poll_data: pollData };
  const poll = known.el.querySelector('.poll');
  if (poll) fillPoll(poll, pollData);
}

const KIND_LABELS = { image: 'Photo', poll: 'Poll', audio: 'Audio', product_share: 'For sale', store_share: 'Shop', community_share: 'Community', event: 'Event', recommendation: 'Recommended', alert: 'Alert' };
const LOST_FOUND_LABELS = { lost: 'Lost', found: 'Found', resolved: 'Resolved' };

function renderPost(post) {
  const el = h('li', 'post post--' + post.post_type);
  el.dataset.postId = post.id;
  el.dataset.postType = post.post_type;

  const meta = h('header', 'post__meta');
  meta.append(avatar(post.user), h('span', 'post__author', post.user.display_name || post.user.username));
  const time = h('time', 'post__time', relativeTime(post.created_at));
  time.dateTime = post.created_at;
  meta.append(time);
  if (KIND_LABELS[post.post_type]) meta.append(h('span', 'post__kind', KIND_LABELS[post.post_type]));
  if (post.lost_found_data) meta.append(h('span', 'post__kind post__kind--' + post.lost_found_data.status, LOST_FOUND_LABELS[post.lost_found_data.status]));
  if (post.edited_at) meta.append(h('span', 'post__edited', 'edited'));
  el.append(meta);

  if (post.title) el.append(h('h2', 'post__title', post.title));
  // A content warning stands in place of the content (text and images) until someone taps it open.
  let body = el;
  if (post.content_warning) {
    body = h('details', 'post__warning');
    body.append(h('summary', 'post__warning-label', 'Content warning: ' + post.content_warning));
    el.append(body);
  }
  body.append(h('p', 'post__content', post.content));

  if (post.media?.length) {
    const images = h('div', 'post__images');
    // The author's alt text is the image's `alt`; without one the image is marked decorative (empty alt).
    for (const m of post.media.slice(0, 4)) images.append(img(m.display ?? m.file, '', m.alt_text ?? ''));
    body.append(images);
  }
  if (post.poll_data) {
    const poll = h('div', 'poll');
    fillPoll(poll, post.poll_data);
    el.append(poll);
  }
  if (post.audio_data) el.append(...renderAudio(post.audio_data));
  if (post.event_data) el.append(renderEvent(post.event_data));
  if (post.shared_product) el.append(renderProductShare(post.shared_product));
  if (post.shared_store) el.append(renderStoreShare(post.shared_store));
  if (post.shared_community) el.append(renderCommunityShare(post.shared_community));

  const stats = h('footer', 'post__stats');
  stats.append(stat('likes', '♥ ', post.likes_count, 'like', 'likes'), stat('comments', '', post.comments_count, 'comment', 'comments'));
  el.append(stats);
  return el;
}

function fillPoll(poll, data) {
  poll.replaceChildren();
  poll.dataset.totalVotes = String(data.total_votes);
  poll.append(h('p', 'poll__question', data.question));
  const options = h('ol', 'poll__options');
  for (const option of [...data.options].sort((a, b) => a.order - b.order)) {
    const row = h('li', 'poll__option');
    row.dataset.optionId = option.id;
    const bar = h('span', 'poll__bar');
    // CSSOM, not a style attribute: allowed by the page's style-src 'self'.
    bar.style.width = `${option.percentage}%`;
    const line = h('span', 'poll__row');
    line.append(h('span', 'poll__label', option.option_text), h('span', 'poll__percent', `${Math.round(option.percentage)}%`));
    row.append(bar, line);
    options.append(row);
  }
  poll.append(options);
  const votes = `${data.total_votes} ${data.total_votes === 1 ? 'vote' : 'votes'}`;
  poll.append(h('p', 'poll__total', data.is_expired ? `${votes} · closed` : `${votes} · open until ${shortDate(data.expires_at)}`));
}

/** An event: when (a <time> the screen reader reads in full), where, and how many are going. */
function renderEvent(event) {
  const box = h('div', 'event');
  const when = h('time', 'event__when', eventDate(event.starts_at) + (event.ends_at ? ` – ${eventDate(event.ends_at, event.starts_at)}` : ''));
  when.dateTime = event.starts_at;
  box.append(when);
  const where = [event.place_name, event.address].filter(Boolean).join(', ');
  if (where) box.append(h('span', 'event__where', where));
  const going = `${event.going_count}${event.capacity ? ` of ${event.capacity}` : ''} going`;
  box.append(h('span', 'event__going', event.interested_count ? `${going} · ${event.interested_count} interested` : going));
  return box;
}

function eventDate(iso, sameDayAs) {
  const d = new Date(iso);
  if (sameDayAs && new Date(sameDayAs).toDateString() === d.toDateString()) return d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return d.toLocaleString([], { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
}

function renderAudio(audio) {
  const line = h('p', 'post__audio');
  line.append(h('span', 'post__audio-icon', '♪'), h('span', '', `Audio · ${duration(audio.duration_seconds)}`));
  return audio.transcription ? [line, h('p', 'post__transcript', audio.transcription)] : [line];
}

function renderProductShare(product) {
  const box = h('figure', 'share share--product');
  const picture = product.images?.[0]?.url ?? product.images?.[0]?.image;
  if (picture) box.append(img(thumbnail(picture), 'share__image'));
  const body = h('figcaption', 'share__body');
  body.append(h('span', 'share__name', product.name ?? 'A product'));
  if (product.price) body.append(h('span', 'share__price', product.price));
  if (product.store?.name) body.append(h('span', 'share__note', `at ${product.store.name}`));
  box.append(body);
  return box;
}

function renderStoreShare(store) {
  const box = h('figure', 'share share--store');
  if (store.logo) box.append(img(thumbnail(store.logo), 'share__image'));
  const body = h('figcaption', 'share__body');
  body.append(h('span', 'share__name', store.name ?? 'A shop'));
  if (store.description) body.append(h('span', 'share__note', store.description));
  box.append(body);
  return box;
}

function renderCommunityShare(community) {
  const box = h('figure', 'share share--community');
  if (community.avatar) box.append(img(thumbnail(community.avatar), 'share__image'));
  const body = h('figcaption', 'share__body');
  body.append(h('span', 'share__name', community.name ?? 'A community'));
  if (community.description) body.append(h('span', 'share__note', community.description));
  box.append(body);
  return box;
}

function stat(kind, icon, value, one, many) {
  const el = h('span', `post__stat post__stat--${kind}`);
  el.dataset.stat = kind;
  el.dataset.one = one;
  el.dataset.many = many;
  // Glyphs every system font has: a display box often has no colour emoji font.
  el.append(h('span', 'post__stat-icon', icon), h('span', 'post__stat-value', String(value)), h('span', 'post__stat-label', ` ${value === 1 ? one : many}`));
  return el;
}

function setStat(postEl, kind, value, changed) {
  const el = postEl.querySelector(`[data-stat="${kind}"]`);
  if (!el) return;
  el.querySelector('.post__stat-value').textContent = String(value);
  el.querySelector('.post__stat-label').textContent = ` ${value === 1 ? el.dataset.one : el.dataset.many}`;
  if (changed) {
    el.classList.add('post__stat--bumped');
    setTimeout(() => el.classList.remove('post__stat--bumped'), 3000);
  }
}

function avatar(user) {
  if (user.profile_picture) return img(thumbnail(user.profile_picture), 'avatar');
  const name = (user.display_name || user.username || '?').trim();
  return h('span', 'avatar', [...name][0]?.toUpperCase() ?? '?');
}

// ---------- shops and products of the place ----------

/**
 * The marketplace pushes no event for new shops or products to a location's room, so the page reads its lists
 * at load, after every reconnection and every few minutes. Where the service has no marketplace (unknown
 * operation), the column stays hidden.
 */
async function refreshMarket() {
  const [stores, products] = await Promise.all([
    client.call('stores.list', { location: locationId, page_size: MARKET_ITEMS }).catch(() => null),
    client.call('products.by_location', { location_id: locationId, page_size: MARKET_ITEMS }).catch(() => null),
  ]);
  const storeItems = stores?.results ?? [];
  const productItems = (products?.products ?? []).slice(0, MARKET_ITEMS);
  if (typeof stores?.count === 'number') setCount('count-stores', stores.count);
  fillMarket('stores', storeItems, (s) => [s.logo, s.name, s.description || (s.owner ? `by ${s.owner.display_name}` : '')]);
  fillMarket('products', productItems, (p) => [p.images?.[0]?.image ?? p.images?.[0]?.url, p.name, [p.price, p.store?.name].filter(Boolean).join(' · ')]);
  const tagItems = await refreshTrending();
  $('market').hidden = storeItems.length === 0 && productItems.length === 0 && tagItems.length === 0;
}

// ---------- trending tags near the place (search.trending_tags: last 24 h, by people) ----------

async function refreshTrending() {
  const trending = await client.call('search.trending_tags', { location_id: locationId }).catch(() => null);
  const items = trending?.results ?? [];
  $('tags').replaceChildren(
    ...items.map((t) => {
      const li = h('li', 'tags__item');
      li.append(h('span', 'tags__name', `#${t.tag}`), h('span', 'tags__note', t.people_count === 1 ? '1 person' : `${t.people_count} people`));
      return li;
    }),
  );
  $('tags-section').hidden = items.length === 0;
  if (items.length) $('market').hidden = false;
  return items;
}

/** A new tagged post here: read the trending tags again, once for a burst of posts. */
let trendingTimer = null;
function scheduleTrending() {
  if (trendingTimer) return;
  trendingTimer = setTimeout(() => {
    trendingTimer = null;
    if (client.status === 'live') void refreshTrending();
  }, 5000);
}

function fillMarket(kind, items, describe) {
  const list = $(kind);
  list.replaceChildren(
    ...items.map((item) => {
      const [picture, name, note] = describe(item);
      const li = h('li', 'market__item');
      li.dataset.id = item.id;
      li.append(picture ? img(thumbnail(picture), 'market__image') : h('span', 'market__image'));
      const text = h('span', 'market__text');
      text.append(h('span', 'market__name', name), h('span', 'market__note', note));
      li.append(text);
      return li;
    }),
  );
  $(`${kind}-section`).hidden = items.length === 0;
}

setInterval(() => {
  if (client.status === 'live') void refreshMarket();
}, MARKET_REFRESH_MS);

// ---------- header: counts, status, clock ----------

function readCount(id) {
  return Number($(id)?.querySelector('.count__value')?.textContent ?? 0);
}

function setCount(id, value) {
  const el = $(id);
  if (!el) return;
  el.querySelector('.count__value').textContent = String(value);
  const label = el.querySelector('.count__label');
  label.textContent = value === 1 ? label.dataset.one : label.dataset.many;
}

function setPostCount(value) {
  postCount = value;
  setCount('count-posts', value);
}

function setStatus(status, text) {
  document.body.dataset.status = status;
  $('status').querySelector('.status__text').textContent = text;
}

function tick() {
  $('clock').textContent = new Date().toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  for (const el of postsList.querySelectorAll('.post__time')) el.textContent = relativeTime(el.dateTime);
}
tick();
setInterval(tick, 20_000);

// ---------- small helpers ----------

/** An element with a class and, optionally, its text (always textContent). */
function h(tag, className, text) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined && text !== null) el.textContent = String(text);
  return el;
}

/**
 * Images are shown from their WebP variants (docs/modules/media.md): a screen never downloads a 12-megapixel original.
 * Avatars, logos and share pictures use the 320 px thumbnail; a post's own pictures use the 1280 px display size
 * (given on each media item). An image an older release stored has no variants and is shown as it is.
 */
const VARIANT_NAME = /(\/[0-9a-f]{32}\.\d+x\d+\.[\w-]+)\.(?:jpg|png|webp|gif)$/;

function thumbnail(src) {
  return typeof src === 'string' ? src.replace(VARIANT_NAME, '$1.320.webp') : src;
}

function img(src, className, alt = '') {
  const el = h('img', className);
  el.alt = alt;
  el.loading = 'lazy';
  el.decoding = 'async';
  el.referrerPolicy = 'no-referrer';
  // Only http(s) URLs from the service; anything else is left out rather than handed to the browser.
  if (/^https?:\/\//i.test(src)) el.src = src;
  return el;
}

const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

function relativeTime(iso) {
  const seconds = Math.round((new Date(iso).getTime() - Date.now()) / 1000);
  if (Math.abs(seconds) < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (Math.abs(minutes) < 60) return rtf.format(minutes, 'minute');
  const hours = Math.round(minutes / 60);
  if (Math.abs(hours) < 24) return rtf.format(hours, 'hour');
  return rtf.format(Math.round(hours / 24), 'day');
}

function shortDate(iso) {
  return new Date(iso).toLocaleString([], { weekday: 'short', hour: '2-digit', minute: '2-digit' });
}

function duration(seconds) {
  const s = Math.max(0, Math.round(seconds || 0));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
