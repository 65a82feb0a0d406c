import { CallerCache } from '../../src/modules/accounts/caller-cache.js';

/**
 * The process's caller cache: used only while announcements of access changes can reach it, forgets a user at
 * once, never keeps what a read that began before a forget found, and ages entries out.
 */
const ALICE = 'alice';
const BOB = 'bob';

function aCache(ttlMs = 1000, max = 100) {
  let now = 0;
  const cache = new CallerCache<string>(ttlMs, max, () => now);
  return { cache, advance: (ms: number) => (now += ms) };
}

test('when no invalidation channel is open, then nothing is kept or answered', () => {
  const { cache } = aCache();
  cache.fill(ALICE, 's1', 'row', cache.generation);
  expect(cache.get(ALICE, 's1')).toBeUndefined();
  expect(cache.size).toBe(0);
});

test('when a channel is up, then a filled entry answers for its user and session only', () => {
  const { cache } = aCache();
  cache.openInvalidationChannel(true);
  cache.fill(ALICE, 's1', 'alice-s1', cache.generation);
  cache.fill(ALICE, null, 'alice-no-session', cache.generation);
  expect(cache.get(ALICE, 's1')).toBe('alice-s1');
  expect(cache.get(ALICE, null)).toBe('alice-no-session');
  expect(cache.get(ALICE, 's2')).toBeUndefined();
  expect(cache.get(BOB, 's1')).toBeUndefined();
  expect(cache.counts.hits).toBe(2);
});

test('when a user is forgotten, then all its sessions are dropped and other users stay', () => {
  const { cache } = aCache();
  cache.openInvalidationChannel(true);
  cache.fill(ALICE, 's1', 'a1', cache.generation);
  cache.fill(ALICE, 's2', 'a2', cache.generation);
  cache.fill(BOB, 's3', 'b3', cache.generation);
  cache.forgetUser(ALICE);
  expect(cache.get(ALICE, 's1')).toBeUndefined();
  expect(cache.get(ALICE, 's2')).toBeUndefined();
  expect(cache.get(BOB, 's3')).toBe('b3');
});

test('when a forget happens while a read is on its way, then what that read found is not kept', () => {
  const { cache } = aCache();
  cache.openInvalidationChannel(true);
  const began = cache.generation;
  cache.forgetUser(ALICE); // announced after the read began: it may have read the row before the change
  cache.fill(ALICE, 's1', 'stale', began);
  expect(cache.get(ALICE, 's1')).toBeUndefined();
  // A read that begins after the forget is kept.
  cache.fill(ALICE, 's1', 'fresh', cache.generation);
  expect(cache.get(ALICE, 's1')).toBe('fresh');
});

test('when an entry is older than the lifetime, then it is read again', () => {
  const { cache, advance } = aCache(1000);
  cache.openInvalidationChannel(true);
  cache.fill(ALICE, 's1', 'row', cache.generation);
  advance(999);
  expect(cache.get(ALICE, 's1')).toBe('row');
  advance(1);
  expect(cache.get(ALICE, 's1')).toBeUndefined();
  expect(cache.size).toBe(0);
});

test('when a channel goes down, then the cache is emptied and unused until it is back, and emptied again then', () => {
  const { cache } = aCache();
  const channel = cache.openInvalidationChannel(true);
  cache.fill(ALICE, 's1', 'row', cache.generation);
  channel.down();
  expect(cache.usable).toBe(false);
  expect(cache.get(ALICE, 's1')).toBeUndefined();
  cache.fill(ALICE, 's1', 'during', cache.generation);
  expect(cache.size).toBe(0);
  channel.up();
  expect(cache.get(ALICE, 's1')).toBeUndefined();
  cache.fill(ALICE, 's1', 'after', cache.generation);
  expect(cache.get(ALICE, 's1')).toBe('after');
});

test('when one of two channels is down, then the cache is not used; when the last channel closes, neither', () => {
  const { cache } = aCache();
  const a = cache.openInvalidationChannel(true);
  const b = cache.openInvalidationChannel(false);
  expect(cache.usable).toBe(false);
  b.up();
  expect(cache.usable).toBe(true);
  b.close();
  expect(cache.usable).toBe(true);
  a.close();
  expect(cache.usable).toBe(false);
});

test('when the cache is full, then the oldest entry goes first', () => {
  const { cache } = aCache(1000, 2);
  cache.openInvalidationChannel(true);
  cache.fill(ALICE, 's1', 'a1', cache.generation);
  cache.fill(BOB, 's2', 'b2', cache.generation);
  cache.fill('carol', 's3', 'c3', cache.generation);
  expect(cache.size).toBe(2);
  expect(cache.get(ALICE, 's1')).toBeUndefined();
  expect(cache.get(BOB, 's2')).toBe('b2');
  // Alice's index went with her entry: forgetting her later touches nothing else.
  cache.forgetUser(ALICE);
  expect(cache.get('carol', 's3')).toBe('c3');
});
