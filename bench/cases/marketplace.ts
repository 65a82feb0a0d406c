import { operations } from '../../src/registry.js';
import { seededRandom } from '../lib/harness.js';
import { measure, median } from '../lib/stats.js';
import { iterations, type BenchCase, type Measurement } from './case.js';
import { LOCATION_COUNT } from './locations-data.js';
import { PRODUCT_COUNT, STORE_COUNT, ensureMarketplaceDataset } from './marketplace-data.js';
import { discoveryCounts } from '../../src/modules/stores/discovery.service.js';

/**
 * products.by_location on 100,000 products over 10,000 stores spread over the 100,000 bench locations (issue 8;
 * target: p99 under 20 ms in-process). Targets are bench locations drawn with a seeded random, so two runs ask
 * the same questions; the note says at which level the answers were found (neighbourhood when a store shares the
 * target's neighbourhood name in its city, else the city, ...).
 */
export const marketplaceCase: BenchCase = {
  name: 'marketplace',
  async run(bench) {
    await ensureMarketplaceDataset(bench.pool, bench.args.regenerate);
    if (!operations.some((op) => op.name === 'products.by_location')) {
      console.log('[marketplace] skipped: products.by_location is not registered');
      return [];
    }
    const n = iterations(bench, 1000);
    const random = seededRandom(8);
    const ordinals = Array.from({ length: n + 100 }, () => 1 + Math.floor(random() * LOCATION_COUNT));
    const { rows } = await bench.pool.query<{ n: number; id: string }>('SELECT n, id FROM bench_location_ordinals WHERE n = ANY($1)', [ordinals]);
    const idOf = new Map(rows.map((r) => [r.n, r.id]));
    const targets = ordinals.map((o) => idOf.get(o)!);

    const results: Measurement[] = [];
    const levels: Record<string, number> = {};
    const counts: number[] = [];
    const byLocation = (extra: Record<string, unknown>) => async (i: number) => {
      const result = await bench.call('products.by_location', { location_id: targets[i], ...extra }, null);
      const body = result.body as { level?: string; count?: number };
      levels[body.level ?? 'none'] = (levels[body.level ?? 'none'] ?? 0) + 1;
      counts.push(body.count ?? 0);
    };
    let levelsReadBefore = discoveryCounts.levelsRead;
    const note = () => {
      const calls = counts.length;
      const read = discoveryCounts.levelsRead - levelsReadBefore;
      const text = `levels: ${Object.entries(levels).map(([k, v]) => `${k} ${v}`).join(', ')}; median count ${median(counts)}; level statements per call ${(read / calls).toFixed(2)}`;
      for (const k of Object.keys(levels)) delete levels[k];
      counts.length = 0;
      levelsReadBefore = discoveryCounts.levelsRead;
      return text;
    };
    results.push({ name: `products.by_location (${PRODUCT_COUNT / 1000}k products, ${STORE_COUNT / 1000}k stores)`, samples: await measure(byLocation({}), { iterations: n }) });
    results[results.length - 1].note = note();
    results.push({ name: 'products.by_location, 2 categories + search', samples: await measure(byLocation({ categories: 'electronics,home_garden', search: 'fine' }), { iterations: n }) });
    results[results.length - 1].note = note();

    // A search that matches nothing finds nothing at any level: before issue 22 every level was searched in turn, up to
    // the whole country. Both lengths: 3 letters and more are looked up in the trigram indexes, shorter ones are not.
    const unmatched = Math.min(n, 300);
    results.push({ name: 'products.by_location, search matching nothing ("zqxj")', samples: await measure(byLocation({ search: 'zqxj' }), { iterations: unmatched }) });
    results[results.length - 1].note = note();
    results.push({ name: 'products.by_location, search matching nothing ("qz")', samples: await measure(byLocation({ search: 'qz' }), { iterations: unmatched }) });
    results[results.length - 1].note = note();

    const overHttp = (i: number) => bench.http('GET', `/api/stores/products/by-location/?location_id=${targets[i]}`);
    results.push({ name: 'products.by_location over HTTP', samples: await measure(overHttp, { iterations: Math.min(n, 300), warmup: 20 }) });
    return results;
  },
};
