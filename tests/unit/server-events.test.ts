import fs from 'node:fs';
import path from 'node:path';
import { serverEvents } from '../../src/realtime/server-events.js';

/**
 * src/realtime/server-events.ts lists every event the server pushes, with its payload's schema: the client's types
 * are generated from it. An event emitted in src/realtime and missing there would reach apps untyped.
 */
function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

/** Names in `.emit('name'`, and the first `'a:b'` literal of `emitTo(io, rooms, 'a:b'` (event-routes.ts' helper for several rooms). */
function emittedNames(): Set<string> {
  const names = new Set<string>();
  for (const file of sourceFiles(path.resolve('src/realtime'))) {
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\.emit\(\s*'([^']+)'|emitTo\([^']*?'([a-z]+:[a-z]+)'/g)) names.add(m[1] ?? m[2]);
  }
  return names;
}

test('when src/realtime is scanned, then every event it pushes is in the table of pushed events, and the table lists no other', () => {
  const emitted = emittedNames();
  expect(emitted.size).toBeGreaterThan(10);
  expect([...emitted].sort()).toEqual(Object.keys(serverEvents).sort());
});
