/**
 * CPU work that arrives in bursts (a claim's pushes, each to be encrypted) taken in turns: `inTurn(fn)` runs `fn` in
 * a later turn of the event loop, with at most TURN_BUDGET_MS of such work per turn (FIFO), so that between two
 * slices the loop reads sockets, answers requests and /health, and hands the database its results. One burst of 32
 * encryptions (~10 ms) is then five short slices, not one stall that every request behind it waits out.
 */
export const TURN_BUDGET_MS = 2;

interface Work {
  fn: () => unknown;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

const queue: Work[] = [];
let head = 0;
let scheduled = false;

/** Counters for tests and benches: turns taken and work run. */
export const cpuTurns = { turns: 0, runs: 0 };

export function inTurn<T>(fn: () => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
    if (!scheduled) {
      scheduled = true;
      setImmediate(slice);
    }
  });
}

function slice(): void {
  cpuTurns.turns++;
  const started = performance.now();
  // At least one piece of work per turn, whatever its size.
  do {
    const work = queue[head]!;
    queue[head++] = undefined as unknown as Work;
    cpuTurns.runs++;
    try {
      work.resolve(work.fn());
    } catch (err) {
      work.reject(err);
    }
  } while (head < queue.length && performance.now() - started < TURN_BUDGET_MS);
  if (head === queue.length) {
    queue.length = 0;
    head = 0;
    scheduled = false;
  } else {
    if (head > 1024) {
      queue.splice(0, head);
      head = 0;
    }
    setImmediate(slice);
  }
}
