import { deliveriesOf } from '../../client/lib/catch-up.js';
import { SeenSet, alreadySeen, keysOf } from '../../client/lib/seen.js';
import { Emitter } from '../../client/lib/emitter.js';
import { LiveStream } from '../../client/lib/live-stream.js';

/**
 * How @hyperlocal/client turns realtime.sync pages into the events its handlers get (client/src/catch-up.ts): one
 * stream in the order things happened, each item once, against what the handlers already had.
 */
const at = (s: number) => new Date(Date.UTC(2025, 0, 1, 12, 0, s)).toISOString();
const page = (over: Record<string, unknown> = {}) => ({ notifications: [], messages: [], orders: [], posts: [], deleted: [], full_refresh: false, has_more: false, cursor: 'c', ...over }) as any;

test('when pages hold several kinds, then they come out as their events, merged oldest first, a post deleted as post:deleted', () => {
  const out = deliveriesOf(
    [
      page({
        posts: [{ id: 'p1', created_at: at(1), updated_at: at(1) }, { id: 'p2', created_at: at(5), updated_at: at(5) }],
        messages: [{ id: 'm1', created_at: at(3) }],
        deleted: [{ type: 'post', id: 'p0', deleted_at: at(6) }, { type: 'comment', id: 'c0', deleted_at: at(2) }],
        has_more: true,
      }),
      page({ notifications: [{ id: 'n1', created_at: at(4), updated_at: at(4) }] }),
    ],
    new SeenSet(),
  );
  expect(out.map((d) => `${d.event} ${(d.payload as { id: string }).id}`)).toEqual(['post:created p1', 'deleted c0', 'message:created m1', 'notification:created n1', 'post:created p2', 'post:deleted p0']);
  expect(out.find((d) => d.event === 'post:deleted')!.payload).toEqual({ id: 'p0' });
});

test('when the handlers had an item already, then it is left out; a changed notification or order comes as :updated, a new one as :created', () => {
  const seen = new SeenSet();
  for (const key of [...keysOf('post:created', { id: 'p1', updated_at: at(9) }), ...keysOf('notification:created', { id: 'n1', updated_at: at(1) }), ...keysOf('order:created', { id: 'o1', updated_at: at(1) })]) seen.add(key);
  const out = deliveriesOf(
    [
      page({
        posts: [{ id: 'p1', created_at: at(1), updated_at: at(9) }],
        notifications: [{ id: 'n1', created_at: at(1), updated_at: at(1) }, { id: 'n2', created_at: at(2), updated_at: at(7) }],
        orders: [{ id: 'o1', created_at: at(1), updated_at: at(8) }],
      }),
      // The same order again on a later page (a cursor used twice repeats its last items): once.
      page({ orders: [{ id: 'o1', created_at: at(1), updated_at: at(8) }] }),
    ],
    seen,
  );
  expect(out.map((d) => `${d.event} ${(d.payload as { id: string }).id}`)).toEqual(['notification:created n2', 'order:updated o1']);
});

test('when a live event repeats what was delivered, then it is known; a newer version of it is not', () => {
  const seen = new SeenSet();
  for (const key of keysOf('order:updated', { id: 'o1', updated_at: at(1) })) seen.add(key);
  expect(alreadySeen(seen, 'order:updated', { id: 'o1', updated_at: at(1) })).toBe(true);
  expect(alreadySeen(seen, 'order:updated', { id: 'o1', updated_at: at(2) })).toBe(false);
  expect(alreadySeen(seen, 'post:stats', { post_id: 'p1' })).toBe(false);
});

test('when a post edited while the client was away comes in a sync page, then it is delivered once as post:updated; an edit heard live is not replayed; a new post stays post:created', () => {
  const seen = new SeenSet();
  for (const key of keysOf('post:created', { id: 'p1', updated_at: at(1) })) seen.add(key);
  const edited = { id: 'p1', created_at: at(1), updated_at: at(5), edited_at: at(5) };
  const fresh = { id: 'p2', created_at: at(6), updated_at: at(6), edited_at: null };
  // The same version on two pages (a cursor used twice repeats its last items): once.
  const out = deliveriesOf([page({ posts: [edited, fresh] }), page({ posts: [edited] })], seen);
  expect(out.map((d) => `${d.event} ${(d.payload as { id: string }).id} ${d.at}`)).toEqual([`post:updated p1 ${at(5)}`, `post:created p2 ${at(6)}`]);

  // Heard live as post:updated (live-stream.ts marks what it delivers): the replayed version is known, live or replayed.
  const live = new SeenSet();
  for (const key of [...keysOf('post:created', { id: 'p1', updated_at: at(1) }), ...keysOf('post:updated', edited)]) live.add(key);
  expect(alreadySeen(live, 'post:updated', edited)).toBe(true);
  expect(deliveriesOf([page({ posts: [edited] })], live)).toEqual([]);
  // A later edit is new again.
  expect(alreadySeen(live, 'post:updated', { ...edited, updated_at: at(9) })).toBe(false);
});

