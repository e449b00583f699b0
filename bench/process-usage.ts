import { readFileSync } from 'node:fs';

/** Linux reports process CPU time in clock ticks of 1/100 s (USER_HZ). */
const CLOCK_TICKS = 100;

/** User + system CPU seconds another process has used so far (NaN where /proc cannot tell). */
export function cpuSeconds(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3; utime, stime are 14, 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}

/** Another process's peak resident memory so far (VmHWM), in bytes (NaN where /proc cannot tell). */
export function peakRssBytes(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1] ?? Number.NaN) * 1024;
  } catch {
    return Number.NaN;
  }
}
