import type { PendingEvents } from '../../core/events.js';
import type { Tx } from '../../platform/db.js';
import type { ReportTargetType } from '../../models/index.js';
import { hidePost, restorePost } from '../posts/post-hiding.js';
import { hideComment, restoreComment } from '../comments/comment-hiding.js';

/**
 * Which reported things moderation can hide, and how (each by its own module). Posts and comments have a hidden
 * state that every read, list, push and sync of theirs honours. The other kinds have none (see
 * docs/modules/safety-moderation.md): staff suspend their owner or dismiss, and auto-hide leaves them to review.
 */
type Hiding = { hide: (tx: Tx, events: PendingEvents, id: string) => Promise<boolean>; restore: (tx: Tx, id: string) => Promise<boolean> };

const HIDING: Partial<Record<ReportTargetType, Hiding>> = {
  post: { hide: hidePost, restore: restorePost },
  comment: { hide: (tx, _events, id) => hideComment(tx, id), restore: restoreComment },
};

export const isHideable = (type: ReportTargetType): boolean => type in HIDING;

/** Hides the thing in the caller's transaction; false when it cannot be hidden, is gone or is hidden already. */
export function hideContent(tx: Tx, events: PendingEvents, type: ReportTargetType, id: string): Promise<boolean> {
  return HIDING[type]?.hide(tx, events, id) ?? Promise.resolve(false);
}

/** Brings a hidden thing back (a dismissed report of something auto-hide had hidden). */
export function restoreContent(tx: Tx, type: ReportTargetType, id: string): Promise<boolean> {
  return HIDING[type]?.restore(tx, id) ?? Promise.resolve(false);
}
