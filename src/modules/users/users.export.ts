import { z } from 'zod';
import { notFound } from '../../core/errors.js';
import { platform } from '../../platform/index.js';
import type { ExportViewer } from '../../core/leaving.js';
import { findUserById } from './users.queries.js';
import { serializeOwnUser, zUserBody } from './users.serializer.js';

/** The account as its owner exports it: the user object, and what the service keeps about it that no answer shows. */
export const zProfileExport = zUserBody
  .extend({
    email: z.string(),
    latitude: z.string().nullable().describe("The caller's own point: never shown to anyone else, but theirs to take"),
    longitude: z.string().nullable(),
    referral_code: z.string(),
    referrer_code: z.string().nullable(),
    ref_source: z.string().nullable(),
    ref_medium: z.string().nullable(),
    ref_campaign: z.string().nullable(),
  })
  .meta({ id: 'ProfileExport' });
export type ProfileExport = z.infer<typeof zProfileExport>;

/** The account itself, as the owner sees it, with what the service keeps about it that no answer shows. */
export async function exportProfile(viewer: ExportViewer): Promise<ProfileExport> {
  const user = await findUserById(viewer.userId, platform.db);
  if (!user) throw notFound();
  return {
    ...serializeOwnUser(user, viewer),
    latitude: user.latitude,
    longitude: user.longitude,
    referral_code: user.referralCode,
    referrer_code: user.referrerCode,
    ref_source: user.refSource,
    ref_medium: user.refMedium,
    ref_campaign: user.refCampaign,
  };
}
