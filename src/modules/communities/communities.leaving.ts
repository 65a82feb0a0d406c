import { sql } from 'drizzle-orm';
import type { AccountDeletionStep } from '../../core/leaving.js';
import { queueFileDeletions } from '../media/file-deletions.js';
import { notifyEach } from '../notifications/notifications.service.js';
import { removeCommunities } from './communities.service.js';

/**
 * A community the account owns passes to its longest-standing other member (earliest `joined_at`, then the smaller
 * id), who is told. An active member comes first; when every other member is suspended (deactivated), the
 * longest-standing suspended one inherits it rather than see it deleted with their posts: a suspension can be lifted,
 * a deletion cannot (docs/modules/leaving.md). Only a community with no other member at all is deleted, by the
 * community deletion path (tombstones, former members, `post:deleted` and `community:deleted`, files after the commit). Then the account leaves every other community,
 * each one's `members_count` dropping. Runs before the posts step, so a deleted community's posts are counted once.
 */
export const communitiesLeaving: AccountDeletionStep = {
  module: 'communities',
  handles: {
    'communities.owner_id': 'step',
    'community_members.user_id': 'step',
  },
  async run({ tx, events, userId }) {
    const { rows: inherited } = await tx.execute<{ community_id: string; user_id: string; name: string }>(sql`
      WITH heirs AS (
        SELECT DISTINCT ON (m.community_id) m.community_id, m.user_id
        FROM community_members m JOIN communities c ON c.id = m.community_id
        JOIN users u ON u.id = m.user_id
        WHERE c.owner_id = ${userId} AND m.user_id <> ${userId}
        -- An active account first: a suspended member cannot take care of it while suspended, but keeps it (and
        -- everyone's posts in it) for when the suspension is lifted.
        ORDER BY m.community_id, u.is_active DESC, m.joined_at, m.user_id
      ), moved AS (
        UPDATE communities c SET owner_id = h.user_id, updated_at = now() FROM heirs h WHERE c.id = h.community_id
        RETURNING c.id, c.owner_id, c.name
      ), promoted AS (
        UPDATE community_members m SET role = 'owner' FROM moved WHERE m.community_id = moved.id AND m.user_id = moved.owner_id
      )
      SELECT id AS community_id, owner_id AS user_id, name FROM moved`);
    await notifyEach(
      tx,
      events,
      inherited.map((c) => ({
        recipientId: c.user_id,
        type: 'general' as const,
        targetType: 'Community',
        targetId: c.community_id,
        message: `You are now the owner of ${c.name}: its owner deleted their account.`,
      })),
    );

    const { rows: alone } = await tx.execute<{ id: string }>(sql`SELECT id FROM communities WHERE owner_id = ${userId} ORDER BY id`);
    await queueFileDeletions(tx, await removeCommunities(tx, events, alone.map((c) => c.id)));

    await tx.execute(sql`
      WITH gone AS (DELETE FROM community_members WHERE user_id = ${userId} RETURNING community_id)
      UPDATE communities c SET members_count = greatest(0, c.members_count - 1) FROM gone WHERE c.id = gone.community_id`);
  },
};
