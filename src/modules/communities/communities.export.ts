import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { platform } from '../../platform/index.js';
import type { ExportSection } from '../../core/leaving.js';
import { olderThan, ownedRowsPage, positionAt, withPositions } from '../../core/export-paging.js';
import { findCommunitiesByIds } from './communities.queries.js';
import { serializeCommunity, zCommunityBody } from './communities.serializer.js';

/** The communities the caller owns (as their page shows them), and every membership with its role and date. */
export const communitiesOwnedExport: ExportSection = {
  name: 'communities_owned',
  item: zCommunityBody,
  load: (viewer, page) =>
    ownedRowsPage(
      { from: sql`communities t`, owned: sql`t.owner_id = ${viewer.userId}`, ...page },
      (ids) => findCommunitiesByIds(ids, platform.db),
      (community) => serializeCommunity(community, viewer, true),
    ),
};

export const communityMembershipsExport: ExportSection = {
  name: 'community_memberships',
  item: z.object({ community: z.object({ id: z.string(), name: z.string() }), role: z.string(), joined_at: z.string() }),
  async load(viewer, page) {
    const { rows } = await platform.db.execute<{ community_id: string; name: string; role: string; joined_at: Date; at: string; position_id: string }>(sql`
      SELECT m.community_id, c.name, m.role, m.joined_at, m.community_id AS position_id, ${positionAt(sql`m.joined_at`)} AS at
      FROM community_members m JOIN communities c ON c.id = m.community_id
      WHERE m.user_id = ${viewer.userId} AND ${olderThan(sql`m.joined_at`, sql`m.community_id`, page.before)}
      ORDER BY m.joined_at DESC, m.community_id DESC LIMIT ${page.limit}`);
    return withPositions(rows, (r) => ({ community: { id: r.community_id, name: r.name }, role: r.role, joined_at: new Date(r.joined_at).toISOString() }));
  },
};
