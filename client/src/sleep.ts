/** Timers as promises, and a little jitter so that many clients refused at once do not come back at once. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export const jitter = (ms: number, spread = 0.2): number => Math.round(ms * (1 + Math.random() * spread));
