// A worker thread does not inherit the tsx loader that runs the service (`npm start`) or the tests: this file,
// plain JavaScript, registers it in the new thread and then loads the TypeScript entry named in workerData.
// See worker-thread.ts.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
