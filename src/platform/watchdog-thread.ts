import fs from 'node:fs';
import os from 'node:os';
import { Session } from 'node:inspector';
import { workerData } from 'node:worker_threads';
import { monotonicNow, type WatchdogData } from './watchdog.js';

/**
 * The watchdog's thread (watchdog.ts). Everything here works while the main thread is stuck: the log lines are
 * written with fs.writeSync on the standard output's descriptor (a worker's process.stdout goes through the main
 * thread, which is not running), and the inspector's messages interrupt the main thread's JavaScript.
 */
const data = (workerData as { data: WatchdogData }).data;
const last = new BigInt64Array(data.beat);
/** If the main thread cannot be interrupted (stuck in native code) within this, the process is killed outright. */
const INTERRUPT_GRACE_MS = 2000;

function log(level: 'fatal' | 'error', msg: string, fields: Record<string, unknown>): void {
  const line =
    data.format === 'json'
      ? JSON.stringify({ level: level === 'fatal' ? 60 : 50, time: Date.now(), pid: process.pid, hostname: os.hostname(), ...fields, msg })
      : `${level.toUpperCase()} ${msg} ${JSON.stringify(fields)}`;
  try {
    fs.writeSync(1, line + '\n');
  } catch {
    // standard output is gone: the exit status still says it
  }
}

/** Pauses the main thread where it is, logs that place, and makes it exit from there with the watchdog's code. */
function exitFromMainThread(): void {
  const session = new Session();
  session.connectToMainThread();
  // A frame names its script by id; enabling the debugger announces every loaded script with its URL.
  const scripts = new Map<string, string>();
  session.on('Debugger.scriptParsed', ({ params }) => scripts.set(params.scriptId, params.url));
  session.on('Debugger.paused', ({ params }) => {
    const frames = params.callFrames
      .slice(0, 5)
      .map((f) => `${f.functionName || '(anonymous)'} (${scripts.get(f.location.scriptId) ?? f.url}:${f.location.lineNumber + 1})`);
    log('fatal', 'the blocked event loop was here', { stack: frames });
    const top = params.callFrames[0];
    if (top) session.post('Debugger.evaluateOnCallFrame', { callFrameId: top.callFrameId, expression: `process.exit(${data.exitCode})` });
  });
  session.post('Debugger.enable', () => session.post('Debugger.pause'));
}

let fired = false;
setInterval(() => {
  const blockedMs = Math.round(monotonicNow() - Number(Atomics.load(last, 0)));
  if (fired || blockedMs < data.blockedMs) return;
  fired = true;
  log('fatal', `event loop blocked for ${blockedMs} ms (limit ${data.blockedMs} ms): exiting with code ${data.exitCode} so that the supervisor restarts the service`, {
    blockedMs,
    exitCode: data.exitCode,
  });
  setTimeout(() => {
    log('fatal', 'the main thread could not be interrupted: killing the process', { signal: 'SIGKILL' });
    process.kill(process.pid, 'SIGKILL');
  }, INTERRUPT_GRACE_MS);
  try {
    exitFromMainThread();
  } catch (err) {
    log('error', 'the inspector could not reach the main thread', { err: err instanceof Error ? err.message : String(err) });
  }
}, data.checkMs);
