import { z } from 'zod';
import { created, defineOperation, noContent, ok, type RateLimitRule } from '../../core/operation.js';
import { zPaginated, zNoContent } from '../../core/response-schemas.js';
import { zPage, zPageSize, zUuid } from '../../core/validation.js';
import { READ_LIMIT, zText } from '../posts/posts.op.js';
import { createComment, deleteComment, listCommentReplies, listPostComments, toggleCommentBookmark, toggleCommentLike } from './comments.service.js';
import { zCommentBody } from './comments.serializer.js';
import { commentHistory, editComment, zCommentVersion } from './comment-edits.service.js';

const perUser = (points: number): RateLimitRule => ({ name: 'user', points, durationSeconds: 60, key: 'user' });
/** Comment text: 1 to 5,000 characters, not only spaces. */
export const zCommentText = () => zText().refine((s) => s.trim().length > 0, 'This field may not be blank.');

export const listPostCommentsOp = defineOperation({
  name: 'comments.list',
  method: 'GET',
  path: '/api/posts/posts/{post_id}/comments/',
  auth: 'optional',
  summary: "A post's top-level comments, oldest first",
  tags: ['comments'],
  input: z.object({ post_id: zUuid(), page: zPage(), page_size: zPageSize() }),
  rateLimits: [READ_LIMIT],
  responses: { 200: zPaginated(zCommentBody) },
  errors: [403],
  handler: async (input, ctx) => ok(await listPostComments(ctx, input)),
});

export const listRepliesOp = defineOperation({
  name: 'comments.replies',
  method: 'GET',
  path: '/api/posts/comments/replies/',
  auth: 'optional',
  summary: "A comment's direct replies, oldest first",
  tags: ['comments'],
  input: z.object({ parent_id: zUuid(), page: zPage(), page_size: zPageSize() }),
  rateLimits: [READ_LIMIT],
  responses: { 200: zPaginated(zCommentBody) },
  errors: [403],
  handler: async (input, ctx) => ok(await listCommentReplies(ctx, input)),
});

export const createCommentOp = defineOperation({
  name: 'comments.create',
  method: 'POST',
  path: '/api/posts/comments/',
  auth: 'user',
  summary: 'Comment on a post, or reply to a comment of it (`parent`)',
  tags: ['comments'],
  input: z.object({ post: zUuid(), content: zCommentText(), parent: z.preprocess((v) => (v === '' ? null : v), zUuid().nullable().optional()) }),
  rateLimits: [perUser(60)],
  responses: { 201: zCommentBody },
  errors: [403, 404],
  handler: async (input, ctx) => created(await createComment(ctx, input)),
});

export const deleteCommentOp = defineOperation({
  name: 'comments.delete',
  method: 'DELETE',
  path: '/api/posts/comments/{comment_id}/',
  auth: 'user',
  summary: 'Delete a comment and its replies (author only)',
  tags: ['comments'],
  input: z.object({ comment_id: zUuid() }),
  rateLimits: [perUser(60)],
  responses: { 204: zNoContent },
  errors: [403],
  handler: async (input, ctx) => {
    await deleteComment(ctx, input.comment_id);
    return noContent();
  },
});

export const editCommentOp = defineOperation({
  name: 'comments.edit',
  method: 'PATCH',
  path: '/api/posts/comments/{comment_id}/',
  auth: 'user',
  summary: "Edit a comment's content (author only); the version replaced is kept in its history",
  tags: ['comments'],
  input: z.object({ comment_id: zUuid(), content: zCommentText() }),
  rateLimits: [perUser(30)],
  responses: { 200: zCommentBody },
  errors: [403],
  handler: async (input, ctx) => ok(await editComment(ctx, input)),
});

export const commentHistoryOp = defineOperation({
  name: 'comments.history',
  method: 'GET',
  path: '/api/posts/comments/{comment_id}/history/',
  auth: 'optional',
  summary: 'Earlier versions of a comment, newest first, for whoever may read it',
  tags: ['comments'],
  input: z.object({ comment_id: zUuid(), page: zPage(), page_size: zPageSize() }),
  rateLimits: [READ_LIMIT],
  responses: { 200: zPaginated(zCommentVersion) },
  handler: async (input, ctx) => ok(await commentHistory(ctx, input)),
});

export const likeCommentOp = defineOperation({
  name: 'comments.like',
  method: 'POST',
  path: '/api/posts/comments/{comment_id}/like/',
  auth: 'user',
  summary: 'Toggle the caller’s like of a comment',
  tags: ['comments'],
  input: z.object({ comment_id: zUuid() }),
  rateLimits: [perUser(300)],
  responses: { 200: z.object({ message: z.string(), liked: z.boolean(), likes_count: z.number().int() }) },
  errors: [403],
  handler: async (input, ctx) => ok(await toggleCommentLike(ctx, input.comment_id)),
});

export const bookmarkCommentOp = defineOperation({
  name: 'comments.bookmark',
  method: 'POST',
  path: '/api/posts/comments/{comment_id}/bookmark/',
  auth: 'user',
  summary: 'Toggle the caller’s bookmark of a comment',
  tags: ['comments'],
  input: z.object({ comment_id: zUuid() }),
  rateLimits: [perUser(300)],
  responses: { 200: z.object({ message: z.string(), bookmarked: z.boolean(), bookmarks_count: z.number().int() }) },
  errors: [403],
  handler: async (input, ctx) => ok(await toggleCommentBookmark(ctx, input.comment_id)),
});

/** Compatibility path: `POST /api/posts/{post_id}/comment/` with `{content}` adds a top-level comment. */
export const commentOnPostOp = defineOperation({
  name: 'comments.create_simple',
  method: 'POST',
  path: '/api/posts/{post_id}/comment/',
  auth: 'user',
  summary: 'Compatibility: comment on a post',
  tags: ['comments'],
  input: z.object({ post_id: zUuid(), content: zCommentText() }),
  rateLimits: [{ ...perUser(60), name: 'user' }],
  responses: { 201: zCommentBody },
  errors: [403],
  handler: async (input, ctx) => created(await createComment(ctx, { post: input.post_id, content: input.content })),
});

export const commentOperations = [listPostCommentsOp, listRepliesOp, createCommentOp, deleteCommentOp, editCommentOp, commentHistoryOp, likeCommentOp, bookmarkCommentOp, commentOnPostOp];
