import path from 'node:path';
import { sql } from 'drizzle-orm';
import { platform } from '../../platform/index.js';
import { detectAudioType, detectImageType } from '../../core/uploads.js';
import { isCurrentMediaKey } from '../../core/media/media-names.js';
import { ImageRejected, TOO_MANY_PIXELS, processImageInTurn } from '../../core/media/image-pipeline.js';
import { AudioRejected, processAudio } from '../../core/media/audio-work.js';

/**
 * `npm run media:reprocess`: files stored by releases before every upload was rewritten (DESIGN.md section 8) are
 * brought under today's rules, on disk or on S3 alike:
 * - an image is decoded and written anew (metadata gone, upright, variants and placeholder), stored under a new name,
 *   the row pointed at it, the old file deleted;
 * - an audio file gets its name and type from its bytes and loses its tags;
 * - a file that is not what its column holds (HTML under a `.png`, a file that does not decode) is deleted and the
 *   reference dropped: the picture column is cleared, a post's or product's image row removed;
 * - a file that is missing from storage is left alone and counted;
 * - an audio file that the worker thread could not get through before its deadline (AUDIO_WORK_TIMEOUT_MS; the same
 *   bounded path as uploads, core/media/audio-work.ts) is left alone and counted as `unreadable`: the run goes on,
 *   and a later run tries it again. It is not deleted, since a deadline missed on a busy machine says nothing
 *   certain about the file.
 * It is idempotent: a name written by this release is never touched again, so a second run changes nothing, and a
 * run stopped half-way continues where it was. A row changed by a user meanwhile keeps the user's change (the row is
 * updated only if it still names the old file).
 */
export interface MediaColumn {
  table: string;
  column: string;
  kind: 'image' | 'audio';
  /** What to do with a reference to a file that is not media: clear a nullable column, or delete an image row. */
  whenHostile: 'clear' | 'delete-row';
}

export const MEDIA_COLUMNS: readonly MediaColumn[] = [
  { table: 'users', column: 'profile_picture', kind: 'image', whenHostile: 'clear' },
  { table: 'users', column: 'banner', kind: 'image', whenHostile: 'clear' },
  { table: 'post_media', column: 'file', kind: 'image', whenHostile: 'delete-row' },
  { table: 'post_audio', column: 'file', kind: 'audio', whenHostile: 'delete-row' },
  { table: 'stores', column: 'logo', kind: 'image', whenHostile: 'clear' },
  { table: 'stores', column: 'banner', kind: 'image', whenHostile: 'clear' },
  { table: 'product_images', column: 'image', kind: 'image', whenHostile: 'delete-row' },
  { table: 'communities', column: 'avatar', kind: 'image', whenHostile: 'clear' },
  { table: 'communities', column: 'banner', kind: 'image', whenHostile: 'clear' },
];

export interface ReprocessCounts {
  column: string;
  scanned: number;
  rewritten: number;
  removed: number;
  missing: number;
  current: number;
  unreadable: number;
}

const BATCH = 200;

export async function reprocessMedia(onProgress: (counts: ReprocessCounts) => void = () => undefined): Promise<ReprocessCounts[]> {
  const all: ReprocessCounts[] = [];
  for (const column of MEDIA_COLUMNS) all.push(await reprocessColumn(column, onProgress));
  return all;
}

async function reprocessColumn(c: MediaColumn, onProgress: (counts: ReprocessCounts) => void): Promise<ReprocessCounts> {
  const counts: ReprocessCounts = { column: `${c.table}.${c.column}`, scanned: 0, rewritten: 0, removed: 0, missing: 0, current: 0, unreadable: 0 };
  const table = sql.identifier(c.table);
  const column = sql.identifier(c.column);
  // Keyset over ids: rows added while this runs are new uploads, already under today's rules.
  for (let after = '00000000-0000-0000-0000-000000000000'; ; ) {
    const { rows } = await platform.db.execute<{ id: string; key: string }>(
      sql`SELECT id::text AS id, ${column} AS key FROM ${table} WHERE ${column} IS NOT NULL AND id > ${after}::uuid ORDER BY id LIMIT ${BATCH}`,
    );
    if (!rows.length) break;
    for (const row of rows) {
      counts.scanned++;
      if (isCurrentMediaKey(row.key)) counts.current++;
      else counts[await reprocessFile(c, row.id, row.key)]++;
    }
    after = rows[rows.length - 1]!.id;
    onProgress({ ...counts });
  }
  return counts;
}

async function reprocessFile(c: MediaColumn, id: string, key: string): Promise<'rewritten' | 'removed' | 'missing' | 'unreadable'> {
  const bytes = await platform.storage.read(key);
  if (!bytes) return 'missing';
  const rewritten = await rewrite(c.kind, bytes);
  if (rewritten === 'unreadable') return 'unreadable';
  const table = sql.identifier(c.table);
  const column = sql.identifier(c.column);
  if (!rewritten) {
    if (c.whenHostile === 'clear') await platform.db.execute(sql`UPDATE ${table} SET ${column} = NULL WHERE id = ${id}::uuid AND ${column} = ${key}`);
    else await platform.db.execute(sql`DELETE FROM ${table} WHERE id = ${id}::uuid AND ${column} = ${key}`);
    await platform.storage.delete(key);
    return 'removed';
  }
  const folder = path.posix.dirname(key);
  const newKey = await platform.storage.put(folder, rewritten);
  const { rowCount } = await platform.db.execute(sql`UPDATE ${table} SET ${column} = ${newKey} WHERE id = ${id}::uuid AND ${column} = ${key}`);
  // The row moved on meanwhile (a new picture): ours is the one to drop. Either way one of the two files goes.
  await platform.storage.delete(rowCount ? key : newKey);
  return 'rewritten';
}

async function rewrite(kind: 'image' | 'audio', bytes: Buffer) {
  if (kind === 'audio') {
    const type = detectAudioType(bytes);
    if (!type) return null;
    try {
      return await processAudio(bytes, type, { readDuration: false });
    } catch (err) {
      if (err instanceof AudioRejected) return 'unreadable' as const;
      throw err;
    }
  }
  const type = detectImageType(bytes);
  if (!type) return null;
  try {
    return await processImageInTurn(bytes, type);
  } catch (err) {
    // A picture stored before today's pixel limits (48 MP, 16,384 px a side) is a neighbour's photo, not an attack:
    // it is left as it is and counted as unreadable for an operator to look at, never deleted.
    if (err instanceof ImageRejected && err.message === TOO_MANY_PIXELS) return 'unreadable' as const;
    if (err instanceof ImageRejected) return null;
    throw err;
  }
}
