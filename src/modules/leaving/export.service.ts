import { z } from 'zod';
import type { AuthedContext } from '../../core/context.js';
import { fieldError, notFound } from '../../core/errors.js';
import { exportProfile, type ProfileExport } from '../users/users.export.js';
import { EXPORT_SECTIONS } from './export.sections.js';
import type { ExportPosition, ExportSection, ExportViewer } from '../../core/leaving.js';

/**
 * The account's export (GDPR article 20; docs/modules/leaving.md). One JSON document with every section, each holding
 * at most EXPORT_PAGE_SIZE items, newest first; a section with more names a cursor in `next_cursors`, and
 * `GET /api/users/profile/export/{section}/?cursor=` answers its next page, until `next_cursor` is null. So an answer
 * is bounded whatever the account's size, and a large account is still exported whole.
 */
export const EXPORT_FORMAT = 'hyperlocal.account-export/1';
export const EXPORT_PAGE_SIZE = 1000;

export interface AccountExport {
  format: string;
  exported_at: string;
  user: ProfileExport;
  /** Per section, a cursor for its next page; absent when the section is complete here. */
  next_cursors: Record<string, string>;
  [section: string]: unknown;
}

export interface ExportPage {
  section: string;
  results: unknown[];
  next_cursor: string | null;
}

const zPosition = z.object({ at: z.iso.datetime(), id: z.uuid() });
const encodeCursor = (p: ExportPosition) => Buffer.from(JSON.stringify(p)).toString('base64url');
function decodeCursor(cursor: string): ExportPosition {
  try {
    return zPosition.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw fieldError('cursor', 'Invalid cursor.');
  }
}

const viewerOf = (ctx: AuthedContext): ExportViewer => ({ userId: ctx.user.id, baseUrl: ctx.baseUrl });

/** One page of a section, one row more than it holds to know whether there is a next one. */
async function page(section: ExportSection, viewer: ExportViewer, before: ExportPosition | null): Promise<{ results: unknown[]; next: string | null }> {
  const rows = await section.load(viewer, { before, limit: EXPORT_PAGE_SIZE + 1 });
  const kept = rows.slice(0, EXPORT_PAGE_SIZE);
  const next = rows.length > EXPORT_PAGE_SIZE ? encodeCursor(kept[kept.length - 1].position) : null;
  return { results: kept.map((r) => r.item), next };
}

/** Sections are read one after the other (one database connection at a time, however many sections). */
export async function exportAccount(ctx: AuthedContext): Promise<AccountExport> {
  const viewer = viewerOf(ctx);
  const document: AccountExport = { format: EXPORT_FORMAT, exported_at: new Date().toISOString(), user: await exportProfile(viewer), next_cursors: {} };
  for (const section of EXPORT_SECTIONS) {
    const { results, next } = await page(section, viewer, null);
    document[section.name] = results;
    if (next) document.next_cursors[section.name] = next;
  }
  return document;
}

export async function exportSectionPage(ctx: AuthedContext, name: string, cursor: string | undefined): Promise<ExportPage> {
  const section = EXPORT_SECTIONS.find((s) => s.name === name);
  if (!section) throw notFound();
  const { results, next } = await page(section, viewerOf(ctx), cursor ? decodeCursor(cursor) : null);
  return { section: name, results, next_cursor: next };
}
