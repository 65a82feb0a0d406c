/**
 * Tombstones and former memberships are kept this long. A client whose `since` is older cannot be told every
 * deletion it missed: realtime.sync answers `full_refresh: true` and the client reloads instead of catching up.
 */
export const DELETION_RETENTION_DAYS = 30;
const RETENTION_MS = DELETION_RETENTION_DAYS * 86_400_000;

/** The oldest instant whose deletions are still all kept, for a clock reading `now`. */
export const retentionStart = (now: number = Date.now()) => new Date(now - RETENTION_MS);
