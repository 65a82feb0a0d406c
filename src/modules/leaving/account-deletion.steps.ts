import type { AccountDeletionStep } from '../../core/leaving.js';
import { accountsLeaving } from '../accounts/accounts.leaving.js';
import { communitiesLeaving } from '../communities/communities.leaving.js';
import { postsLeaving } from '../posts/posts.leaving.js';
import { commentsLeaving } from '../comments/comments.leaving.js';
import { ordersLeaving } from '../stores/orders.leaving.js';
import { storesLeaving } from '../stores/stores.leaving.js';
import { messagesLeaving } from '../messages/messages.leaving.js';
import { safetyLeaving } from '../safety/safety.leaving.js';
import { locationsLeaving } from '../locations/locations.leaving.js';
import { notificationsLeaving } from '../notifications/notifications.leaving.js';
import { usersLeaving } from '../users/users.leaving.js';
import { webhooksLeaving } from '../webhooks/webhooks.leaving.js';
import { pushLeaving } from '../push/push.leaving.js';

/**
 * Every module's part of an account deletion, run in this order in one transaction, then the user row is deleted.
 * A table that references users must be answered for by one of these steps (`handles`): the coverage test reads every
 * such foreign key from the database and fails otherwise (tests/api/account-deletion-coverage.test.ts).
 *
 * The order matters where one step's rows are another's:
 * - sessions end first (accounts);
 * - owned communities pass on or go before posts and memberships are counted (communities, then posts);
 * - posts before comments (comments on the account's own posts go with those posts, under the post's tombstone);
 * - orders before stores (open orders are cancelled while their products still exist, to restock them);
 * - notifications after every step that notifies someone (cancelled orders, a community's new owner);
 * - users last (the profile's own files).
 */
export const ACCOUNT_DELETION_STEPS: readonly AccountDeletionStep[] = [
  accountsLeaving,
  communitiesLeaving,
  postsLeaving,
  commentsLeaving,
  ordersLeaving,
  storesLeaving,
  messagesLeaving,
  safetyLeaving,
  locationsLeaving,
  notificationsLeaving,
  webhooksLeaving,
  pushLeaving,
  usersLeaving,
];
