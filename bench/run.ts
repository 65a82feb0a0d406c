import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { startBench, type BenchArgs } from './lib/harness.js';
import { formatTable, summarize, type Summary } from './lib/stats.js';
import type { BenchCase } from './cases/case.js';
import { accountsCase } from './cases/accounts.js';
import { locationsCase } from './cases/locations.js';
import { notificationsCase } from './cases/notifications.js';
import { postsCase } from './cases/posts.js';
import { feedsCase } from './cases/feeds.js';
import { runStartup } from './startup.js';
import { formatKernelTable, runKernel } from './kernel/run.js';

/**
 * `npm run bench` runs every case; `npm run bench -- locations accounts` runs those named.
 * Flags: `--regenerate` rebuilds the synthetic data, `--iterations=N` shortens (or lengthens) every case.
 * Each case's table starts with a `SELECT 1` baseline measured just before it, and every median is also
 * given as a multiple of that baseline, which stays comparable between a quiet and a busy machine.
 */
const DB_CASES: BenchCase[] = [accountsCase, locationsCase, notificationsCase, postsCase, feedsCase];
DB_CASES.push((await import('./cases/locations-naming.js')).locationsNamingCase);
DB_CASES.push((await import('./cases/messages-communities.js')).messagesCommunitiesCase);
DB_CASES.push((await import('./cases/marketplace.js')).marketplaceCase);
DB_CASES.push((await import('./cases/sync.js')).syncCase);
DB_CASES.push((await import('./cases/display.js')).displayCase);
DB_CASES.push((await import('./cases/community-fanout.js')).communityFanoutCase);
DB_CASES.push((await import('./cases/alerts.js')).alertsCase);
const ALL = [...DB_CASES.map((c) => c.name), 'kernel', 'adapters', 'realtime', 'cluster', 'media', 'webhooks', 'search', 'push', 'startup', 'embedded'];
const RESULTS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');

const numberFlag = (argv: string[], name: string): number | null => {
  const flag = argv.find((a) => a.startsWith(`--${name}=`));
  return flag ? Number(flag.split('=')[1]) : null;
};

function parseArgs(argv: string[]): { names: string[]; args: BenchArgs } {
  const names = argv.filter((a) => !a.startsWith('--'));
  const unknown = names.filter((n) => !ALL.includes(n));
  if (unknown.length) throw new Error(`unknown case ${unknown.join(', ')}; cases: ${ALL.join(', ')}`);
  const iterationsFlag = argv.find((a) => a.startsWith('--iterations='));
  return {
    // `cluster` needs Redis and runs only when named.
    names: names.length ? names : ALL.filter((n) => n !== 'cluster'),
    args: { regenerate: argv.includes('--regenerate'), iterations: iterationsFlag ? Number(iterationsFlag.split('=')[1]) : null },
  };
}

async function writeResults(caseName: string, rows: unknown[], extra: Record<string, unknown>): Promise<string> {
  await fs.mkdir(RESULTS_DIR, { recursive: true });
  const date = new Date().toISOString().replace(/[:.]/g, '-');
  const file = path.join(RESULTS_DIR, `${caseName}-${date}.json`);
  const machine = { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version, ...extra };
  await fs.writeFile(file, JSON.stringify({ case: caseName, date: new Date().toISOString(), machine, rows }, null, 2) + '\n');
  return path.relative(process.cwd(), file);
}

