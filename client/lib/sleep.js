/** Timers as promises, and a little jitter so that many clients refused at once do not come back at once. */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
export const jitter = (ms, spread = 0.2) => Math.round(ms * (1 + Math.random() * spread));