test('when more keys are kept than the limit, then the oldest go first', () => {
  const seen = new SeenSet(2);
  ['a', 'b', 'c'].forEach((k) => seen.add(k));
  expect([seen.has('a'), seen.has('b'), seen.has('c')]).toEqual([false, true, true]);
});

test('when a pushed payload carries values that cannot become text, then its keys are built without them and nothing throws', () => {
  const hostile = { toString: 0, valueOf: 0 };
  expect(keysOf('notification:created', { id: 'n1', updated_at: hostile })).toEqual(['notification:n1', 'notification:n1@']);
  expect(keysOf('deleted', { id: 'c1', type: hostile })).toEqual([]);
  expect(keysOf('post:deleted', { id: hostile })).toEqual([]);
});

/**
 * Versions (seen.ts): a post comes back after moderation hid it (a dismissed report restores it, with a later
 * updated_at), and may be hidden again (a new tombstone, a later deleted_at). The client plays what it is pushed and
 * what it replays through one LiveStream, as Client does.
 */
function aClientStream() {
  const emitter = new Emitter<Record<string, unknown>>();
  const seen = new SeenSet();
  const stream = new LiveStream(emitter, seen);
  const heard: string[] = [];
  for (const event of ['post:created', 'post:deleted', 'deleted']) emitter.on(event, (p) => heard.push(`${event} ${(p as { id: string }).id}`));
  const replay = (...pages: unknown[]) => {
    for (const { event, payload, keys } of deliveriesOf(pages.map((p) => page(p as Record<string, unknown>)), seen)) stream.deliver(event, payload, keys);
  };
  return { stream, heard, replay };
}

test('when a post the handlers saw deleted is restored (a dismissed report), then the replay delivers it again as post:created', () => {
  const { stream, heard, replay } = aClientStream();
  stream.receive('post:created', { id: 'p1', created_at: at(1), updated_at: at(1) });
  stream.receive('post:deleted', { id: 'p1' }); // hidden by auto-hide, pushed live
  replay({ posts: [{ id: 'p1', created_at: at(1), updated_at: at(5) }] }); // restored while offline
  expect(heard).toEqual(['post:created p1', 'post:deleted p1', 'post:created p1']);
});

test('when a restored post is deleted again, then that deletion reaches the handlers, live or replayed', () => {
  const live = aClientStream();
  live.stream.receive('post:created', { id: 'p1', created_at: at(1), updated_at: at(1) });
  live.stream.receive('post:deleted', { id: 'p1' });
  live.replay({ posts: [{ id: 'p1', created_at: at(1), updated_at: at(5) }] });
  live.stream.receive('post:deleted', { id: 'p1' }); // hidden again, pushed live
  expect(live.heard).toEqual(['post:created p1', 'post:deleted p1', 'post:created p1', 'post:deleted p1']);

  const replayed = aClientStream();
  replayed.replay({ posts: [{ id: 'p1', created_at: at(1), updated_at: at(1) }] });
  replayed.replay({ deleted: [{ type: 'post', id: 'p1', deleted_at: at(2) }] });
  replayed.replay({ posts: [{ id: 'p1', created_at: at(1), updated_at: at(5) }] });
  replayed.replay({ deleted: [{ type: 'post', id: 'p1', deleted_at: at(7) }] });
  expect(replayed.heard).toEqual(['post:created p1', 'post:deleted p1', 'post:created p1', 'post:deleted p1']);
});

test('when one deletion arrives both live and replayed, in either order, then the handlers hear it once', () => {
  const liveFirst = aClientStream();
  liveFirst.stream.receive('post:deleted', { id: 'p1' });
  liveFirst.replay({ deleted: [{ type: 'post', id: 'p1', deleted_at: at(2) }] });
  expect(liveFirst.heard).toEqual(['post:deleted p1']);

  const replayFirst = aClientStream();
  replayFirst.replay({ deleted: [{ type: 'post', id: 'p1', deleted_at: at(2) }] });
  replayFirst.stream.receive('post:deleted', { id: 'p1' });
  replayFirst.replay({ deleted: [{ type: 'post', id: 'p1', deleted_at: at(2) }] }); // a cursor's last page again
  expect(replayFirst.heard).toEqual(['post:deleted p1']);

  // The same post at the same version, live then replayed: once.
  const post = aClientStream();
  post.stream.receive('post:created', { id: 'p2', created_at: at(1), updated_at: at(1) });
  post.replay({ posts: [{ id: 'p2', created_at: at(1), updated_at: at(1) }] });
  expect(post.heard).toEqual(['post:created p2']);
});

test('when a comment is hidden, restored and hidden again while offline twice, then each deletion reaches the handlers', () => {
  const { heard, replay } = aClientStream();
  replay({ deleted: [{ type: 'comment', id: 'c1', deleted_at: at(2) }] });
  replay({ deleted: [{ type: 'comment', id: 'c1', deleted_at: at(2) }] }); // the same one again: dropped
  replay({ deleted: [{ type: 'comment', id: 'c1', deleted_at: at(8) }] });
  expect(heard).toEqual(['deleted c1', 'deleted c1']);
});
