// `npm run bench:pack` (issue 39): the cluster bench (bench/realtime-cluster.ts) as something that runs on a machine
// with no registry and no checkout: one esbuild bundle per process (the bench's parent, the service node, the bare
// Socket.IO server, the client process, the embedded database's process) instead of tsx and the whole tree, the few
// packages a bundle cannot hold (native code, WASM and data files found beside their modules), Debian's redis-server
// with the libraries ldd lists for it and their loader, and this machine's Node binary. Written to
// bench/pack/hyperlocal-bench/ and bench/pack/hyperlocal-bench.tar.xz (both ignored by git); the archive must stay
// under 64 MiB (the device tool's limit on carried files), which this script checks.
//
// Run from the pack, anywhere, with a clean PATH:
//   tar -xJf hyperlocal-bench.tar.xz && env -i HOME=/tmp hyperlocal-bench/run.sh --nodes=2 --rates=20 --duration=5
// run.sh starts the packed redis-server and uses the embedded database unless told --database=server.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outRoot = path.join(root, 'bench', 'pack');
const out = path.join(outRoot, 'hyperlocal-bench');
const archive = path.join(outRoot, 'hyperlocal-bench.tar.xz');
const LIMIT = 64 * 1024 * 1024;

fs.rmSync(outRoot, { recursive: true, force: true });
fs.mkdirSync(path.join(out, 'app'), { recursive: true });

// Kept out of the bundles: native code, WASM and the files these packages load from beside themselves.
const external = ['argon2', '@electric-sql/*', 'pg-native', 'bufferutil', 'utf-8-validate'];
// sharp (libvips, 20 MB) is imported by the media code at load; the bench never touches an image: a stub that
// accepts the settings made at load and refuses any use.
const stubSharp = {
  name: 'stub-sharp',
  setup(build) {
    build.onResolve({ filter: /^sharp$/ }, () => ({ path: 'sharp', namespace: 'bench-stub' }));
    build.onLoad({ filter: /.*/, namespace: 'bench-stub' }, () => ({
      contents: "const sharp = () => { throw new Error('sharp is not in the bench pack'); }; sharp.concurrency = () => 1; sharp.cache = () => undefined; export default sharp;",
      loader: 'js',
    }));
  },
};
const entries = {
  cluster: 'bench/cluster-main.ts',
  'realtime-node': 'bench/realtime-node.ts',
  'realtime-bare': 'bench/realtime-bare.mjs',
  'realtime-clients': 'bench/realtime-clients.mjs',
  'embedded-db-process': 'src/platform/embedded-db-process.ts',
};
for (const [name, entry] of Object.entries(entries)) {
  await esbuild.build({
    entryPoints: [path.join(root, entry)],
    outfile: path.join(out, 'app', `${name}.mjs`),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external,
    plugins: [stubSharp],
    // CommonJS packages inside an ES module bundle still call require().
    banner: { js: "import { createRequire as __benchPackRequire } from 'node:module'; const require = __benchPackRequire(import.meta.url);" },
    logLevel: 'warning',
  });
}

// Files the service reads at run time, where its code looks for them relative to its module (now app/*.mjs).
fs.cpSync(path.join(root, 'src', 'models', 'migrations'), path.join(out, 'models', 'migrations'), { recursive: true });

