import crypto from 'node:crypto';
import { eventually, unique, type TestApp } from './test-app.js';
import { CLOSED_LOOPBACK_HOOK, aStoreWebhook } from './operation-reads.js';
import type { TestUser } from '../builders/users.js';
import { aComment, aNeighbourhood, aPoll, aPost, aResidentOf } from '../builders/posts.js';
import { aCommunity, aCategoryId, joinCommunity } from '../builders/communities.js';
import { aConversation, aMessage } from '../builders/messages.js';
import { aProduct, aStore, anOrder } from '../builders/stores.js';
import { aBlock, aMute, aReport } from '../builders/safety.js';
import { sql } from './sql.js';
import { aLocation, aRemoteSpot, aResident } from '../builders/locations.js';
import { aNotification } from '../builders/notifications.js';
import { unsubscribeToken } from '../../src/modules/notifications/digest.js';

/**
 * For every operation that changes something, how to arrange a fresh case of it: the caller and the input. Each
 * transport gets its own case (a toggle or a delete cannot run twice on one object), so the answers are compared
 * with their own ids, times and names set aside.
 */
type Write = (app: TestApp, admin: TestUser) => Promise<{ as: TestUser | null; input: Record<string, unknown> }>;

const newAccount = () => {
  const username = unique('acct');
  return { email: `${username}@example.test`, username, display_name: `Account ${username}`, password: 'correct-horse-battery' };
};

/** A store with a product, owned by a resident of a fresh place; a second resident to buy. */
async function aShop(app: TestApp) {
  const place = await aNeighbourhood(app);
  const store = await aStore(app, place.founder);
  const product = await aProduct(app, place.founder, store.id);
  return { owner: place.founder, store, product, buyer: await aResidentOf(app, place) };
}

