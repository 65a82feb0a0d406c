import type { AuthedContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { serverBaseUrl } from '../../core/server-base-url.js';
import type { ReportTargetType } from '../../models/index.js';
import { loadPost, loadPosts } from '../posts/posts.queries.js';
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
import type { CaseRow } from './moderation.queries.js';
import { serializeCase, type ModerationReportBody } from './reports.serializer.js';

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

/**
 * What staff see beside a case's snapshot (DESIGN.md section 13: "a report's snapshot keeps the version reported;
 * staff see the current one beside it"): a reported post's or comment's version now, whole (hidden or not), read as
 * the snapshot was (anonymous viewer, the server's base). Keyed `type:id`; absent for the other kinds, which have no
 * edit history, and for a thing that is gone. One query for the posts of a page, one per comment.
 */
export async function currentVersions(targets: ReadonlyArray<{ targetType: ReportTargetType; targetId: string }>): Promise<Map<string, Record<string, unknown>>> {
  const out = new Map<string, Record<string, unknown>>();
  const postIds = [...new Set(targets.filter((t) => t.targetType === 'post').map((t) => t.targetId))];
  for (const post of await loadPosts(postIds, null)) out.set(`post:${post.id}`, serializePost(post, urls()));
  for (const id of new Set(targets.filter((t) => t.targetType === 'comment').map((t) => t.targetId))) {
    const comment = await loadComment(id, null);
    if (comment) out.set(`comment:${id}`, serializeComment(comment, urls()));
  }
  return out;
}

/** A case as staff read it: its snapshot with the current version beside it. */
export async function caseBody(c: CaseRow, ctx: { baseUrl: string }): Promise<ModerationReportBody> {
  const current = await currentVersions([c]);
  return serializeCase(c, ctx, current.get(`${c.targetType}:${c.targetId}`) ?? null);
}