// The external packages and what they require at run time.
const modules = path.join(out, 'node_modules');
const copyPackage = (name) => fs.cpSync(path.join(root, 'node_modules', name), path.join(modules, name), { recursive: true, dereference: true });
for (const name of ['argon2', '@phc/format', 'node-gyp-build', '@electric-sql/pglite', '@electric-sql/pglite-postgis', '@electric-sql/pglite-socket']) copyPackage(name);
// argon2's prebuilt binaries for other systems are dead weight here.
const prebuilds = path.join(modules, 'argon2', 'prebuilds');
if (fs.existsSync(prebuilds)) for (const d of fs.readdirSync(prebuilds)) if (d !== 'linux-x64') fs.rmSync(path.join(prebuilds, d), { recursive: true, force: true });
// Packages the service only locates at start (their files serve routes the bench never calls): a manifest each.
const manifest = (name, version) => {
  fs.mkdirSync(path.join(modules, name), { recursive: true });
  fs.writeFileSync(path.join(modules, name, 'package.json'), JSON.stringify({ name, version }) + '\n');
};
for (const name of ['@hyperlocal/client', 'socket.io-client', 'swagger-ui-dist']) manifest(name, '0.0.0-bench-pack');
// The socket libraries bundled, by their real versions: the service turns its direct broadcast writes on only for
// the versions it was checked against (src/realtime/socket-library-versions.ts).
// Each resolved as the service resolves it (a copy nested under its dependent first, as Node's lookup goes).
const versionOf = (name, under = '') => {
  const nested = path.join(root, 'node_modules', under, 'node_modules', name, 'package.json');
  const file = under && fs.existsSync(nested) ? nested : path.join(root, 'node_modules', name, 'package.json');
  return JSON.parse(fs.readFileSync(file, 'utf8')).version;
};
manifest('socket.io', versionOf('socket.io'));
manifest('socket.io-adapter', versionOf('socket.io-adapter', 'socket.io'));
manifest('engine.io', versionOf('engine.io', 'socket.io'));
manifest('ws', versionOf('ws', 'engine.io'));

// Debian's redis-server, the libraries it is linked with (ldd), and their loader: run as
// `redis/ld-linux-x86-64.so.2 --library-path redis/lib redis/redis-server`, so no library of the host is used.
const redisBinary = execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim();
fs.mkdirSync(path.join(out, 'redis', 'lib'), { recursive: true });
fs.copyFileSync(fs.realpathSync(redisBinary), path.join(out, 'redis', 'redis-server'));
fs.chmodSync(path.join(out, 'redis', 'redis-server'), 0o755);
for (const line of execFileSync('ldd', [redisBinary], { encoding: 'utf8' }).split('\n')) {
  const lib = /=>\s*(\S+)/.exec(line)?.[1];
  const loader = /^\s*(\/\S*ld-linux\S*)/.exec(line)?.[1];
  if (lib && lib !== 'not') fs.copyFileSync(fs.realpathSync(lib), path.join(out, 'redis', 'lib', path.basename(lib)));
  if (loader) fs.copyFileSync(fs.realpathSync(loader), path.join(out, 'redis', 'ld-linux-x86-64.so.2'));
}
fs.chmodSync(path.join(out, 'redis', 'ld-linux-x86-64.so.2'), 0o755);

// This machine's Node binary.
fs.mkdirSync(path.join(out, 'bin'), { recursive: true });
fs.copyFileSync(process.execPath, path.join(out, 'bin', 'node'));
fs.chmodSync(path.join(out, 'bin', 'node'), 0o755);

fs.writeFileSync(
  path.join(out, 'run.sh'),
  `#!/bin/sh
# The cluster bench from the pack (scripts/bench-pack.mjs): its Node, its redis-server, the embedded database.
# Flags: bench/realtime-cluster.ts (--nodes, --adapter, --database, --scenario, --rates, --duration, ...).
here=$(cd "$(dirname "$0")" && pwd)
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
export PATH="$here/bin:/usr/bin:/bin"
exec "$here/bin/node" "$here/app/cluster.mjs" --redis-server="$here/redis/redis-server" --database=embedded "$@"
`,
  { mode: 0o755 },
);

execFileSync('tar', ['-C', outRoot, '-cJf', archive, 'hyperlocal-bench'], { env: { ...process.env, XZ_OPT: '-6 -T0' } });
const size = fs.statSync(archive).size;
const unpacked = Number(execFileSync('du', ['-sb', out], { encoding: 'utf8' }).split('\t')[0]);
console.log(`${path.relative(root, archive)}: ${(size / 2 ** 20).toFixed(1)} MiB (unpacked ${(unpacked / 2 ** 20).toFixed(1)} MiB)`);
if (size >= LIMIT) {
  console.error(`the pack is over 64 MiB`);
  process.exit(1);
}
