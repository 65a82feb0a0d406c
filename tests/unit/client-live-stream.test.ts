import { Emitter } from '../../client/lib/emitter.js';
import { LiveStream } from '../../client/lib/live-stream.js';
import { SeenSet } from '../../client/lib/seen.js';

/**
 * What a catch-up holds back (client/src/live-stream.ts): pushed events wait while realtime.sync runs, and no more
 * than the bound, whatever the number of pushes while the catch-up keeps failing (429, 5xx).
 */
function aStream(maxHeld: number) {
  const emitter = new Emitter<Record<string, unknown>>();
  const delivered: string[] = [];
  const refreshes: unknown[] = [];
  emitter.on('notification:created', (n) => delivered.push((n as { id: string }).id));
  emitter.on('full_refresh', (r) => refreshes.push(r));
  const stream = new LiveStream(emitter, new SeenSet(), maxHeld);
  const push = (from: number, to: number) => {
    for (let i = from; i < to; i++) stream.receive('notification:created', { id: `n${i}`, updated_at: '2025-01-01T00:00:00.000Z' });
  };
  return { stream, delivered, refreshes, push };
}

test('when events are pushed during a catch-up, up to the bound, then they wait and all follow in order on release', () => {
  const { stream, delivered, refreshes, push } = aStream(5);
  stream.hold();
  push(0, 5);
  expect(stream.heldCount).toBe(5);
  expect(delivered).toEqual([]);
  stream.release();
  expect(delivered).toEqual(['n0', 'n1', 'n2', 'n3', 'n4']);
  expect(refreshes).toEqual([]);
});

test('when more events are pushed than the bound while the catch-up keeps failing, then what was held is dropped and full_refresh {reason: overflow} is reported, each time it is passed', () => {
  const { stream, delivered, refreshes, push } = aStream(5);
  stream.hold();
  push(0, 6);
  expect(stream.heldCount).toBe(0);
  expect(refreshes).toEqual([{ reason: 'overflow' }]);
  // It keeps holding what comes next, never more than the bound: n6..n11 overflow again, n12..n17 too, n18 and n19 wait.
  push(6, 20);
  expect(refreshes).toEqual([{ reason: 'overflow' }, { reason: 'overflow' }, { reason: 'overflow' }]);
  expect(stream.heldCount).toBe(2);
  stream.release();
  expect(delivered).toEqual(['n18', 'n19']);
});