export const writes: Record<string, Write> = {
  'accounts.register': async () => ({ as: null, input: newAccount() }),
  'admin.users_create': async (_app, admin) => ({ as: admin, input: newAccount() }),
  'accounts.login': async (app) => {
    const user = await aResident(app);
    return { as: null, input: { username: user.username, password: user.password } };
  },
  'accounts.refresh': async (app) => ({ as: null, input: { refresh: (await aResident(app)).refresh } }),
  'accounts.logout': async (app) => ({ as: null, input: { refresh: (await aResident(app)).refresh } }),
  'accounts.password_reset_request': async (app) => ({ as: null, input: { email: (await aResident(app)).email } }),
  'accounts.password_reset_confirm': async (app) => ({ as: null, input: { email: (await aResident(app)).email, otp: '123456', new_password: 'another-horse-battery' } }),
  'users.profile_update': async (app) => ({ as: await aResident(app), input: { display_name: 'Renamed', bio: 'Likes the market' } }),
  'users.profile_patch': async (app) => ({ as: await aResident(app), input: { bio: 'Patched bio', website: 'https://example.org' } }),
  'users.update_location': async (app) => ({ as: await aResident(app), input: { country: 'Postland', city: unique('City ') } }),
  'admin.users_update': async (app, admin) => ({ as: admin, input: { username: (await aResident(app)).username, is_verified: true } }),
  'notifications.update': async (app) => {
    const user = await aResident(app);
    const notification = await aNotification(app, user.id);
    return { as: user, input: { notification_id: notification.id, is_read: true } };
  },
  'locations.smart_update': async (app) => ({ as: await aResident(app), input: { ...aRemoteSpot(), geocoded_data: { address: { country: 'Testland', city: unique('Spot ') } } } }),
  'locations.suggest_name': async (app) => {
    const place = await aLocation(app);
    return { as: place.residents[0], input: { location_id: place.id, name: 'Harbour Green' } };
  },
  'locations.flag_for_review': async (app) => {
    const place = await aLocation(app);
    return { as: place.residents[0], input: { location_id: place.id, reason: 'The name is wrong' } };
  },
  'locations.update_boundary': async (app, admin) => ({ as: admin, input: { location_id: (await aLocation(app)).id } }),
  'admin.locations_update': async (app, admin) => ({ as: admin, input: { location_id: (await aLocation(app)).id, needs_verification: true } }),
  'posts.create': async (app) => ({ as: (await aNeighbourhood(app)).founder, input: { post_type: 'text', content: 'Fresh bread at eight', title: 'Bakery' } }),
  'posts.delete': async (app) => {
    const place = await aNeighbourhood(app);
    return { as: place.founder, input: { post_id: (await aPost(app, place.founder)).id } };
  },
  'posts.edit': async (app) => {
    const place = await aNeighbourhood(app);
    const post = await aPost(app, place.founder, { content: 'Lost keys by the fountain' });
    return { as: place.founder, input: { post_id: post.id, content: 'Found keys by the fountain', content_warning: 'Spoilers' } };
  },
  'posts.like': async (app) => aReaction(app),
  'posts.rsvp': async (app) => {
    const place = await aNeighbourhood(app);
    const event = await aPost(app, place.founder, { post_type: 'event', title: 'Street party', event_starts_at: new Date(Date.now() + 86_400_000).toISOString() });
    return { as: await aResidentOf(app, place), input: { post_id: event.id, status: 'going' } };
  },
  'posts.resolve': async (app) => {
    const place = await aNeighbourhood(app);
    const lost = await aPost(app, place.founder, { post_type: 'lost_found', content: 'Grey cat', lost_found_status: 'lost' });
    return { as: place.founder, input: { post_id: lost.id } };
  },
  'posts.bookmark': async (app) => aReaction(app),
  'posts.like_simple': async (app) => aReaction(app),
  'posts.track_view': async (app) => ({ ...(await aReaction(app)), as: null }),
  'posts.vote_poll': async (app) => {
    const place = await aNeighbourhood(app);
    const poll = await aPoll(app, place.founder);
    return { as: await aResidentOf(app, place), input: { post_id: poll.id, option_id: poll.poll_data.options[1].id } };
  },
  'posts.create_simple': async (app) => {
    const place = await aNeighbourhood(app);
    return { as: place.founder, input: { content: 'Lost keys by the fountain', location_id: place.locationId } };
  },
  'comments.create': async (app) => {
    const { as, input } = await aReaction(app);
    return { as, input: { post: input.post_id, content: 'Count me in', parent: null } };
  },
  'comments.create_simple': async (app) => {
    const { as, input } = await aReaction(app);
    return { as, input: { post_id: input.post_id, content: 'Count me in' } };
  },
  'comments.delete': async (app) => {
    const { as, input } = await aReaction(app);
    return { as, input: { comment_id: (await aComment(app, as!, input.post_id as string)).id } };
  },
  'comments.edit': async (app) => {
    const { as, input } = await aReaction(app);
    return { as, input: { comment_id: (await aComment(app, as!, input.post_id as string)).id, content: 'Count me out' } };
  },
  'comments.like': async (app) => aCommentReaction(app),
  'comments.bookmark': async (app) => aCommentReaction(app),
  'communities.create': async (app) => {
    const owner = await aResident(app);
    return { as: owner, input: { name: unique('Club '), description: 'Walks on Sundays', category: await aCategoryId(app, owner) } };
  },
  'communities.update': async (app) => {
    const owner = await aResident(app);
    return { as: owner, input: { community_id: (await aCommunity(app, owner)).id, description: 'Walks on Saturdays now' } };
  },
  'communities.delete': async (app) => {
    const owner = await aResident(app);
    return { as: owner, input: { community_id: (await aCommunity(app, owner)).id } };
  },
  'communities.join': async (app) => ({ as: await aResident(app), input: { community_id: (await aCommunity(app, await aResident(app))).id } }),
  'communities.leave': async (app) => {
    const member = await aResident(app);
    const community = await aCommunity(app, await aResident(app));
    await joinCommunity(app, member, community.id);
    return { as: member, input: { community_id: community.id } };
  },
  'messages.open_conversation': async (app) => ({ as: await aResident(app), input: { participant_ids: [(await aResident(app)).id] } }),
  'messages.send': async (app) => {
    const [a, b] = [await aResident(app), await aResident(app)];
    return { as: a, input: { conversation_id: (await aConversation(app, a, b)).id, content: 'On my way' } };
  },
  'messages.read': async (app) => {
    const [a, b] = [await aResident(app), await aResident(app)];
    const conversation = await aConversation(app, a, b);
    await aMessage(app, a, conversation.id);
    return { as: b, input: { conversation_id: conversation.id } };
  },
  'stores.create': async (app) => {
    const slug = unique('shop');
    return { as: (await aNeighbourhood(app)).founder, input: { name: `Shop ${slug}`, slug, description: 'Jams and honey' } };
  },
  'stores.update': async (app) => {
    const shop = await aShop(app);
    return { as: shop.owner, input: { store_id: shop.store.id, name: 'Renamed shop', description: 'Now with cheese' } };
  },
  'stores.patch': async (app) => {
    const shop = await aShop(app);
    return { as: shop.owner, input: { store_id: shop.store.id, description: 'Closed on Mondays' } };
  },
  'stores.delete': async (app) => {
    const shop = await aShop(app);
    return { as: shop.owner, input: { store_id: shop.store.id } };
  },
  'stores.sync_location': async (app) => {
    const shop = await aShop(app);
    return { as: shop.owner, input: { store_id: shop.store.id } };
  },
  'admin.stores_update': async (app, admin) => ({ as: admin, input: { store_id: (await aShop(app)).store.id, is_verified: true } }),
  'products.create': async (app) => {
    const shop = await aShop(app);
    return { as: shop.owner, input: { store_id: shop.store.id, name: 'Rye loaf', category: 'food_beverage', stock: 3, price_type: 'fixed', price: '4.20' } };
  },
  'products.update': async (app) => {
    const shop = await aShop(app);
    return { as: shop.owner, input: { product_id: shop.product.id, name: 'Spelt loaf', category: 'food_beverage', stock: 7, price_type: 'fixed', price: '5.10' } };
  },
  'products.patch': async (app) => {
    const shop = await aShop(app);
    return { as: shop.owner, input: { product_id: shop.product.id, stock: 9 } };
  },
  'products.delete': async (app) => {
    const shop = await aShop(app);
    return { as: shop.owner, input: { product_id: shop.product.id } };
  },
  'orders.create': async (app) => {
    const shop = await aShop(app);
    return { as: shop.buyer, input: { product: shop.product.id, quantity: 2 } };
  },
  'orders.update': async (app) => {
    const shop = await aShop(app);
    const order = await anOrder(app, shop.buyer, shop.product.id);
    return { as: shop.owner, input: { order_id: order.id, status: 'processing' } };
  },
  'reviews.create': async (app) => {
    const shop = await aShop(app);
    return { as: shop.buyer, input: { product: shop.product.id, rating: 4, comment: 'Good crust' } };
  },
  'reviews.update': async (app) => {
    const { as, reviewId } = await aReview(app);
    return { as, input: { review_id: reviewId, rating: 3, comment: 'A bit dry today' } };
  },
  'reviews.delete': async (app) => {
    const { as, reviewId } = await aReview(app);
    return { as, input: { review_id: reviewId } };
  },
  'safety.blocks_create': async (app) => ({ as: await aResident(app), input: { user_id: (await aResident(app)).id } }),
  'safety.mutes_create': async (app) => ({ as: await aResident(app), input: { user_id: (await aResident(app)).id } }),
  'safety.blocks_delete': async (app) => {
    const [a, b] = [await aResident(app), await aResident(app)];
    await aBlock(app, a, b);
    return { as: a, input: { user_id: b.id } };
  },
  'safety.mutes_delete': async (app) => {
    const [a, b] = [await aResident(app), await aResident(app)];
    await aMute(app, a, b);
    return { as: a, input: { user_id: b.id } };
  },
  'safety.reports_create': async (app) => {
    const place = await aNeighbourhood(app);
    const post = await aPost(app, place.founder);
    return { as: await aResidentOf(app, place), input: { target_type: 'post', target_id: post.id, reason: 'spam', details: 'An advert' } };
  },
  'admin.reports_resolve': async (app, admin) => {
    const place = await aNeighbourhood(app);
    const post = await aPost(app, place.founder);
    await aReport(app, await aResidentOf(app, place), 'post', post.id);
    const [open] = await sql<{ id: string }>(`SELECT id FROM moderation_cases WHERE target_id = $1 AND status = 'open'`, [post.id]);
    return { as: admin, input: { id: open.id, action: 'dismiss', note: 'Fine' } };
  },
  'users.profile_delete': async (app) => {
    const user = await aResident(app);
    return { as: user, input: { password: user.password } };
  },
  'webhooks.create': async (app) => {
    const shop = await aShop(app);
    return { as: shop.owner, input: { url: CLOSED_LOOPBACK_HOOK, events: ['order.created', 'review.created'], store_id: shop.store.id, description: 'The till' } };
  },
  'webhooks.update': async (app) => {
    const { owner, webhookId } = await aShopWebhook(app);
    return { as: owner, input: { webhook_id: webhookId, description: 'The delivery app', events: ['order.updated'] } };
  },
  'webhooks.delete': async (app) => {
    const { owner, webhookId } = await aShopWebhook(app);
    return { as: owner, input: { webhook_id: webhookId } };
  },
  'webhooks.rotate_secret': async (app) => {
    const { owner, webhookId } = await aShopWebhook(app);
    return { as: owner, input: { webhook_id: webhookId } };
  },
  'webhooks.test': async (app) => {
    const { owner, webhookId } = await aShopWebhook(app);
    return { as: owner, input: { webhook_id: webhookId } };
  },
  'webhooks.redeliver': async (app) => {
    const { owner, webhookId } = await aShopWebhook(app);
    const sent = await app.rest('POST', `/api/webhooks/${webhookId}/test/`, { token: owner.token });
    if (sent.status !== 202) throw new Error(`test event answered ${sent.status} ${JSON.stringify(sent.body)}`);
    // Once its first attempt has failed (the closed port), the delivery stands still until its retry: both cases
    // are redelivered from the same state.
    const attempted = await eventually(async () => (await app.rest('GET', `/api/webhooks/${webhookId}/deliveries/`, { token: owner.token })).body.results?.[0]?.attempts >= 1, 15_000);
    if (!attempted) throw new Error('the test delivery was never attempted');
    return { as: owner, input: { webhook_id: webhookId, delivery_id: sent.body.id } };
  },
  // Devices point at a closed loopback port over https: refused at send time (not a public address), never reached.
  'push.subscribe': async (app) => ({ as: await aResident(app), input: aBrowserSubscription() }),
  'push.unsubscribe': async (app) => {
    const user = await aResident(app);
    const res = await app.rest('POST', '/api/push/subscriptions/', { token: user.token, body: aBrowserSubscription() });
    if (res.status !== 201) throw new Error(`push.subscribe answered ${res.status} ${JSON.stringify(res.body)}`);
    return { as: user, input: { subscription_id: res.body.id } };
  },
  'notifications.update_preferences': async (app) => ({
    as: await aResident(app),
    input: { push: { post_like: false }, email_digest: 'daily', previews: false, quiet_hours: { start: '22:30', end: '07:00', time_zone: 'Europe/Lisbon' } },
  }),
  'notifications.read_all': async (app) => {
    const user = await aResident(app);
    await aNotification(app, user.id);
    return { as: user, input: {} };
  },
  // The digest's one-click link (its token made by the app in this process, as the digest mail would carry it).
  'notifications.digest_unsubscribe': async (app) => {
    const user = await aResident(app);
    await app.rest('PUT', '/api/notifications/preferences/', { token: user.token, body: { email_digest: 'weekly' } });
    return { as: null, input: { token: unsubscribeToken(user.id), 'List-Unsubscribe': 'One-Click' } };
  },
};

