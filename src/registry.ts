import type { Operation } from './core/operation.js';
import { accountOperations } from './modules/accounts/accounts.op.js';
import { userOperations } from './modules/users/users.op.js';
import { notificationOperations } from './modules/notifications/notifications.op.js';
import { locationOperations } from './modules/locations/locations.op.js';
import { postOperations } from './modules/posts/posts.op.js';
import { compatPostOperations } from './modules/posts/compat.op.js';
import { commentOperations } from './modules/comments/comments.op.js';
import { feedOperations } from './modules/feeds/feeds.op.js';

/** Every operation of the service: mounted as REST routes, Socket.IO events and OpenAPI paths. */
export const operations: readonly Operation[] = [
  ...accountOperations,
  ...userOperations,
  ...notificationOperations,
  ...locationOperations,
  ...postOperations,
  ...compatPostOperations,
  ...commentOperations,
  ...feedOperations,
];
// Realtime channels (core/channels.ts) register themselves when their module's operations are imported here.
