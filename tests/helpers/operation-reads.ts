import type { TestApp } from './test-app.js';
import type { TestUser } from '../builders/users.js';
import { aComment, aNeighbourhood, aPoll, aPost, aResidentOf } from '../builders/posts.js';
import { aCommunity, aCategoryId, joinCommunity } from '../builders/communities.js';
import { aConversation, aMessage } from '../builders/messages.js';
import { aProduct, aStore, anOrder } from '../builders/stores.js';
import { aBlock, aMute } from '../builders/safety.js';
import { aResident } from '../builders/locations.js';

/**
 * One small neighbourhood with something of everything, and for every read (GET) operation of the table, who
 * reads and with what input. Reads change nothing, so both transports read the same state.
 */
export interface ReadWorld {
  founder: TestUser;
  member: TestUser;
  admin: TestUser;
  locationId: string;
  city: string;
  postId: string;
  commentId: string;
  communityId: string;
  conversationId: string;
  storeId: string;
  productId: string;
  since: string;
  webhookId: string;
  /** An event post (issue 38), for its calendar. */
  eventId: string;
}

/**
 * Where the tables' webhooks point: a closed loopback port (the test apps allow private endpoints), so a delivery
 * fails at once and no packet leaves the machine.
 */
export const CLOSED_LOOPBACK_HOOK = 'http://127.0.0.1:1/till';

