import { z } from 'zod';
import { created, defineOperation, noContent, ok, type Operation, type RateLimitRule } from '../../core/operation.js';
import { zPage, zPageSize, zUuid } from '../../core/validation.js';
import { zPaginated, zNoContent } from '../../core/response-schemas.js';
import { BLOCKS, MUTES, type SafetyRelation } from './relations.js';
import { addRelation, listMyRelations, removeRelation } from './safety.service.js';
import { zSafetyRelation } from './safety.serializer.js';

const perUser = (points: number, durationSeconds: number): RateLimitRule[] => [{ name: 'user', points, durationSeconds, key: 'user' }];

/** Create, delete and list for one relation: blocks and mutes have the same shapes (DESIGN.md section 9). */
function relationOperations(r: SafetyRelation): Operation[] {
  const create = defineOperation({
    name: `safety.${r.kind}_create`,
    method: 'POST',
    path: `/api/safety/${r.kind}/`,
    auth: 'user',
    summary: `${r.verb[0].toUpperCase()}${r.verb.slice(1)} a user (201; again: 200 with the existing entry)`,
    tags: ['safety'],
    rateLimits: perUser(60, 60),
    input: z.object({ user_id: zUuid() }),
    responses: { 200: zSafetyRelation, 201: zSafetyRelation },
    // The person named in the body does not exist (or is gone).
    errors: [404],
    handler: async (input, ctx) => {
      const { created: isNew, relation } = await addRelation(ctx, r, input.user_id);
      return isNew ? created(relation) : ok(relation);
    },
  });
  const remove = defineOperation({
    name: `safety.${r.kind}_delete`,
    method: 'DELETE',
    path: `/api/safety/${r.kind}/{user_id}/`,
    auth: 'user',
    summary: `Un${r.verb} a user (204, also when there was nothing to undo)`,
    tags: ['safety'],
    rateLimits: perUser(60, 60),
    input: z.object({ user_id: zUuid() }),
    responses: { 204: zNoContent },
    handler: async (input, ctx) => {
      await removeRelation(ctx, r, input.user_id);
      return noContent();
    },
  });
  const list = defineOperation({
    name: `safety.${r.kind}_list`,
    method: 'GET',
    path: `/api/safety/${r.kind}/`,
    auth: 'user',
    summary: `The users the caller ${r.verb === 'block' ? 'blocked' : 'muted'}, newest first`,
    tags: ['safety'],
    rateLimits: perUser(600, 60),
    input: z.object({ page: zPage(), page_size: zPageSize() }),
    responses: { 200: zPaginated(zSafetyRelation) },
    handler: async (input, ctx) => ok(await listMyRelations(ctx, r, input)),
  });
  return [create, remove, list];
}

export const safetyOperations = [...relationOperations(BLOCKS), ...relationOperations(MUTES)];
