import { notFound } from '../../core/errors.js';
import { findCommentHead, findPostHead } from './heads.js';
import { requireViewableComment, type Viewer } from './post-visibility.js';

/**
 * A comment known by its id, for whoever may read it (404 otherwise, as for an unknown one): its post by the one post
 * rule, then the comment's own moderation (itself or a comment above it) and a block with its author. Its replies,
 * its likes and bookmarks, and a report of it all ask here.
 */
export async function requireReadableComment(viewer: Viewer, commentId: string) {
  const comment = await findCommentHead(commentId);
  const post = comment && (await findPostHead(comment.postId));
  if (!comment || !post) throw notFound();
  await requireViewableComment(viewer, comment, { communityId: post.communityId, authorId: post.userId, hidden: post.hidden });
  return { comment, post };
}