/** A store's webhook for its orders, made by its owner. */
export async function aStoreWebhook(app: TestApp, owner: TestUser, storeId: string): Promise<string> {
  const res = await app.rest('POST', '/api/webhooks/', { token: owner.token, body: { url: CLOSED_LOOPBACK_HOOK, events: ['order.created'], store_id: storeId } });
  if (res.status !== 201) throw new Error(`webhook answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

export async function aReadWorld(app: TestApp, admin: TestUser): Promise<ReadWorld> {
  const since = new Date(Date.now() - 1000).toISOString();
  const place = await aNeighbourhood(app);
  const founder = place.founder;
  const member = await aResidentOf(app, place);
  const post = await aPost(app, founder, { content: `Market on Sunday, ask @${member.username}` });
  await aPoll(app, founder);
  const comment = await aComment(app, member, post.id);
  await aComment(app, founder, post.id, { parent: comment.id });
  // Edited once each, so the history reads have a version to list.
  await app.rest('PATCH', `/api/feed/posts/${post.id}/`, { token: founder.token, body: { content: `Market on Saturday, ask @${member.username}` } });
  await app.rest('PATCH', `/api/posts/comments/${comment.id}/`, { token: member.token, body: { content: 'I will be there' } });
  await app.rest('POST', `/api/feed/posts/${post.id}/like/`, { token: member.token });
  await app.rest('POST', `/api/feed/posts/${post.id}/bookmark/`, { token: member.token });
  const community = await aCommunity(app, founder, { category: await aCategoryId(app, founder) });
  await joinCommunity(app, member, community.id);
  const conversation = await aConversation(app, founder, member);
  await aMessage(app, member, conversation.id, 'See you at the market');
  const store = await aStore(app, founder);
  const product = await aProduct(app, founder, store.id);
  await anOrder(app, member, product.id);
  await app.rest('POST', '/api/stores/reviews/', { token: member.token, body: { product: product.id, rating: 5, comment: 'Lovely' } });
  const stranger = await aResident(app);
  await aBlock(app, founder, stranger);
  await aMute(app, founder, await aResident(app));
  await app.rest('POST', `/api/locations/locations/${place.locationId}/suggest_name/`, { token: member.token, body: { name: 'Market Corner' } });
  const webhookId = await aStoreWebhook(app, founder, store.id);
  const event = await aPost(app, founder, { post_type: 'event', title: 'Market day', content: '', event_starts_at: new Date(Date.now() + 86_400_000).toISOString(), event_capacity: 20 });
  await app.rest('POST', `/api/feed/posts/${event.id}/rsvp/`, { token: member.token, body: { status: 'going' } });
  await aPost(app, member, { post_type: 'recommendation', content: 'Lovely shop', recommended_store_id: store.id });
  return {
    founder,
    member,
    admin,
    locationId: place.locationId,
    city: place.city,
    postId: post.id,
    commentId: comment.id,
    communityId: community.id,
    conversationId: conversation.id,
    storeId: store.id,
    productId: product.id,
    since,
    webhookId,
    eventId: event.id,
  };
}

type Read = (w: ReadWorld) => { as: TestUser | null; input: Record<string, unknown> };

export const reads: Record<string, Read> = {
  'users.profile': (w) => ({ as: w.founder, input: {} }),
  'users.get': (w) => ({ as: null, input: { username: w.founder.username } }),
  'users.search': (w) => ({ as: w.founder, input: { query: w.member.username } }),
  'users.nearby': (w) => ({ as: w.founder, input: { page_size: 5 } }),
  'notifications.list': (w) => ({ as: w.founder, input: {} }),
  'locations.name_suggestions': (w) => ({ as: w.founder, input: { location_id: w.locationId } }),
  'locations.nearby': (w) => ({ as: w.founder, input: { latitude: -52.5, longitude: -120.25, max_distance: 2 } }),
  'locations.search': (w) => ({ as: w.founder, input: { q: w.city } }),
  'locations.list': (w) => ({ as: w.founder, input: { city: w.city } }),
  'locations.detail': (w) => ({ as: w.founder, input: { location_id: w.locationId } }),
  'locations.analytics': (w) => ({ as: w.admin, input: {} }),
  'locations.suggestions': (w) => ({ as: w.member, input: { location_id: w.locationId, my_suggestions: 'true' } }),
  'locations.legacy_list': (w) => ({ as: w.founder, input: { city: w.city } }),
  'locations.legacy_detail': (w) => ({ as: w.founder, input: { location_id: w.locationId } }),
  'posts.get': (w) => ({ as: w.member, input: { post_id: w.postId } }),
  'posts.history': (w) => ({ as: null, input: { post_id: w.postId } }),
  'posts.event_ics': (w) => ({ as: w.member, input: { post_id: w.eventId } }),
  'posts.events_ics': (w) => ({ as: null, input: { location_id: w.locationId } }),
  'stores.recommendations': (w) => ({ as: null, input: { store_id: w.storeId } }),
  'posts.liked': (w) => ({ as: w.member, input: {} }),
  'posts.bookmarked': (w) => ({ as: w.member, input: { page_size: 1 } }),
  'posts.popular_locations': () => ({ as: null, input: {} }),
  'posts.user_analytics': (w) => ({ as: w.founder, input: {} }),
  'posts.by_location': (w) => ({ as: null, input: { location_id: w.locationId } }),
  'comments.list': (w) => ({ as: null, input: { post_id: w.postId, page_size: 1 } }),
  'comments.replies': (w) => ({ as: w.member, input: { parent_id: w.commentId } }),
  'comments.history': (w) => ({ as: w.member, input: { comment_id: w.commentId } }),
  'communities.list': (w) => ({ as: w.founder, input: { search: 'Club' } }),
  'communities.get': (w) => ({ as: w.member, input: { community_id: w.communityId } }),
  'communities.members': (w) => ({ as: w.member, input: { community_id: w.communityId } }),
  'communities.categories': (w) => ({ as: w.member, input: {} }),
  'messages.conversations': (w) => ({ as: w.founder, input: {} }),
  'messages.conversation': (w) => ({ as: w.founder, input: { conversation_id: w.conversationId } }),
  'messages.list': (w) => ({ as: w.member, input: { conversation_id: w.conversationId } }),
  'stores.list': (w) => ({ as: null, input: { location: w.locationId } }),
  'stores.get': (w) => ({ as: null, input: { store_id: w.storeId } }),
  'stores.my_store': (w) => ({ as: w.founder, input: {} }),
  'products.list': (w) => ({ as: null, input: { store: w.storeId } }),
  'products.by_location': (w) => ({ as: null, input: { location_id: w.locationId } }),
  'products.get': (w) => ({ as: w.member, input: { product_id: w.productId } }),
  'orders.list': (w) => ({ as: w.founder, input: { role: 'seller' } }),
  'reviews.list': (w) => ({ as: null, input: { product: w.productId } }),
  'feeds.neighbourhood': (w) => ({ as: w.member, input: { page_size: 5 } }),
  'feeds.general': (w) => ({ as: w.member, input: { page_size: 5 } }),
  'feeds.location': (w) => ({ as: w.member, input: { location_id: w.locationId } }),
  'feeds.enhancements.users': (w) => ({ as: w.member, input: { location_id: w.locationId } }),
  'feeds.enhancements.stores': (w) => ({ as: w.member, input: { location_id: w.locationId } }),
  'feeds.enhancements.communities': (w) => ({ as: w.member, input: { location_id: w.locationId } }),
  'realtime.sync': (w) => ({ as: w.member, input: { since: w.since } }),
  'safety.blocks_list': (w) => ({ as: w.founder, input: {} }),
  'safety.mutes_list': (w) => ({ as: w.founder, input: {} }),
  'safety.reports_list': (w) => ({ as: w.member, input: {} }),
  'admin.reports_list': (w) => ({ as: w.admin, input: { status: 'resolved', page_size: 5 } }),
  'admin.moderation_log': (w) => ({ as: w.admin, input: { page_size: 5 } }),
  'users.profile_export': (w) => ({ as: w.member, input: {} }),
  'users.profile_export_section': (w) => ({ as: w.member, input: { section: 'posts' } }),
  'webhooks.list': (w) => ({ as: w.founder, input: {} }),
  'webhooks.read': (w) => ({ as: w.founder, input: { webhook_id: w.webhookId } }),
  'webhooks.deliveries': (w) => ({ as: w.founder, input: { webhook_id: w.webhookId } }),
  'push.list': (w) => ({ as: w.founder, input: {} }),
  'push.vapid_public_key': () => ({ as: null, input: {} }),
  'notifications.preferences': (w) => ({ as: w.founder, input: {} }),
  'notifications.unread_count': (w) => ({ as: w.founder, input: {} }),
  'search.query': (w) => ({ as: w.member, input: { q: 'market' } }),
  'search.trending_tags': (w) => ({ as: null, input: { location_id: w.locationId } }),
  'feeds.tag': (w) => ({ as: w.member, input: { tag: 'market', location_id: w.locationId } }),
};
