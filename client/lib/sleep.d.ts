/** Timers as promises, and a little jitter so that many clients refused at once do not come back at once. */
export declare const sleep: (ms: number) => Promise<void>;
export declare const jitter: (ms: number, spread?: number) => number;
