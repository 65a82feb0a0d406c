import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Extension } from '@electric-sql/pglite';
import { postgis } from '@electric-sql/pglite-postgis';

/**
 * PostGIS for PGlite without the parts this service never loads.
 *
 * PGlite unpacks an extension's whole bundle into its in-memory file system and compiles every `.so`
 * in it on every start, whether or not the extension is ever created. pglite-postgis's bundle holds
 * three 15-17 MB WASM libraries (postgis, postgis_raster, postgis_topology), the SQL of four extensions
 * and their upgrade paths: about 95 MB unpacked. Compiling the two unused libraries and keeping the
 * unused files cost about a second of every start and hundreds of MB of the database process's memory.
 * The slim bundle keeps postgis-3.so, the postgis extension's control file and install script, and the
 * PROJ data (ST_Transform needs it). It is built once from the installed package and cached under
 * node_modules/.cache, named after the package version so an upgrade rebuilds it.
 */
const PACKAGE_VERSION = '0.2.8';
const EXTENSION_VERSION = '3.6.2';

const KEEP = [
  /^lib\/postgresql\/postgis-3\.so$/,
  /^share\/proj\//,
  /^share\/postgresql\/extension\/postgis\.control$/,
  new RegExp(`^share/postgresql/extension/postgis--${EXTENSION_VERSION.replace(/\./g, '\\.')}\\.sql$`),
];

const fullBundle = (): string => fileURLToPath(new URL('./postgis.tar.gz', import.meta.resolve('@electric-sql/pglite-postgis')));

/** The entries of a tar archive whose names match `keep`, as a new tar archive. */
export function filterTar(tar: Buffer, keep: (name: string) => boolean): Buffer {
  const kept: Buffer[] = [];
  let offset = 0;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const field = (start: number, length: number) => header.subarray(start, start + length).toString('utf8').replace(/\0.*$/s, '');
    const size = Number.parseInt(field(124, 12).trim() || '0', 8);
    const name = [field(345, 155), field(0, 100)].filter(Boolean).join('/');
    const typeflag = field(156, 1);
    const entryLength = 512 + Math.ceil(size / 512) * 512;
    // Regular files and directories only: long-name and pax records would belong to the next entry, and
    // this bundle has none (checked when the versions above were pinned).
    if ((typeflag === '0' || typeflag === '' || typeflag === '5') && keep(name)) kept.push(tar.subarray(offset, offset + entryLength));
    offset += entryLength;
  }
  kept.push(Buffer.alloc(1024));
  return Buffer.concat(kept);
}

function cachedSlimBundle(): string | null {
  const source = fullBundle();
  const cacheDir = path.resolve(path.dirname(source), '../../../.cache/hyperlocal');
  const target = path.join(cacheDir, `pglite-postgis-${PACKAGE_VERSION}-slim.tar.gz`);
  if (fs.existsSync(target)) return target;
  try {
    const tar = zlib.gunzipSync(fs.readFileSync(source));
    const slim = filterTar(tar, (name) => KEEP.some((re) => re.test(name)));
    fs.mkdirSync(cacheDir, { recursive: true });
    // Written aside and renamed: two processes building it at once never see half a file.
    const partial = `${target}.${process.pid}.tmp`;
    fs.writeFileSync(partial, zlib.gzipSync(slim, { level: 1 }));
    fs.renameSync(partial, target);
    return target;
  } catch (err) {
    // A read-only node_modules (some container images) costs only speed: use the full bundle.
    console.warn(`embedded database: cannot cache the slim PostGIS bundle (${(err as Error).message}); loading the full one`);
    return null;
  }
}

/** The `postgis` extension for PGlite.create, loading the slim bundle when it can be built. */
export function slimPostgis(): Extension {
  const bundle = cachedSlimBundle();
  if (!bundle) return postgis;
  return {
    name: postgis.name,
    setup: async (pg, emscriptenOpts) => ({
      ...(await postgis.setup(pg, emscriptenOpts)),
      bundlePath: pathToFileURL(bundle),
    }),
  };
}
