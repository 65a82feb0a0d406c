import fs from 'node:fs';
import path from 'node:path';

/**
 * The layering of DESIGN.md section 3, checked on every test run: core and modules never import the
 * transports (express, socket.io, src/http, src/realtime), core imports no module, and no file of src reaches
 * itself through its imports (type-only imports included: a circle of types is a circle of knowledge).
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

/** The files of src that `file` imports (relative specifiers only; `./x.js` is the source `./x.ts`). */
function localImportsOf(file: string): string[] {
  return importsOf(file)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts'))
    .filter((target) => fs.existsSync(target));
}

/** Every import circle of `graph`, each once, as the files along it (the first one repeated at the end). */
function importCircles(graph: Map<string, string[]>): string[][] {
  const circles: string[][] = [];
  const done = new Set<string>();
  const onPath: string[] = [];
  const visit = (file: string) => {
    const at = onPath.indexOf(file);
    if (at >= 0) return void circles.push([...onPath.slice(at), file]);
    if (done.has(file)) return;
    onPath.push(file);
    for (const next of graph.get(file) ?? []) visit(next);
    onPath.pop();
    done.add(file);
  };
  for (const file of graph.keys()) visit(file);
  return circles;
}

describe('import boundaries', () => {
  test('when src is scanned, then no file reaches itself through its imports (every arrow points down)', () => {
    const graph = new Map(sourceFiles(SRC).map((file) => [file, localImportsOf(file)]));
    const circles = importCircles(graph).map((circle) => circle.map((file) => path.relative(SRC, file)).join(' → '));
    expect(circles).toEqual([]);
  });

  test('when the circle finder meets a circle, then it reports it, and a diamond is no circle (the check itself works)', () => {
    const diamond = new Map([['a', ['b', 'c']], ['b', ['d']], ['c', ['d']], ['d', []]]);
    expect(importCircles(diamond)).toEqual([]);
    const circle = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['d']]]);
    expect(importCircles(circle)).toEqual([['a', 'b', 'c', 'a'], ['d', 'd']]);
  });

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
