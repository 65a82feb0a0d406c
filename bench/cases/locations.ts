import { signAccessToken } from '../../src/modules/accounts/tokens.js';
import { operations } from '../../src/registry.js';
import { loadAuthUsers, seededRandom, type Bench } from '../lib/harness.js';
import { measure, median } from '../lib/stats.js';
import { iterations, type BenchCase, type Measurement } from './case.js';
import { CITIES, FIRST_WORDS, SECOND_WORDS, ensureLocationsDataset } from './locations-data.js';
import { NEARBY_AS_SERVICE, NEARBY_SQL_TIEBREAK } from './locations-sql.js';

/**
 * nearby, search and smart_update on 100,000 locations and 1,000,000 users (issue 3; target: nearby p99 under
 * 10 ms). Reads use seeded inputs, so two runs ask the same questions. smart_update changes the data, so it
 * takes users and points that differ on every run (a fixed set would find its own locations from the last run).
 */
const OPS = ['locations.nearby', 'locations.search', 'locations.smart_update'];

/** A point where people are: around a city centre with the spread of its neighbourhoods. */
function pointNearCity(random: () => number) {
  const city = CITIES[Math.floor(random() * CITIES.length)];
  const r = Math.sqrt(-2 * Math.log(1 - random()));
  const angle = 2 * Math.PI * random();
  const latitude = city.lat + (r * Math.sin(angle) * city.sigmaKm) / 111.32;
  const longitude = city.lon + (r * Math.cos(angle) * city.sigmaKm) / (111.32 * Math.cos((city.lat * Math.PI) / 180));
  return { city, latitude: Number(latitude.toFixed(6)), longitude: Number(longitude.toFixed(6)) };
}

/** 3 to 8 characters out of a name word, as someone typing part of a name. */
function searchTerm(random: () => number): string {
  const words = [...FIRST_WORDS, ...SECOND_WORDS];
  const word = words[Math.floor(random() * words.length)];
  const length = Math.min(word.length, 3 + Math.floor(random() * 6));
  const start = Math.floor(random() * (word.length - length + 1));
  return word.slice(start, start + length);
}

const countOf = (body: unknown) => (body as { count?: number }).count ?? NaN;

export const locationsCase: BenchCase = {
  name: 'locations',
  async run(bench) {
    await ensureLocationsDataset(bench.pool, bench.args.regenerate);
    const missing = OPS.filter((name) => !operations.some((op) => op.name === name));
    if (missing.length) {
      console.log(`[locations] skipped: ${missing.join(', ')} not registered in src/registry.ts yet`);
      return [];
    }
    const [caller] = await loadAuthUsers(bench.pool, "username = 'bench_1'");
    const results: Measurement[] = [];

    const n = iterations(bench, 1000);
    const random = seededRandom(42);
    const points = Array.from({ length: n + 100 }, () => pointNearCity(random));
    const counts: number[] = [];
    const nearby = async (i: number) => {
      const { latitude, longitude } = points[i];
      const result = await bench.call('locations.nearby', { latitude, longitude }, caller);
      counts.push(countOf(result.body));
    };
    results.push({ name: 'locations.nearby (5 km)', samples: await measure(nearby, { iterations: n }) });
    results[results.length - 1].note = `median ${median(counts)} locations in the answer, max ${Math.max(...counts)}`;

    const token = signAccessToken(caller.id);
    const overHttp = (i: number) => bench.http('GET', `/api/locations/locations/nearby/?latitude=${points[i].latitude}&longitude=${points[i].longitude}`, { token });
    results.push({ name: 'locations.nearby over HTTP', samples: await measure(overHttp, { iterations: Math.min(n, 300) }) });

    // The same question straight to the database: the rest of the operation's time is Node (drizzle, zod, JSON).
    for (const [name, sql] of [['nearby SQL alone (as the service)', NEARBY_AS_SERVICE], ['nearby SQL, id tie-break in SQL (before)', NEARBY_SQL_TIEBREAK]]) {
      const query = (i: number) => bench.pool.query(sql, [points[i].longitude, points[i].latitude, 5000]);
      results.push({ name, samples: await measure(query, { iterations: n }) });
    }

    const s = iterations(bench, 500);
    const terms = Array.from({ length: s + 100 }, () => ({ q: searchTerm(random), ...pointNearCity(random) }));
    const found: number[] = [];
    const search = (withPoint: boolean) => async (i: number) => {
      const { q, latitude, longitude } = terms[i];
      const result = await bench.call('locations.search', withPoint ? { q, latitude, longitude } : { q }, caller);
      found.push(countOf(result.body));
    };
    results.push({ name: 'locations.search (q only)', samples: await measure(search(false), { iterations: s }) });
    results[results.length - 1].note = `q of 3-8 letters, median ${median(found)} results`;
    results.push({ name: 'locations.search (q + point)', samples: await measure(search(true), { iterations: s }) });

    results.push(await smartUpdate(bench, iterations(bench, 500)));
    return results;
  },
};

async function smartUpdate(bench: Bench, n: number): Promise<Measurement> {
  const warmup = 20;
  // Distinct users, each moving once: a join (or a new location) for a user who had another location.
  const users = await loadAuthUsers(bench.pool, `username LIKE 'bench\\_%' ORDER BY random() LIMIT ${n + warmup}`);
  const random = seededRandom(Date.now() % 2 ** 31);
  const sources: Record<string, number> = {};
  const call = async (i: number) => {
    const { city, latitude, longitude } = pointNearCity(random);
    // Half the clients send reverse-geocoded data, as the mobile app does when the OS provides it.
    const geocoded = i % 2 === 0 ? { geocoded_data: { address: { country: city.country, state: city.state, city: city.city } } } : {};
    const result = await bench.call('locations.smart_update', { latitude, longitude, ...geocoded }, users[i]);
    const source = String((result.body as { source?: string }).source);
    sources[source] = (sources[source] ?? 0) + 1;
  };
  const samples = await measure(call, { iterations: n, warmup });
  const note = `sources: ${Object.entries(sources).map(([k, v]) => `${k} ${v}`).join(', ')} (incl. ${warmup} warm-up calls)`;
  return { name: 'locations.smart_update', samples, note };
}
