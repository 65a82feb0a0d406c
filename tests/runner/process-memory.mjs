import fs from 'node:fs';

/**
 * Samples, from /proc (Linux), the resident memory of a process and everything it started: each process's own
 * peak (VmHWM, which the kernel keeps, so a peak between two samples is not missed while the process lives)
 * and the sum over the tree at each sample. Elsewhere (no /proc) it reports nothing.
 */
export function watchProcessTree(rootPid, intervalMs = 500) {
  const peaks = new Map(); // pid -> { kb, name }
  let peakTotalKb = 0;
  const available = fs.existsSync('/proc/self/status');

  const sample = () => {
    const tree = descendants(rootPid);
    let totalKb = 0;
    for (const pid of tree) {
      const status = readStatus(pid);
      if (!status) continue;
      totalKb += status.rssKb;
      const seen = peaks.get(pid);
      if (!seen || status.hwmKb > seen.kb) peaks.set(pid, { kb: status.hwmKb, name: seen?.name ?? describe(pid, status.name) });
    }
    peakTotalKb = Math.max(peakTotalKb, totalKb);
  };

  const timer = available ? setInterval(sample, intervalMs) : null;
  timer?.unref();
  if (available) sample();

  return {
    stop() {
      if (!available) return null;
      clearInterval(timer);
      sample();
      const largest = [...peaks.entries()].sort((a, b) => b[1].kb - a[1].kb)[0];
      return {
        largest: largest ? { pid: largest[0], bytes: largest[1].kb * 1024, name: largest[1].name } : null,
        totalBytes: peakTotalKb * 1024,
        processes: peaks.size,
      };
    },
  };
}

function descendants(rootPid) {
  const children = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = readPpid(entry);
    if (ppid === null) continue;
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(Number(entry));
  }
  const out = [];
  const queue = [rootPid];
  while (queue.length) {
    const pid = queue.shift();
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

function readPpid(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: the fields after it follow the last ')'.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null; // it ended meanwhile
  }
}

function readStatus(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
    return { name: /^Name:\s+(.*)$/m.exec(status)?.[1] ?? '?', rssKb: kb('VmRSS'), hwmKb: kb('VmHWM') };
  } catch {
    return null;
  }
}

/** What a process is, for the report: a jest worker, jest itself, or another program (a browser, a database). */
function describe(pid, name) {
  let cmdline = '';
  try {
    cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return name;
  }
  if (/jest-worker|processChild/.test(cmdline)) return 'a jest worker';
  if (/\bjest\b/.test(cmdline)) return 'jest (the parent)';
  // Another program, or a script a test started (the embedded database's process, a service under test).
  const script = cmdline.split(' ').find((arg) => /\.(m?js|ts)$/.test(arg) && !arg.includes('node_modules'));
  return script ? `${name} ${script.split('/').pop()}` : name;
}
