// A CPU profile of a chosen window of a bench process (the realtime bench's servers): over IPC, `profile {on: true}`
// starts the V8 sampling profiler and `profile {on: false, file}` stops it and writes the .cpuprofile there
// (summarise it with bench/lib/cpu-profile.ts). Plain JavaScript, so that the bare server can use it too.
import fs from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

let session = null;

export async function profileWindow(msg) {
  if (msg.on) {
    session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    return;
  }
  if (!session) return;
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  session = null;
  await fs.writeFile(msg.file, JSON.stringify(profile));
}
