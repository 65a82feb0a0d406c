/**
 * Timing and its summary. Latency is measured one call at a time (no concurrency): the figures are what
 * one client waits, which is what the targets in the issues are about.
 */
export interface Summary {
  name: string;
  n: number;
  median: number;
  p90: number;
  p99: number;
  max: number;
  /** median / baseline median, measured in the same process so a noisy machine shifts both alike. */
  ratio: number | null;
  /** Free-form facts about the run (e.g. how many calls found an existing location). */
  note?: string;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function summarize(name: string, samplesMs: number[], baselineMedian: number | null, note?: string): Summary {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const median = percentile(sorted, 50);
  return {
    name,
    n: sorted.length,
    median,
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1],
    ratio: baselineMedian ? median / baselineMedian : null,
    note,
  };
}

export interface MeasureOptions {
  iterations: number;
  /** Calls before timing starts: JIT, prepared plans, pool connections, caches. */
  warmup?: number;
}

/**
 * Time `fn(i)` `iterations` times after `warmup` untimed calls. `fn` gets the call index so that each
 * call can use its own pre-generated input; generating the input is kept outside the timed region.
 */
export async function measure(fn: (i: number) => Promise<unknown>, opts: MeasureOptions): Promise<number[]> {
  const warmup = opts.warmup ?? Math.min(50, Math.ceil(opts.iterations / 10));
  for (let i = 0; i < warmup; i++) await fn(opts.iterations + i);
  const samples: number[] = [];
  for (let i = 0; i < opts.iterations; i++) {
    const start = process.hrtime.bigint();
    await fn(i);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return samples;
}

export const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);

const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

export function formatTable(title: string, rows: Summary[]): string {
  const header = ['case', 'n', 'median ms', 'p90 ms', 'p99 ms', 'max ms', 'x baseline'];
  const body = rows.map((r) => [r.name, String(r.n), ms(r.median), ms(r.p90), ms(r.p99), ms(r.max), r.ratio === null ? '' : r.ratio.toFixed(1)]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const notes = rows.filter((r) => r.note).map((r) => `  ${r.name}: ${r.note}`);
  return [`\n== ${title}`, line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line), ...notes].join('\n');
}

/**
 * How far a ratio of two percentiles can move on samples like these: the 2.5th and 97.5th percentiles of the ratio
 * over `resamples` bootstrap resamples (each set drawn again with replacement, at its own size). A seeded generator,
 * so one run's interval is repeatable. A p99 ratio of two sets of a few thousand latencies moves by tens of percent
 * between runs of one tree; the interval says whether a difference from a target is more than that.
 */
export function bootstrapRatioInterval(numerator: number[], denominator: number[], p: number, resamples = 1000, seed = 1): [number, number] {
  let state = seed >>> 0 || 1;
  const random = () => {
    // xorshift32
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 0x100000000;
  };
  const draw = (values: number[]) => {
    const out = new Array<number>(values.length);
    for (let i = 0; i < values.length; i++) out[i] = values[Math.floor(random() * values.length)];
    return out.sort((a, b) => a - b);
  };
  const ratios: number[] = [];
  for (let r = 0; r < resamples; r++) ratios.push(percentile(draw(numerator), p) / percentile(draw(denominator), p));
  ratios.sort((a, b) => a - b);
  return [percentile(ratios, 2.5), percentile(ratios, 97.5)];
}
