import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { AuthedContext, RequestContext } from '../../core/context.js';
import { fieldError, notFound } from '../../core/errors.js';
import { requireOwner } from '../../core/ownership.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { serverBaseUrl } from '../../core/server-base-url.js';
import type { PostType } from '../../models/index.js';
import { platform } from '../../platform/index.js';
import { currentDb, transaction } from '../../platform/db.js';
import { notifyMentions } from './mentions.js';
import { requireViewablePost, requireViewablePostById } from '../policy/post-visibility.js';
import { loadPost } from './posts.queries.js';
import { serializePost, type PostBody } from './posts.serializer.js';
import './posts.events.js';

/**
 * Edits of a post by its author, and its history (DESIGN.md section 13; decisions in docs/modules/posts.md, "Edits").
 * The text (content, title, content warning) may change; the type, the poll (question and options), the files and
 * the place never do. Each change of the text keeps the version it replaces in `post_versions`, in the edit's
 * transaction; a change of alt texts alone is not a new version (it describes the images, it says nothing new).
 */
export interface PostEdit {
  post_id: string;
  content?: string;
  title?: string | null;
  content_warning?: string | null;
  media_alt_texts?: Array<string | null>;
}

export const zPostVersion = z
  .object({
    content: z.string(),
    title: z.string().nullable(),
    content_warning: z.string().nullable(),
    edited_at: z.string().nullable().describe('When this version was made by an edit; null for the version first posted'),
  })
  .meta({ id: 'PostVersion' });
export type PostVersionBody = z.infer<typeof zPostVersion>;

type PostTextRow = {
  user_id: string;
  post_type: PostType;
  title: string | null;
  content: string;
  content_warning: string | null;
  edited_at: Date | null;
  location_id: string | null;
  community_id: string | null;
  hidden: boolean;
  media_count: number;
};

const postText = (p: { title: string | null; content: string }) => `${p.title ?? ''}\n${p.content}`;

export async function editPost(ctx: AuthedContext, input: PostEdit): Promise<PostBody> {
  return transaction(platform.db, async (tx, events) => {
    // The row lock orders concurrent edits: each keeps the version the one before it wrote.
    const { rows } = await tx.execute<PostTextRow>(sql`
      SELECT user_id, post_type, title, content, content_warning, edited_at, location_id, community_id, hidden_at IS NOT NULL AS hidden,
             (SELECT count(*)::int FROM post_media m WHERE m.post_id = p.id) AS media_count
      FROM posts p WHERE id = ${input.post_id}::uuid FOR UPDATE`);
    const post = rows[0];
    if (!post) throw notFound();
    // Unreadable (its audience, moderation, a block with its author) is 404 by the one post rule; readable but
    // someone else's is 403.
    await requireViewablePost(ctx.user, { communityId: post.community_id, authorId: post.user_id, hidden: post.hidden });
    requireOwner(ctx.user, post.user_id);

    const next = {
      title: input.title !== undefined ? input.title : post.title,
      content: input.content ?? post.content,
      content_warning: input.content_warning !== undefined ? input.content_warning : post.content_warning,
    };
    if (post.post_type === 'text' && !next.content.trim()) throw fieldError('content', 'This field may not be blank.');
    if (input.media_alt_texts && input.media_alt_texts.length !== post.media_count) {
      throw fieldError('media_alt_texts', post.media_count ? `Send one alt text per image, in order (${post.media_count} images).` : 'This post has no images.');
    }
    const textChanged = next.title !== post.title || next.content !== post.content || next.content_warning !== post.content_warning;
    const altsChanged = input.media_alt_texts !== undefined && (await altTextsDiffer(input.post_id, input.media_alt_texts));

    if (textChanged) {
      const { rows: earlier } = await tx.execute<{ title: string | null; content: string }>(sql`
        SELECT title, content FROM post_versions WHERE post_id = ${input.post_id}::uuid`);
      await tx.execute(sql`
        INSERT INTO post_versions (post_id, user_id, title, content, content_warning, edited_at)
        VALUES (${input.post_id}::uuid, ${post.user_id}::uuid, ${post.title}, ${post.content}, ${post.content_warning}, ${post.edited_at})`);
      await tx.execute(sql`
        UPDATE posts SET title = ${next.title}, content = ${next.content}, content_warning = ${next.content_warning}, edited_at = now(), updated_at = now()
        WHERE id = ${input.post_id}::uuid`);
      // Content hidden by moderation reaches nobody but its author and staff, so it tells nobody of a mention.
      if (!post.hidden) {
        await notifyMentions(tx, events, {
          text: postText(next),
          earlierTexts: [postText(post), ...earlier.map(postText)],
          actorId: ctx.user.id,
          actorUsername: ctx.user.username,
          targetType: 'Post',
          targetId: input.post_id,
        });
      }
    }
    if (altsChanged) {
      await tx.execute(sql`
        UPDATE post_media m SET alt_text = a.alt_text
        FROM unnest(${sql.param(input.media_alt_texts!)}::text[]) WITH ORDINALITY AS a(alt_text, n)
        WHERE m.post_id = ${input.post_id}::uuid AND m.position = a.n - 1`);
      if (!textChanged) await tx.execute(sql`UPDATE posts SET updated_at = now() WHERE id = ${input.post_id}::uuid`);
    }
    if (textChanged || altsChanged) {
      const pushed = (await loadPost(input.post_id, null, tx, serverBaseUrl()))!;
      events.add('post.updated', { post: serializePost(pushed, { baseUrl: serverBaseUrl() }), locationId: post.location_id, communityId: post.community_id, hidden: post.hidden });
    }
    return serializePost((await loadPost(input.post_id, ctx.user.id, tx, ctx.baseUrl))!, ctx);
  });
}

async function altTextsDiffer(postId: string, altTexts: Array<string | null>): Promise<boolean> {
  const { rows } = await currentDb().execute<{ alt_text: string | null }>(sql`SELECT alt_text FROM post_media WHERE post_id = ${postId}::uuid ORDER BY position`);
  return rows.some((r, i) => r.alt_text !== altTexts[i]);
}

const HISTORY_PAGE = { size: 20, max: 100 };

/** Earlier versions of a post, newest first, for whoever may read the post (404 otherwise). */
export async function postHistory(ctx: RequestContext, input: { post_id: string; page?: number; page_size?: number }) {
  await requireViewablePostById(ctx.user, input.post_id);
  const params = pageParams(input, HISTORY_PAGE);
  const { rows } = await platform.db.execute<{ title: string | null; content: string; content_warning: string | null; edited_at: Date | null; total: number }>(sql`
    SELECT title, content, content_warning, edited_at, count(*) OVER ()::int AS total FROM post_versions
    WHERE post_id = ${input.post_id}::uuid ORDER BY replaced_at DESC, id DESC LIMIT ${params.limit} OFFSET ${params.offset}`);
  const count = rows[0]?.total ?? (params.offset ? await countVersions(input.post_id) : 0);
  return paginated(ctx, `/api/feed/posts/${input.post_id}/history/`, params, count, rows.map(serializePostVersion));
}

async function countVersions(postId: string): Promise<number> {
  const { rows } = await platform.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM post_versions WHERE post_id = ${postId}::uuid`);
  return rows[0].n;
}

export function serializePostVersion(r: { title: string | null; content: string; content_warning: string | null; edited_at: Date | string | null }): PostVersionBody {
  return { content: r.content, title: r.title, content_warning: r.content_warning, edited_at: r.edited_at ? new Date(r.edited_at).toISOString() : null };
}
