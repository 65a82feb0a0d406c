import { sql } from 'drizzle-orm';
import type { RequestContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { platform } from '../../platform/index.js';
import { postVisibleInListTo } from '../policy/post-visibility.js';
import { loadStoreSummaries } from '../stores/summaries.js';
import { loadPosts } from './posts.queries.js';
import { serializePost } from './posts.serializer.js';

/**
 * A store's recommendations (DESIGN.md section 13): the recommendation posts naming it, newest first, as the caller may
 * read them: community posts only for a signed-in caller, as everywhere, and moderation, blocks and mutes applied.
 */
export async function storeRecommendations(ctx: RequestContext, input: { store_id: string; page?: number; page_size?: number }) {
  if (!(await loadStoreSummaries([input.store_id])).size) throw notFound();
  const params = pageParams(input, { size: 20, max: 100 });
  const viewer = ctx.user?.id ?? null;
  const { rows } = await platform.db.execute<{ id: string; total: number }>(sql`
    SELECT p.id, count(*) OVER ()::int AS total FROM posts p
    WHERE p.post_type = 'recommendation' AND p.shared_store_id = ${input.store_id}::uuid
      AND ${postVisibleInListTo(viewer)}
    ORDER BY p.created_at DESC, p.id DESC LIMIT ${params.limit} OFFSET ${params.offset}`);
  let count = rows[0]?.total ?? 0;
  if (!rows.length && params.offset) {
    const { rows: all } = await platform.db.execute<{ n: number }>(sql`
      SELECT count(*)::int AS n FROM posts p WHERE p.post_type = 'recommendation' AND p.shared_store_id = ${input.store_id}::uuid
        AND ${postVisibleInListTo(viewer)}`);
    count = all[0].n;
  }
  const posts = await loadPosts(rows.map((r) => r.id), viewer, undefined, ctx.baseUrl);
  return paginated(ctx, `/api/stores/stores/${input.store_id}/recommendations/`, params, count, posts.map((p) => serializePost(p, ctx)));
}
