import { readFileSync } from 'node:fs';

/** CPU time of this process so far, every thread (user + system), in µs. */
export function processCpuUs(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/**
 * CPU time of this process's main thread (the event loop) so far, in µs:
 * the first field of /proc/<pid>/task/<pid>/schedstat (ns on a core), or
 * utime + stime of its stat (clock ticks, 10 ms each) where schedstat is
 * missing. Linux only: undefined where /proc cannot be read.
 */
export function mainThreadCpuUs(): number | undefined {
  const task = `/proc/${process.pid}/task/${process.pid}`;
  try {
    return Number(readFileSync(`${task}/schedstat`, 'utf8').split(' ')[0]) / 1000;
  } catch {
    try {
      const stat = readFileSync(`${task}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10_000;
    } catch {
      return undefined;
    }
  }
}
