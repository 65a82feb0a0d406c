import { z } from 'zod';
import { defineOperation, noContent, ok } from '../../core/operation.js';
import { zProfileExport } from '../users/users.export.js';
import { clearRefreshCookie } from '../accounts/sessions.js';
import { deleteAccount } from './account-deletion.service.js';
import { EXPORT_SECTIONS, EXPORT_SECTION_NAMES } from './export.sections.js';
import { exportAccount, exportSectionPage } from './export.service.js';
import { zNoContent } from '../../core/response-schemas.js';

/**
 * Leaving (DESIGN.md section 9; docs/modules/leaving.md): an account's export (GDPR article 20) and its deletion
 * (article 17; app stores require it in the app), over REST and the socket alike.
 */

const zAccountExport = z
  .object({
    format: z.string().describe('hyperlocal.account-export/1'),
    exported_at: z.string(),
    user: zProfileExport,
    next_cursors: z.record(z.string(), z.string()).describe('Per section cut at 1000 items, the cursor of its next page (GET .../export/{section}/?cursor=)'),
    ...Object.fromEntries(EXPORT_SECTIONS.map((s) => [s.name, z.array(s.item)])),
  })
  .meta({ id: 'AccountExport' });

const zExportPage = z
  .object({ section: z.string(), results: z.array(z.unknown()), next_cursor: z.string().nullable().describe('null on the last page') })
  .meta({ id: 'AccountExportPage' });

export const exportAccountOp = defineOperation({
  name: 'users.profile_export',
  method: 'GET',
  path: '/api/users/profile/export/',
  auth: 'user',
  summary: 'Everything the caller wrote or owns, as one JSON document (each section at most 1000 items; see next_cursors)',
  tags: ['users', 'leaving'],
  // Reads every section of the account: a few a day are what a person needs, not a polling loop.
  rateLimits: [{ name: 'export', points: 5, durationSeconds: 3600, key: 'user' }],
  input: z.object({}),
  responses: { 200: zAccountExport },
  errors: [404],
  handler: async (_input, ctx) => ok(await exportAccount(ctx)),
});

export const exportSectionOp = defineOperation({
  name: 'users.profile_export_section',
  method: 'GET',
  path: '/api/users/profile/export/{section}/',
  auth: 'user',
  summary: "The next page of one section of the caller's export, after the cursor the export (or the previous page) gave",
  tags: ['users', 'leaving'],
  // 120 pages of 1000 items an hour: a very large account is exported within the hour.
  rateLimits: [{ name: 'export_page', points: 120, durationSeconds: 3600, key: 'user' }],
  input: z.object({
    section: z.enum(EXPORT_SECTION_NAMES as [string, ...string[]], { error: (i) => `"${String(i.input)}" is not a section of the export.` }),
    cursor: z.string().max(500).optional(),
  }),
  responses: { 200: zExportPage },
  handler: async (input, ctx) => ok(await exportSectionPage(ctx, input.section, input.cursor)),
});

export const deleteAccountOp = defineOperation({
  name: 'users.profile_delete',
  method: 'DELETE',
  path: '/api/users/profile/',
  auth: 'user',
  summary: "Delete the caller's account at once (password required); every session ends, the username and email are free again",
  tags: ['users', 'leaving'],
  inputIn: 'body',
  // The password is checked with argon2 (slow and memory-hungry on purpose): a stolen access token must not
  // become a password-guessing oracle either.
  rateLimits: [{ name: 'password', points: 5, durationSeconds: 900, key: 'user' }],
  input: z.object({ password: z.string().max(128, 'Ensure this field has no more than 128 characters.') }),
  responses: { 204: zNoContent },
  errors: [404],
  handler: async (input, ctx) => {
    await deleteAccount(ctx, input.password);
    // Over the socket the calling socket becomes anonymous, as after logout; the account's other sockets end.
    return { ...noContent(), cookies: [clearRefreshCookie()], endsSession: true };
  },
});

export const leavingOperations = [exportAccountOp, exportSectionOp, deleteAccountOp];
