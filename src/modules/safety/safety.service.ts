import type { AuthedContext } from '../../core/context.js';
import { fieldError, notFound } from '../../core/errors.js';
import { pageParams, paginated } from '../../core/pagination.js';
import type { SafetyRelation } from './relations.js';
import { deleteRelation, findRelation, insertRelation, listRelations, userExists } from './safety.queries.js';
import { serializeRelation, type SafetyRelationBody } from './safety.serializer.js';

async function requireOtherUser(ctx: AuthedContext, r: SafetyRelation, userId: string): Promise<void> {
  if (userId === ctx.user.id) throw fieldError('user_id', `You cannot ${r.verb} yourself.`);
  if (!(await userExists(userId))) throw notFound();
}

/** Blocks or mutes `userId`; `created` is false when the caller had already done so (answered 200, not 201). */
export async function addRelation(ctx: AuthedContext, r: SafetyRelation, userId: string): Promise<{ created: boolean; relation: SafetyRelationBody }> {
  await requireOtherUser(ctx, r, userId);
  const created = await insertRelation(r, ctx.user.id, userId);
  const row = await findRelation(r, ctx.user.id, userId);
  // Gone between the two statements: the other account was deleted meanwhile.
  if (!row) throw notFound();
  return { created, relation: serializeRelation(row, ctx) };
}

/** Unblocks or unmutes `userId`; undoing what was not there is not an error (the end state is the one asked for). */
export async function removeRelation(ctx: AuthedContext, r: SafetyRelation, userId: string): Promise<void> {
  await requireOtherUser(ctx, r, userId);
  await deleteRelation(r, ctx.user.id, userId);
}

export async function listMyRelations(ctx: AuthedContext, r: SafetyRelation, input: { page?: number; page_size?: number }) {
  const params = pageParams(input, { size: 20, max: 100 });
  const { count, rows } = await listRelations(r, ctx.user.id, params.limit, params.offset);
  return paginated(ctx, `/api/safety/${r.kind}/`, params, count, rows.map((row) => serializeRelation(row, ctx)));
}
