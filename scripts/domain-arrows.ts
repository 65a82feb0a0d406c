// `npx tsx scripts/domain-arrows.ts [--json]`: the import arrows between the domain folders of src/modules, and
// how many of them run back up under the best floor order.
//
// An arrow is a pair of domain folders (A, B) where some file of A imports (type-only imports included) a file of
// B. A floor order puts every domain on its own floor, lowest first; an arrow "runs down" when B stands below A and
// "back up" otherwise. The script finds the floor order with the fewest arrows back up (exactly: dynamic
// programming over the subsets of domains, a few thousand steps for ~20 domains), prints that order, the count and
// every arrow back up with the files that make it. Folders that are not domains (the policy and contract floors
// below them, shared helpers) are named in NOT_DOMAINS and left out of the count.
import fs from 'node:fs';
import path from 'node:path';

const MODULES = path.resolve('src/modules');
/** Folders of src/modules that are floors below the domains, not domains: arrows into them always run down. */
const NOT_DOMAINS = new Set<string>(process.env.DOMAIN_ARROWS_ALL ? [] : ['policy']);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  // `import x from '…'`, `export … from '…'`, `import('…')` and the bare `import '…'` (a module loaded for its effects
  // or its declarations).
  return [...text.matchAll(/(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm)].map((m) => m[1] ?? m[2] ?? m[3]);
}

const domainOf = (file: string): string | null => {
  const rel = path.relative(MODULES, file);
  if (rel.startsWith('..')) return null;
  const top = rel.split(path.sep)[0];
  return top && !top.endsWith('.ts') ? top : null;
};

export function domainArrows(): Map<string, Map<string, string[]>> {
  const arrows = new Map<string, Map<string, string[]>>();
  for (const file of sourceFiles(MODULES)) {
    const from = domainOf(file);
    if (!from || NOT_DOMAINS.has(from)) continue;
    if (!arrows.has(from)) arrows.set(from, new Map());
    for (const spec of importsOf(file)) {
      if (!spec.startsWith('.')) continue;
      const target = path.resolve(path.dirname(file), spec);
      const to = domainOf(target);
      if (!to || to === from || NOT_DOMAINS.has(to)) continue;
      const why = arrows.get(from)!;
      if (!why.has(to)) why.set(to, []);
      why.get(to)!.push(`${path.relative(MODULES, file)} → ${path.relative(MODULES, target).replace(/\.js$/, '.ts')}`);
    }
  }
  return arrows;
}

/** The floor order (lowest first) with the fewest arrows back up, and those arrows. */
export function bestFloors(arrows: Map<string, Map<string, string[]>>): { order: string[]; up: [string, string][] } {
  const names = [...new Set([...arrows.keys(), ...[...arrows.values()].flatMap((m) => [...m.keys()])])].sort();
  const n = names.length;
  const idx = new Map(names.map((d, i) => [d, i]));
  // importedBy[v]: bitmask of the domains that import v.
  const importedBy = names.map(() => 0);
  for (const [from, tos] of arrows) for (const to of tos.keys()) importedBy[idx.get(to)!] |= 1 << idx.get(from)!;
  const popcount = (x: number) => { let c = 0; while (x) { x &= x - 1; c++; } return c; };
  const size = 1 << n;
  const cost = new Int32Array(size).fill(1 << 30);
  const prev = new Int8Array(size).fill(-1);
  cost[0] = 0;
  for (let s = 0; s < size; s++) {
    if (cost[s] === 1 << 30) continue;
    for (let v = 0; v < n; v++) {
      if (s & (1 << v)) continue;
      // Placing v above everything in s: each domain of s that imports v is an arrow back up.
      const c = cost[s] + popcount(importedBy[v] & s);
      const t = s | (1 << v);
      if (c < cost[t]) { cost[t] = c; prev[t] = v; }
    }
  }
  const order: string[] = [];
  for (let s = size - 1; s; s &= ~(1 << prev[s])) order.unshift(names[prev[s]]);
  const floor = new Map(order.map((d, i) => [d, i]));
  const up: [string, string][] = [];
  for (const [from, tos] of arrows) for (const to of tos.keys()) if (floor.get(to)! > floor.get(from)!) up.push([from, to]);
  return { order, up: up.sort() };
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('domain-arrows.ts')) {
  const arrows = domainArrows();
  const total = [...arrows.values()].reduce((s, m) => s + m.size, 0);
  const { order, up } = bestFloors(arrows);
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify({ domains: order.length, arrows: total, up: up.length, order, upArrows: up }, null, 2));
  } else {
    console.log(`${order.length} domain folders, ${total} arrows between them, ${up.length} run back up under the best floor order.`);
    console.log(`Floors, lowest first: ${order.join(' < ')}`);
    // Floors by longest path: a domain stands one floor above the highest one it imports (arrows back up ignored).
    const level = new Map<string, number>();
    for (const d of order) {
      const below = [...(arrows.get(d)?.keys() ?? [])].filter((to) => order.indexOf(to) < order.indexOf(d));
      level.set(d, 1 + Math.max(0, ...below.map((to) => level.get(to)!)));
    }
    const floors = Math.max(...level.values());
    for (let f = floors; f >= 1; f--) console.log(`  floor ${f}: ${order.filter((d) => level.get(d) === f).join(', ')}`);
    for (const [from, to] of up) {
      const files = arrows.get(from)!.get(to)!;
      console.log(`  ${from} → ${to}  (${files.length} import${files.length > 1 ? 's' : ''}: ${files.slice(0, 3).join('; ')}${files.length > 3 ? '; …' : ''})`);
    }
  }
}
