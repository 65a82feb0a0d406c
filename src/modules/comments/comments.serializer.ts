import { z } from 'zod';
import type { RequestContext } from '../../core/context.js';
import { mediaUrl } from '../users/users.serializer.js';
import { zPostAuthor } from '../posts/posts.serializer.js';
import type { CommentRecord } from './comments.queries.js';

/** The contract's Comment resource, for answers and for `comment:created` (anonymous viewer). */
export const zCommentBody = z
  .object({
    id: z.string(),
    user: zPostAuthor,
    post: z.string(),
    content: z.string(),
    parent: z.string().nullable(),
    replies_count: z.number().int(),
    likes_count: z.number().int(),
    bookmarks_count: z.number().int(),
    views_count: z.number().int(),
    has_liked: z.boolean(),
    has_bookmarked: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
    edited_at: z.string().nullable().describe('When its author last changed its text; null until then (earlier versions: GET /api/posts/comments/{comment_id}/history/)'),
    tags: z.array(z.string()).describe('Its hashtags, lower case, in order of first use'),
  })
  .meta({ id: 'Comment' });
export type CommentBody = z.infer<typeof zCommentBody>;

export function serializeComment(c: CommentRecord, ctx: Pick<RequestContext, 'baseUrl'>): CommentBody {
  return {
    id: c.id,
    user: { id: c.author.id, username: c.author.username, display_name: c.author.displayName, profile_picture: mediaUrl(c.author.profilePicture, ctx.baseUrl) },
    post: c.postId,
    content: c.content,
    parent: c.parentId,
    replies_count: c.repliesCount,
    likes_count: c.likesCount,
    bookmarks_count: c.bookmarksCount,
    views_count: c.viewsCount,
    has_liked: c.hasLiked,
    has_bookmarked: c.hasBookmarked,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
    edited_at: c.editedAt?.toISOString() ?? null,
    tags: c.tags,
  };
}