/** A shop with a webhook for its orders. */
async function aShopWebhook(app: TestApp) {
  const shop = await aShop(app);
  return { owner: shop.owner, webhookId: await aStoreWebhook(app, shop.owner, shop.store.id) };
}

/** A neighbour's post and a resident who reacts to it. */
async function aReaction(app: TestApp) {
  const place = await aNeighbourhood(app);
  const post = await aPost(app, place.founder, { content: "Street party on Saturday" });
  return { as: (await aResidentOf(app, place)) as TestUser | null, input: { post_id: post.id } as Record<string, unknown> };
}

async function aCommentReaction(app: TestApp) {
  const place = await aNeighbourhood(app);
  const post = await aPost(app, place.founder);
  const comment = await aComment(app, place.founder, post.id);
  return { as: (await aResidentOf(app, place)) as TestUser | null, input: { comment_id: comment.id } as Record<string, unknown> };
}

async function aReview(app: TestApp) {
  const shop = await aShop(app);
  const res = await app.rest('POST', '/api/stores/reviews/', { token: shop.buyer.token, body: { product: shop.product.id, rating: 5, comment: 'Lovely' } });
  if (res.status !== 201) throw new Error(`review answered ${res.status} ${JSON.stringify(res.body)}`);
  return { as: shop.buyer as TestUser, reviewId: res.body.id as string };
}

/** What a browser's PushSubscription.toJSON() gives (a fresh P-256 key and auth secret), for a closed loopback port. */
function aBrowserSubscription() {
  const ecdh = crypto.createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    kind: 'webpush',
    endpoint: `https://127.0.0.1:9/push/${unique('device')}`,
    keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: crypto.randomBytes(16).toString('base64url') },
  };
}
