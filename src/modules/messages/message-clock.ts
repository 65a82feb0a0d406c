/**
 * The time messages are stamped with, and against which the new_message notification rule measures
 * "more than 5 minutes since the previous message". Replaceable so that tests drive 0, 4 and 6 minutes
 * with a manual clock (`useMessageClock(clock)`) instead of sleeping; the service reads `messageNow()`.
 */
export interface WallClock {
  now(): number;
}

const systemWallClock: WallClock = { now: () => Date.now() };
let current: WallClock = systemWallClock;

export const messageNow = (): Date => new Date(current.now());

/** Tests only: stamp messages with this clock; `useMessageClock()` goes back to the system clock. */
export function useMessageClock(clock: WallClock = systemWallClock): void {
  current = clock;
}
