import { z } from 'zod';
import type { RequestContext } from '../../core/context.js';
import { serializeUserSummary, zUserSummary } from '../users/users.serializer.js';
import type { RelationRow } from './safety.queries.js';

/** An entry of `GET /api/safety/blocks/` or `/mutes/`: who, and since when. */
export const zSafetyRelation = z.object({ user: zUserSummary, created_at: z.string() }).meta({ id: 'SafetyRelation' });
export type SafetyRelationBody = z.infer<typeof zSafetyRelation>;

export function serializeRelation(row: RelationRow, ctx: Pick<RequestContext, 'baseUrl'>): SafetyRelationBody {
  return { user: serializeUserSummary(row, ctx), created_at: row.createdAt.toISOString() };
}
