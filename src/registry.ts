import type { Operation } from './core/operation.js';
import { accountOperations } from './modules/accounts/accounts.op.js';
import { userOperations } from './modules/users/users.op.js';
import { accountAccessOperations } from './modules/accounts/account-access.op.js';
import { notificationOperations } from './modules/notifications/notifications.op.js';
import { locationOperations } from './modules/locations/locations.op.js';
import { postOperations } from './modules/posts/posts.op.js';
import { compatPostOperations } from './modules/posts/compat.op.js';
import { kindOperations } from './modules/posts/kinds.op.js';
import { commentOperations } from './modules/comments/comments.op.js';
import { communityOperations } from './modules/communities/communities.op.js';
import { messageOperations } from './modules/messages/messages.op.js';
import { storeOperations } from './modules/stores/stores.op.js';
import { productOperations } from './modules/stores/products.op.js';
import { orderOperations } from './modules/stores/orders.op.js';
import { reviewOperations } from './modules/stores/reviews.op.js';
import { feedOperations } from './modules/feeds/feeds.op.js';
import { syncOperations } from './modules/sync/sync.op.js';
import { safetyOperations } from './modules/safety/safety.op.js';
import { reportOperations } from './modules/safety/reports.op.js';
import { moderationOperations } from './modules/safety/moderation.op.js';
import { leavingOperations } from './modules/leaving/leaving.op.js';
import { webhookOperations } from './modules/webhooks/webhooks.op.js';
import { searchOperations } from './modules/search/search.op.js';
import { pushOperations } from './modules/push/push.op.js';
import { notificationPreferenceOperations } from './modules/notifications/preferences.op.js';
import { digestOperations } from './modules/notifications/digest.op.js';

/** Every operation of the service: mounted as REST routes, Socket.IO events and OpenAPI paths. */
export const operations: readonly Operation[] = [
  ...accountOperations,
  ...userOperations,
  ...accountAccessOperations,
  ...notificationOperations,
  ...locationOperations,
  ...postOperations,
  ...compatPostOperations,
  ...kindOperations,
  ...commentOperations,
  ...communityOperations,
  ...messageOperations,
  ...storeOperations,
  ...productOperations,
  ...orderOperations,
  ...reviewOperations,
  ...feedOperations,
  ...syncOperations,
  ...safetyOperations,
  ...reportOperations,
  ...moderationOperations,
  ...leavingOperations,
  ...webhookOperations,
  ...searchOperations,
  ...pushOperations,
  ...notificationPreferenceOperations,
  ...digestOperations,
];
// Realtime channels (core/channels.ts) register themselves when their module's operations are imported here.
