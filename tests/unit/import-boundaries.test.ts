import fs from 'node:fs';
import path from 'node:path';

/**
 * The layering of DESIGN.md section 3, checked on every test run: core and modules never import the
 * transports (express, socket.io, src/http, src/realtime), and core imports no module.
 */
const SRC = path.resolve('src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1] ?? m[2]);
}

function violations(layer: string, forbidden: (spec: string, file: string) => boolean): string[] {
  return sourceFiles(path.join(SRC, layer)).flatMap((file) =>
    importsOf(file)
      .filter((spec) => forbidden(spec, file))
      .map((spec) => `${path.relative(SRC, file)} imports ${spec}`),
  );
}

const resolvesInto = (spec: string, file: string, target: string) =>
  spec.startsWith('.') && path.resolve(path.dirname(file), spec).startsWith(path.join(SRC, target) + path.sep);

const isTransport = (spec: string, file: string) =>
  /^(express|socket\.io|multer|cookie-parser|passport)/.test(spec) || resolvesInto(spec, file, 'http') || resolvesInto(spec, file, 'realtime');

describe('import boundaries', () => {
  test('when core is scanned, then it imports no transport and no module', () => {
    expect(violations('core', (spec, file) => isTransport(spec, file) || resolvesInto(spec, file, 'modules'))).toEqual([]);
  });

  test('when modules are scanned, then none imports a transport', () => {
    expect(violations('modules', isTransport)).toEqual([]);
  });

  test('when the scanner meets a forbidden import, then it reports it (the check itself works)', () => {
    const file = path.join(SRC, 'modules', 'x', 'y.ts');
    expect(isTransport('express', file)).toBe(true);
    expect(isTransport('../../http/app.js', file)).toBe(true);
    expect(isTransport('../../core/errors.js', file)).toBe(false);
  });
});
