import type { Sync } from './generated/api.js';
import { type SeenSet } from './seen.js';
/**
 * What a catch-up hands the app's handlers: the items of every realtime.sync page, as the live events that would
 * have carried them, merged into one stream in the order they happened, without what the handlers already have.
 * A message is new once; a post is new at each updated_at (`post:updated` for one the handlers have, edited;
 * `post:created` for one they do not have, or that came back after moderation hid it); a
 * notification or order is new once and then changed at each updated_at; a deletion is new at each deleted_at (a
 * post's as `post:deleted`, a comment's or message's as the client's own `deleted`).
 */
export interface Delivery {
    event: string;
    payload: unknown;
    /** When it happened on the server (ISO): the merge order. */
    at: string;
    /** What it marks as seen once delivered (seen.ts): a replayed post deletion's carry its `deleted_at`, its payload does not. */
    keys: string[];
}
export declare function deliveriesOf(pages: readonly Sync[], seen: SeenSet): Delivery[];
