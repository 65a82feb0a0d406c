import fs from 'node:fs';

/**
 * `npx tsx bench/lib/cpu-profile.ts FILE.cpuprofile [N]`: the top N functions by self time (and, for the
 * named hot spots, by total time) of a `node --cpu-prof` profile, e.g. of the kernel bench's target:
 * `KERNEL_BENCH_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/prof" npm run bench -- kernel --database=server`.
 */
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

const [file, topArg] = process.argv.slice(2);
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);

const label = (n: Node) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(src|bench)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;
const selfByLabel = new Map<string, number>();
const inclusiveByLabel = new Map<string, number>();
for (const [id, t] of self) {
  selfByLabel.set(label(byId.get(id)!), (selfByLabel.get(label(byId.get(id)!)) ?? 0) + t);
  // Each sample counts once for every distinct function on its stack.
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(byId.get(cur)!);
    if (!seen.has(l)) inclusiveByLabel.set(l, (inclusiveByLabel.get(l) ?? 0) + t), seen.add(l);
  }
}
const pct = (t: number) => `${((100 * t) / total).toFixed(1).padStart(5)} %`;
const top = Number(topArg ?? 15);
console.log(`self time (total ${(total / 1e6).toFixed(1)} s sampled)`);
for (const [l, t] of [...selfByLabel].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(t)}  ${l}`);
console.log('\ninclusive time of known hot spots');
for (const name of ['createPublicKey', 'verify ', 'buildQueryFromSourceParams', 'sqlToQuery', 'asJson', 'pinoLogger', 'fullReqLogger', 'wrappedReqSerializer', 'writeSync', 'query pg/lib']) {
  const hits = [...inclusiveByLabel].filter(([l]) => l.includes(name.trim()) || l.replace(/ /g, '').includes(name.replace(/ /g, '')));
  for (const [l, t] of hits.sort((a, b) => b[1] - a[1]).slice(0, 2)) console.log(`${pct(t)}  ${l}`);
}
