import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { AuthedContext } from '../../core/context.js';
import { badRequest } from '../../core/errors.js';
import { NOTIFICATION_TYPES } from '../../models/index.js';
import { platform } from '../../platform/index.js';
import type { DbOrTx } from '../../platform/db.js';

/**
 * A person's notification preferences (DESIGN.md section 10): which types are pushed, the email digest, previews and
 * quiet hours. No row: the defaults (every type pushed, digest off, previews on, no quiet hours). A type switched off
 * is not pushed; the in-app notification is still created.
 */
export interface QuietHours {
  start: string;
  end: string;
  time_zone: string;
}

export interface NotificationPreferences {
  push: Record<string, boolean>;
  email_digest: 'off' | 'daily' | 'weekly';
  previews: boolean;
  quiet_hours: QuietHours | null;
}

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

export const zQuietHours = z.object({ start: z.string(), end: z.string(), time_zone: z.string() }).meta({ id: 'QuietHours' });
export const zNotificationPreferences = z
  .object({
    push: z.record(z.string(), z.boolean()),
    email_digest: z.enum(['off', 'daily', 'weekly']),
    previews: z.boolean(),
    quiet_hours: zQuietHours.nullable(),
  })
  .meta({ id: 'NotificationPreferences' });

export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The input of PUT: every field optional (what is left out stays as it is); `push` changes only the types named. */
export const zPreferencesInput = z.object({
  push: z.record(z.string().max(100), z.boolean({ error: 'Must be true or false.' })).optional(),
  email_digest: z.enum(['off', 'daily', 'weekly'], { error: "Must be one of 'off', 'daily', 'weekly'." }).optional(),
  previews: z.boolean({ error: 'Must be true or false.' }).optional(),
  quiet_hours: z
    .object({
      start: z.string().regex(HHMM, 'Enter a time as HH:MM.'),
      end: z.string().regex(HHMM, 'Enter a time as HH:MM.'),
      time_zone: z.string().max(100).refine(isTimeZone, 'Unknown time zone.'),
    })
    .nullable()
    .optional(),
});
export type PreferencesInput = z.infer<typeof zPreferencesInput>;

interface PreferencesRow extends Record<string, unknown> {
  push: Record<string, boolean> | null;
  email_digest: 'off' | 'daily' | 'weekly';
  previews: boolean;
  quiet_start: string | null;
  quiet_end: string | null;
  quiet_time_zone: string | null;
}

export function preferencesFromRow(row: Partial<PreferencesRow> | undefined): NotificationPreferences {
  const push: Record<string, boolean> = {};
  for (const type of NOTIFICATION_TYPES) push[type] = row?.push?.[type] ?? true;
  return {
    push,
    email_digest: row?.email_digest ?? 'off',
    previews: row?.previews ?? true,
    quiet_hours: row?.quiet_start && row.quiet_end && row.quiet_time_zone ? { start: row.quiet_start, end: row.quiet_end, time_zone: row.quiet_time_zone } : null,
  };
}

export async function readPreferences(userId: string, db: DbOrTx = platform.db): Promise<NotificationPreferences> {
  const { rows } = await db.execute<PreferencesRow>(sql`
    SELECT push, email_digest, previews, quiet_start, quiet_end, quiet_time_zone FROM notification_preferences WHERE user_id = ${userId}::uuid`);
  return preferencesFromRow(rows[0]);
}

export function getMyPreferences(ctx: AuthedContext): Promise<NotificationPreferences> {
  return readPreferences(ctx.user.id);
}

export async function updateMyPreferences(ctx: AuthedContext, input: PreferencesInput): Promise<NotificationPreferences> {
  const known = new Set<string>(NOTIFICATION_TYPES);
  const unknown = Object.keys(input.push ?? {}).filter((type) => !known.has(type));
  if (unknown.length) throw badRequest({ push: [`Unknown notification type: ${unknown.join(', ')}.`] });
  const quiet = input.quiet_hours;
  const setQuiet = quiet !== undefined;
  const { rows } = await platform.db.execute<PreferencesRow>(sql`
    INSERT INTO notification_preferences AS p (user_id, push, email_digest, previews, quiet_start, quiet_end, quiet_time_zone)
    VALUES (${ctx.user.id}::uuid, ${JSON.stringify(input.push ?? {})}::jsonb, ${input.email_digest ?? 'off'}, ${input.previews ?? true},
            ${quiet?.start ?? null}, ${quiet?.end ?? null}, ${quiet?.time_zone ?? null})
    ON CONFLICT (user_id) DO UPDATE SET
      push = p.push || EXCLUDED.push,
      email_digest = ${input.email_digest === undefined ? sql`p.email_digest` : sql`EXCLUDED.email_digest`},
      previews = ${input.previews === undefined ? sql`p.previews` : sql`EXCLUDED.previews`},
      quiet_start = ${setQuiet ? sql`EXCLUDED.quiet_start` : sql`p.quiet_start`},
      quiet_end = ${setQuiet ? sql`EXCLUDED.quiet_end` : sql`p.quiet_end`},
      quiet_time_zone = ${setQuiet ? sql`EXCLUDED.quiet_time_zone` : sql`p.quiet_time_zone`},
      updated_at = now()
    RETURNING push, email_digest, previews, quiet_start, quiet_end, quiet_time_zone`);
  return preferencesFromRow(rows[0]);
}
