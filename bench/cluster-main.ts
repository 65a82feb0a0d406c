import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseClusterArgs, runCluster } from './realtime-cluster.js';

/**
 * The cluster bench's own entry (bench/realtime-cluster.ts), what the pack runs (`node app/cluster.mjs --nodes=4 ...`,
 * scripts/bench-pack.mjs): the same flags as `npm run bench -- cluster`. The rows are printed and written as JSON to
 * `--results=DIR` (default: the current directory).
 */
const argv = process.argv.slice(2);
const opts = parseClusterArgs(argv);
const rows = await runCluster(opts);
const dir = argv.find((a) => a.startsWith('--results='))?.split('=')[1] ?? '.';
await fs.mkdir(dir, { recursive: true });
const file = path.join(dir, `cluster-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
await fs.writeFile(file, JSON.stringify({ case: 'cluster', machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version }, opts, rows }, null, 2) + '\n');
console.log(`  results: ${file}`);
