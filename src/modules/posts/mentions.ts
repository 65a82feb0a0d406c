import { sql } from 'drizzle-orm';
import type { PendingEvents } from '../../core/events.js';
import type { DbOrTx } from '../../platform/db.js';
import { notifyMany } from '../notifications/notifications.service.js';
import { notBlockedWith } from '../policy/visibility.js';

/**
 * `@username` in a post or a comment notifies that user (`mention`), once per item, never the author
 * (DESIGN.md section 8). Usernames may hold letters, digits and `@ . + - _`; a mention ends at any other
 * character, and trailing dots (the end of a sentence) are not part of it. Matching ignores case, as
 * logins do. At most MAX_MENTIONS distinct names per item are looked at, so one comment cannot fan out
 * to the whole service.
 */
const MENTION_RE = /(?:^|[^\w.@+-])@([\w.@+-]{1,150})/gu;
export const MAX_MENTIONS = 20;

export function mentionedUsernames(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(MENTION_RE)) {
    const name = match[1].replace(/\.+$/, '').toLowerCase();
    if (name) names.add(name);
    if (names.size >= MAX_MENTIONS) break;
  }
  return [...names];
}

export interface MentionSource {
  text: string;
  actorId: string;
  actorUsername: string;
  targetType: 'Post' | 'Comment';
  targetId: string;
  /** Users already notified of this item another way (the post's author of a reply): not told twice. */
  alreadyNotified?: readonly string[];
  /**
   * The authors above the item (a comment's post author, its parent's author): a user in a block with any of them
   * cannot read the item (the one post and comment rule), so is not told of it (DESIGN.md section 9, "Every path").
   */
  readableOnlyApartFrom?: readonly string[];
  /**
   * The texts of the item before an edit (its earlier versions): a name mentioned in any of them was notified then, so
   * an edit notifies only the names it adds (DESIGN.md section 13).
   */
  earlierTexts?: readonly string[];
}

/** Set-based: one read of the mentioned users, one notifyMany. Runs in the item's transaction. */
export async function notifyMentions(db: DbOrTx, events: PendingEvents, source: MentionSource): Promise<void> {
  const earlier = new Set((source.earlierTexts ?? []).flatMap(mentionedUsernames));
  const names = mentionedUsernames(source.text).filter((name) => !earlier.has(name));
  if (!names.length) return;
  const { rows } = await db.execute<{ id: string }>(sql`
    SELECT u.id FROM users u WHERE lower(u.username) = ANY(${sql.param(names)}::text[]) AND u.is_active
      ${sql.join([sql``, ...[...new Set(source.readableOnlyApartFrom ?? [])].map((author) => notBlockedWith(sql`${author}::uuid`, sql`u.id`))], sql` AND `)}`);
  const skip = new Set(source.alreadyNotified ?? []);
  const recipients = rows.map((r) => r.id).filter((id) => !skip.has(id));
  const where = source.targetType === 'Post' ? 'a post' : 'a comment';
  await notifyMany(db, events, recipients, {
    actorId: source.actorId,
    type: 'mention',
    targetType: source.targetType,
    targetId: source.targetId,
    message: `${source.actorUsername} mentioned you in ${where}.`,
  });
}
