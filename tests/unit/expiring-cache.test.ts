import { ExpiringCache } from '../../src/core/expiring-cache.js';

/** The cache in front of reads that many callers make at once (the display's place summary). */
function aSource() {
  let reads = 0;
  const pending: Array<{ resolve: (v: string) => void; reject: (e: Error) => void }> = [];
  return {
    get reads() {
      return reads;
    },
    load: () => {
      reads++;
      return new Promise<string>((resolve, reject) => pending.push({ resolve, reject }));
    },
    answer: (value: string) => pending.shift()!.resolve(value),
    fail: () => pending.shift()!.reject(new Error('database away')),
  };
}

describe('ExpiringCache', () => {
  test('when many callers miss one key at once, then they share one load, and the value is kept until the window passes', async () => {
    let now = 1_000;
    const cache = new ExpiringCache<string>(5_000, 100, () => now);
    const source = aSource();
    const answers = Array.from({ length: 50 }, () => cache.get('place', source.load));
    source.answer('v1');
    expect(await Promise.all(answers)).toEqual(Array(50).fill('v1'));
    expect(source.reads).toBe(1);
    now += 4_999;
    expect(await cache.get('place', source.load)).toBe('v1');
    expect(cache.loads).toBe(1);
    now += 1;
    const again = cache.get('place', source.load);
    source.answer('v2');
    expect(await again).toBe('v2');
    expect(source.reads).toBe(2);
  });

  test('when a load fails, then its waiters get the error and the next call loads again', async () => {
    const cache = new ExpiringCache<string>(5_000, 100, () => 0);
    const source = aSource();
    const first = cache.get('place', source.load);
    const second = cache.get('place', source.load);
    source.fail();
    await expect(first).rejects.toThrow('database away');
    await expect(second).rejects.toThrow('database away');
    const third = cache.get('place', source.load);
    source.answer('back');
    expect(await third).toBe('back');
    expect(source.reads).toBe(2);
  });

  test('when more keys are asked for than it holds, then the oldest go first; a forgotten key is loaded again', async () => {
    const cache = new ExpiringCache<string>(5_000, 2, () => 0);
    const load = (v: string) => () => Promise.resolve(v);
    await cache.get('a', load('a'));
    await cache.get('b', load('b'));
    await cache.get('c', load('c'));
    expect(cache.size).toBe(2);
    expect(await cache.get('a', load('a again'))).toBe('a again');
    expect(await cache.get('c', load('c again'))).toBe('c');
    cache.forget('c');
    expect(await cache.get('c', load('c after forget'))).toBe('c after forget');
  });
});
