import type { AuthedContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { serverBaseUrl } from '../../core/server-base-url.js';
import type { ReportTargetType } from '../../models/index.js';
import { loadPost } from '../posts/posts.queries.js';
import { serializePost } from '../posts/posts.serializer.js';
import { requireViewablePost } from '../policy/post-visibility.js';
import { loadComment } from '../comments/comments.queries.js';
import { requireReadableComment } from '../policy/comment-visibility.js';
import { serializeComment } from '../comments/comments.serializer.js';
import { findMessage, isParticipant } from '../messages/messages.queries.js';
import { serializeMessage } from '../messages/messages.serializer.js';
import { findUserById } from '../users/users.queries.js';
import { serializeUserSummary } from '../users/users.serializer.js';
import { findStore } from '../stores/stores.queries.js';
import { serializeStore } from '../stores/stores.serializer.js';
import { STORE_NOT_FOUND } from '../stores/stores.service.js';
import { findProduct } from '../stores/products.queries.js';
import { serializeProduct } from '../stores/products.serializer.js';
import { findCommunity } from '../communities/communities.queries.js';
import { serializeCommunitySummary } from '../communities/communities.serializer.js';

/**
 * What can be reported, read as the reporter may read it (DESIGN.md section 9: only someone who can see a thing may
 * report it). Each kind is read through its own module's rule and answers what that module's read answers when the
 * reporter may not see it (404, with the same body); a message only for its conversation's participants.
 *
 * The snapshot is the thing as its module's read shows it, kept with the case (staff review what was reported, even
 * after an edit or a deletion), with URLs built on the server's base as pushed payloads are. A message's snapshot is
 * that message alone: staff never see the rest of the conversation.
 */
export interface ReportTarget {
  /** Whose it is: the author, the user itself, the store's (or product's store's) owner, the community's owner. */
  ownerId: string | null;
  snapshot: Record<string, unknown>;
}

type Loader = (ctx: AuthedContext, id: string) => Promise<ReportTarget>;

const urls = () => ({ baseUrl: serverBaseUrl() });

const loaders: Record<ReportTargetType, Loader> = {
  post: async (ctx, id) => {
    const post = await loadPost(id, null);
    if (!post) throw notFound();
    await requireViewablePost(ctx.user, { communityId: post.communityId, authorId: post.author.id, hidden: post.hidden });
    return { ownerId: post.author.id, snapshot: serializePost(post, urls()) };
  },
  comment: async (ctx, id) => {
    const { comment: head } = await requireReadableComment(ctx.user, id);
    const comment = await loadComment(id, null);
    if (!comment) throw notFound();
    return { ownerId: head.authorId, snapshot: serializeComment(comment, urls()) };
  },
  message: async (ctx, id) => {
    const message = await findMessage(id);
    if (!message || !(await isParticipant(message.conversationId, ctx.user.id))) throw notFound();
    return { ownerId: message.sender?.id ?? null, snapshot: serializeMessage(message, urls()) };
  },
  // As the public profile reads it: a deactivated account is not found.
  user: async (_ctx, id) => {
    const user = await findUserById(id);
    if (!user || !user.isActive) throw notFound();
    return { ownerId: user.id, snapshot: { ...serializeUserSummary(user, urls()), bio: user.bio ?? '', website: user.website ?? null } };
  },
  store: async (_ctx, id) => {
    const store = await findStore(id);
    if (!store) throw notFound(STORE_NOT_FOUND);
    return { ownerId: store.ownerId, snapshot: serializeStore(store, urls()) };
  },
  product: async (_ctx, id) => {
    const product = await findProduct(id);
    if (!product) throw notFound();
    return { ownerId: product.store.ownerId, snapshot: serializeProduct(product, urls()) };
  },
  community: async (_ctx, id) => {
    const community = await findCommunity(id);
    if (!community) throw notFound();
    return { ownerId: community.ownerId, snapshot: serializeCommunitySummary(community, urls()) };
  },
};

/** The thing `ctx.user` reports, or the refusal its own read would give. */
export function findReportableTarget(ctx: AuthedContext, type: ReportTargetType, id: string): Promise<ReportTarget> {
  return loaders[type](ctx, id);
}
