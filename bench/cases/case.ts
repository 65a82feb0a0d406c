import type { Bench } from '../lib/harness.js';

/** One named benchmark: it arranges its data and returns raw timings; run.ts summarises them. */
export interface Measurement {
  name: string;
  samples: number[];
  note?: string;
}

export interface BenchCase {
  name: string;
  run(bench: Bench): Promise<Measurement[]>;
}

/** The case's own iteration count unless `--iterations=N` overrides it. */
export const iterations = (bench: Bench, own: number) => bench.args.iterations ?? own;
