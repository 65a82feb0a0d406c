import type { ExportSection } from '../../core/leaving.js';
import { eventRsvpsExport, pollVotesExport, postBookmarksExport, postLikesExport, postsExport, postVersionsExport } from '../posts/posts.export.js';
import { commentBookmarksExport, commentLikesExport, commentsExport, commentVersionsExport } from '../comments/comments.export.js';
import { messagesExport } from '../messages/messages.export.js';
import { productsExport, reviewsExport, storesExport } from '../stores/stores.export.js';
import { ordersAsBuyerExport, ordersAsSellerExport } from '../stores/orders.export.js';
import { communitiesOwnedExport, communityMembershipsExport } from '../communities/communities.export.js';
import { nameSuggestionsExport } from '../locations/locations.export.js';
import { blocksExport, mutesExport, reportsExport } from '../safety/safety.export.js';
import { webhooksExport } from '../webhooks/webhooks.export.js';
import { pushDevicesExport } from '../push/push.export.js';

/**
 * The sections of an account's export (`GET /api/users/profile/export/`), in the document's order. A module that
 * keeps something a person wrote or owns adds its section here (its `*.export.ts`).
 */
export const EXPORT_SECTIONS: readonly ExportSection[] = [
  postsExport,
  commentsExport,
  postVersionsExport,
  commentVersionsExport,
  messagesExport,
  storesExport,
  productsExport,
  ordersAsBuyerExport,
  ordersAsSellerExport,
  reviewsExport,
  communitiesOwnedExport,
  communityMembershipsExport,
  postLikesExport,
  postBookmarksExport,
  commentLikesExport,
  commentBookmarksExport,
  pollVotesExport,
  eventRsvpsExport,
  nameSuggestionsExport,
  blocksExport,
  mutesExport,
  reportsExport,
  webhooksExport,
  pushDevicesExport,
];

export const EXPORT_SECTION_NAMES = EXPORT_SECTIONS.map((s) => s.name);
