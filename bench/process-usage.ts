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

/**
 * This process's peak resident memory so far, in MB: VmHWM, the high-water mark of its own address space.
 * Not `process.resourceUsage().maxRSS`: Linux carries the parent's peak across fork and exec into it, so
 * a child spawned by the runner of `npm run bench` (600 MB by the replay benchmark) reported the
 * runner's peak, not its own (635 MB for a raw read that peaks at 236).
 */
export function ownPeakRssMb(): number {
  const bytes = peakRssBytes(process.pid);
  return Number.isNaN(bytes) ? process.resourceUsage().maxRSS / 1024 : bytes / (1024 * 1024);
}
