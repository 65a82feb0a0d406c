import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

/**
 * The versions of the socket libraries whose private fields direct-broadcast.ts reads, exactly as its claims were
 * checked against their sources. package.json pins them (socket.io directly; socket.io-adapter, engine.io and ws
 * through `overrides`), but `npm install`, not `npm ci`, is what works here (DESIGN.md 2.2), so the versions
 * actually loaded are checked again at start: on any other version the direct write stays off.
 * socket.io-adapter is here too: its `_encode` builds the pre-encoded frame that the direct write sends as is.
 */
export const CHECKED_SOCKET_LIBRARIES = {
  'socket.io': '4.8.4',
  'socket.io-adapter': '2.5.8',
  'engine.io': '6.6.12',
  ws: '8.21.3',
} as const;

export type SocketLibrary = keyof typeof CHECKED_SOCKET_LIBRARIES;
/** null: the package or its version could not be read. */
export type SocketLibraryVersions = Record<SocketLibrary, string | null>;

/** The directory of package `name` as a module at `fromFile` (a path or file URL) resolves it: from its entry point up to its package.json. */
function packageDir(name: string, fromFile: string): string | null {
  let dir: string;
  try {
    dir = path.dirname(createRequire(fromFile).resolve(name));
  } catch {
    return null;
  }
  // Not `name/package.json`: engine.io's `exports` do not include it.
  for (; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest) && readManifest(manifest)?.name === name) return dir;
  }
  return null;
}

function readManifest(file: string): { name?: string; version?: string } | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

const versionIn = (dir: string | null) => (dir ? (readManifest(path.join(dir, 'package.json'))?.version ?? null) : null);

/**
 * The versions loaded, each resolved the way the code that loads it resolves it: socket.io from this file, its
 * adapter and engine.io from socket.io, ws from engine.io.
 */
export function installedSocketLibraryVersions(): SocketLibraryVersions {
  const from = (dir: string) => path.join(dir, 'package.json');
  const socketIo = packageDir('socket.io', import.meta.url);
  const adapter = socketIo && packageDir('socket.io-adapter', from(socketIo));
  const engineIo = socketIo && packageDir('engine.io', from(socketIo));
  const ws = engineIo && packageDir('ws', from(engineIo));
  return { 'socket.io': versionIn(socketIo), 'socket.io-adapter': versionIn(adapter), 'engine.io': versionIn(engineIo), ws: versionIn(ws) };
}

/** Each library whose version is not the checked one, as `name version (checked: version)`; empty when all match. */
export function uncheckedSocketLibraries(installed: SocketLibraryVersions): string[] {
  return (Object.keys(CHECKED_SOCKET_LIBRARIES) as SocketLibrary[])
    .filter((name) => installed[name] !== CHECKED_SOCKET_LIBRARIES[name])
    .map((name) => `${name} ${installed[name] ?? 'unknown'} (checked: ${CHECKED_SOCKET_LIBRARIES[name]})`);
}
