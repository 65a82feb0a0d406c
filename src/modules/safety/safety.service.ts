import type { AuthedContext } from '../../core/context.js';
import { fieldError, notFound } from '../../core/errors.js';
import type { PendingEvents } from '../../core/events.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { platform } from '../../platform/index.js';
import { transaction } from '../../platform/db.js';
import { BLOCKS, type SafetyRelation } from './relations.js';
import { deleteRelation, findRelation, insertRelation, listRelations, userExists } from './safety.queries.js';
import { serializeRelation, type SafetyRelationBody } from './safety.serializer.js';
import { hidesAuthor } from '../policy/visibility.js';

declare module '../../core/events.js' {
  interface DomainEventMap {
    /** Whose pushes each viewer's sockets must now miss, or hear again (src/realtime puts them in or out of a room). */
    'safety.hiding_changed': { changes: Array<{ viewerId: string; authorId: string; hidden: boolean }> };
  }
}

/**
 * After a change of the pair's relation, where each side's live pushes stand: a block touches both directions, a
 * mute one. Read from the tables rather than from the change, since a mute and a block of one pair overlap.
 */
async function raiseHidingChanged(events: PendingEvents, r: SafetyRelation, actorId: string, targetId: string): Promise<void> {
  const pairs = r === BLOCKS ? [[actorId, targetId], [targetId, actorId]] : [[actorId, targetId]];
  const changes = await Promise.all(pairs.map(async ([viewerId, authorId]) => ({ viewerId, authorId, hidden: await hidesAuthor(viewerId, authorId) })));
  events.add('safety.hiding_changed', { changes });
}

async function requireOtherUser(ctx: AuthedContext, r: SafetyRelation, userId: string): Promise<void> {
  if (userId === ctx.user.id) throw fieldError('user_id', `You cannot ${r.verb} yourself.`);
  if (!(await userExists(userId))) throw notFound();
}

/** Blocks or mutes `userId`; `created` is false when the caller had already done so (answered 200, not 201). */
export async function addRelation(ctx: AuthedContext, r: SafetyRelation, userId: string): Promise<{ created: boolean; relation: SafetyRelationBody }> {
  await requireOtherUser(ctx, r, userId);
  const { created, row } = await transaction(platform.db, async (_tx, events) => {
    const isNew = await insertRelation(r, ctx.user.id, userId);
    if (isNew) await raiseHidingChanged(events, r, ctx.user.id, userId);
    return { created: isNew, row: await findRelation(r, ctx.user.id, userId) };
  });
  // Gone between the two statements: the other account was deleted meanwhile.
  if (!row) throw notFound();
  return { created, relation: serializeRelation(row, ctx) };
}

/** Unblocks or unmutes `userId`; undoing what was not there is not an error (the end state is the one asked for). */
export async function removeRelation(ctx: AuthedContext, r: SafetyRelation, userId: string): Promise<void> {
  await requireOtherUser(ctx, r, userId);
  await transaction(platform.db, async (_tx, events) => {
    await deleteRelation(r, ctx.user.id, userId);
    await raiseHidingChanged(events, r, ctx.user.id, userId);
  });
}

export async function listMyRelations(ctx: AuthedContext, r: SafetyRelation, input: { page?: number; page_size?: number }) {
  const params = pageParams(input, { size: 20, max: 100 });
  const { count, rows } = await listRelations(r, ctx.user.id, params.limit, params.offset);
  return paginated(ctx, `/api/safety/${r.kind}/`, params, count, rows.map((row) => serializeRelation(row, ctx)));
}