async function main() {
  const { names, args } = parseArgs(process.argv.slice(2));
  const dbCases = DB_CASES.filter((c) => names.includes(c.name));
  if (dbCases.length) {
    const bench = await startBench(args);
    try {
      const { rows } = await bench.pool.query<{ version: string }>('SHOW server_version');
      for (const benchCase of dbCases) {
        const baseline = await bench.baseline();
        const measured = await benchCase.run(bench);
        const table = [baseline, ...measured.map((m) => summarize(m.name, m.samples, baseline.median, m.note))];
        console.log(formatTable(benchCase.name, table));
        console.log(`  results: ${await writeResults(benchCase.name, table, { postgres: rows[0].version })}`);
      }
    } finally {
      await bench.stop();
    }
  }
  if (names.includes('kernel')) {
    const argv = process.argv.slice(2);
    const load = { concurrency: numberFlag(argv, 'concurrency') ?? 20, durationMs: (numberFlag(argv, 'duration') ?? 5) * 1000, warmupMs: (numberFlag(argv, 'warmup') ?? 2) * 1000 };
    const only = argv.find((a) => a.startsWith('--database='))?.split('=')[1];
    const databases: Array<'server' | 'embedded'> = only === 'server' || only === 'embedded' ? [only] : ['server', 'embedded'];
    const rows = await runKernel({ ...load, databases });
    console.log(formatKernelTable(rows, load));
    console.log(`  results: ${await writeResults('kernel', rows, { load })}`);
  }
  if (names.includes('adapters')) {
    const argv = process.argv.slice(2);
    const { runAdapters, formatAdapters } = await import('./adapters.js');
    const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    const rows = await runAdapters({ redisUrl, rooms: numberFlag(argv, 'rooms') ?? 2000, eventsPerRoom: numberFlag(argv, 'events') ?? 5 });
    console.log(formatAdapters(rows));
    console.log(`  results: ${await writeResults('adapters', rows, { redis: redisUrl.replace(/\/\/[^@]*@/, '//') })}`);
  }
  if (names.includes('realtime')) {
    const argv = process.argv.slice(2);
    const { runRealtime, formatRealtime } = await import('./realtime.js');
    const rates = argv.find((a) => a.startsWith('--rates='))?.split('=')[1].split(',').map(Number) ?? [50, 100, 200, 400];
    const opts = {
      sockets: numberFlag(argv, 'sockets') ?? 10_000,
      subscribed: numberFlag(argv, 'subscribed') ?? 1000,
      rates,
      durationSeconds: numberFlag(argv, 'duration') ?? 10,
      clientProcesses: numberFlag(argv, 'client-processes') ?? undefined,
      redisUrl: process.env.REDIS_URL,
      profileDir: argv.find((a) => a.startsWith('--profile='))?.split('=')[1],
    };
    const result = await runRealtime(opts);
    console.log(formatRealtime(result, opts));
    console.log(`  results: ${await writeResults('realtime', result.rows, { ...opts, memoryPerIdleSocket: result.memory })}`);
  }
  if (names.includes('cluster')) {
    const { runCluster, parseClusterArgs } = await import('./realtime-cluster.js');
    const opts = parseClusterArgs(process.argv.slice(2));
    const rows = await runCluster(opts);
    console.log(`  results: ${await writeResults('cluster', rows, { ...opts })}`);
  }
  if (names.includes('media')) {
    const argv = process.argv.slice(2);
    const { runMedia, formatMedia } = await import('./media.js');
    const { runFloods, formatFloods } = await import('./media-floods.js');
    const opts = { uploads: numberFlag(argv, 'uploads') ?? 60, concurrency: numberFlag(argv, 'concurrency') ?? 20 };
    if (!argv.includes('--floods-only')) {
      const result = await runMedia(opts);
      console.log(formatMedia(result, opts));
      console.log(`  results: ${await writeResults('media', result.rows, { ...opts, imageBytes: result.imageBytes })}`);
    }
    const floodOpts = { files: numberFlag(argv, 'flood-files') ?? 20, settleSeconds: numberFlag(argv, 'settle') ?? 60 };
    const floods = await runFloods(floodOpts);
    console.log(formatFloods(floods));
    console.log(`  results: ${await writeResults('media-floods', floods, { ...floodOpts, serviceEnv: process.env.BENCH_SERVICE_ENV ?? '' })}`);
  }
  if (names.includes('webhooks')) {
    const argv = process.argv.slice(2);
    const { runWebhooks, formatWebhooks } = await import('./webhooks.js');
    const failingSeconds = numberFlag(argv, 'failing-seconds') ?? 4;
    const opts = {
      rate: numberFlag(argv, 'rate') ?? 50,
      products: numberFlag(argv, 'products') ?? 10,
      rounds: numberFlag(argv, 'rounds') ?? 3,
      roundSeconds: numberFlag(argv, 'round-seconds') ?? 8,
      failingSeconds,
      waitSeconds: numberFlag(argv, 'wait-seconds') ?? 30 + failingSeconds,
    };
    const result = await runWebhooks(opts);
    console.log(formatWebhooks(result, opts));
    console.log(`  results: ${await writeResults('webhooks', result.rows, { ...opts, orderP99Ratio: result.orderP99Ratio, orderP99RatioInterval: result.orderP99RatioInterval, failing: result.failing, load: result.load, receiverNiced: result.receiverNiced })}`);
  }
  if (names.includes('search')) {
    // Each database in a process of its own (bench/search.ts prints its table and writes bench/results/search-*.json).
    const { runSearchBench } = await import('./search.js');
    await runSearchBench(process.argv.slice(2).filter((a) => a.startsWith('--')));
  }
  if (names.includes('push')) {
    const argv = process.argv.slice(2);
    const { runPush, formatPush } = await import('./push.js');
    const partsFlag = argv.find((a) => a.startsWith('--parts='));
    const opts = {
      likes: numberFlag(argv, 'likes') ?? 60,
      members: numberFlag(argv, 'members') ?? 10_000,
      verifyEvery: numberFlag(argv, 'verify-every') ?? 50,
      parts: (partsFlag ? partsFlag.split('=')[1]!.split(',') : ['like', 'flood']) as Array<'like' | 'flood'>,
    };
    const result = await runPush(opts);
    console.log(formatPush(result));
    console.log(`  results: ${await writeResults('push', [result], opts)}`);
  }
  if (names.includes('search')) {
    // Each database in a process of its own (bench/search.ts prints its table and writes bench/results/search-*.json).
    const { runSearchBench } = await import('./search.js');
    await runSearchBench(process.argv.slice(2).filter((a) => a.startsWith('--')));
  }
  // Last, with the benchmark server stopped: the start-up runs must not share the CPU with it.
  if (names.includes('startup')) {
    const table = await runStartup();
    console.log(formatTable('startup (npm start, embedded database)', table));
    console.log(`  results: ${await writeResults('startup', table, {})}`);
  }
  if (names.includes('embedded')) await (await import('./embedded.js')).reportEmbedded(writeResults);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
