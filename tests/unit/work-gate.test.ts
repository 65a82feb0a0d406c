import { WorkGate } from '../../src/core/media/work-gate.js';

/**
 * The image work gate admits jobs by their pixels as well as by their number (issue 31): a handful of
 * huge-but-legal images cannot decode side by side, while phone photos still run one per core.
 */
function manualJob() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  let started = false;
  return {
    job: async () => {
      started = true;
      await done;
    },
    finish,
    get started() {
      return started;
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('WorkGate', () => {
  test('when jobs together would pass the pixel budget, then the next waits until enough pixels are free, even with a slot free', async () => {
    const gate = new WorkGate(4, 10, 100);
    const [a, b, c] = [manualJob(), manualJob(), manualJob()];
    const runs = [gate.run(60, a.job), gate.run(60, b.job), gate.run(30, c.job)];
    await settle();
    // b does not fit beside a (120 > 100); c, behind b in line, does not overtake it.
    expect([a.started, b.started, c.started]).toEqual([true, false, false]);
    expect(gate.load).toEqual({ active: 1, waiting: 2, pixels: 60 });
    a.finish();
    await settle();
    expect([b.started, c.started]).toEqual([true, true]);
    expect(gate.load).toEqual({ active: 2, waiting: 0, pixels: 90 });
    b.finish();
    c.finish();
    await Promise.all(runs);
    expect(gate.load).toEqual({ active: 0, waiting: 0, pixels: 0 });
  });

  test('when small jobs fit the budget, then they are still limited by the number running', async () => {
    const gate = new WorkGate(2, 10, 1_000);
    const jobs = [manualJob(), manualJob(), manualJob()];
    const runs = jobs.map((j) => gate.run(1, j.job));
    await settle();
    expect(jobs.map((j) => j.started)).toEqual([true, true, false]);
    jobs[0]!.finish();
    await settle();
    expect(jobs[2]!.started).toBe(true);
    jobs[1]!.finish();
    jobs[2]!.finish();
    await Promise.all(runs);
  });

  test('when one job is larger than the whole budget, then it runs, alone', async () => {
    const gate = new WorkGate(4, 10, 100);
    const [big, small] = [manualJob(), manualJob()];
    const runs = [gate.run(500, big.job), gate.run(1, small.job)];
    await settle();
    expect([big.started, small.started]).toEqual([true, false]);
    big.finish();
    await settle();
    expect(small.started).toBe(true);
    small.finish();
    await Promise.all(runs);
  });

  test('when the line is full, then the next upload is refused with 503 and Retry-After; a failed job gives its pixels back', async () => {
    const gate = new WorkGate(1, 1, 100);
    const [a, b] = [manualJob(), manualJob()];
    const runs = [gate.run(10, a.job), gate.run(10, b.job)];
    await expect(gate.run(10, async () => undefined)).rejects.toMatchObject({ status: 503, headers: { 'Retry-After': '2' } });
    a.finish();
    b.finish();
    await Promise.all(runs);
    await expect(gate.run(100, async () => Promise.reject(new Error('broken file')))).rejects.toThrow('broken file');
    expect(gate.load).toEqual({ active: 0, waiting: 0, pixels: 0 });
  });
});
