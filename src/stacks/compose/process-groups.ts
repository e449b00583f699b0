/**
 * Compose process groups left behind by a server that died (kill -9, a crash): recognising one later,
 * and stopping it.
 *
 * A group is recorded with its id (the leader's pid), the leader's start time and the host's boot id and
 * name (streams/stacks.ts `ComposeGroup`). A pid is only a number: by the time the group is looked at,
 * the leader may be gone and its pid reused by an unrelated process, or the record may come from another
 * host sharing the log. So a group is signalled only when it is provably the recorded one: same host
 * and boot, and its processes (read from /proc) are the recorded leader (same start time) or, once the
 * leader has exited, processes that started after it. Everything here reads Linux's /proc; elsewhere no
 * group is recorded, and a recorded one is never touched.
 */
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { ComposeGroup } from '../../../streams/stacks.js';
import { signalGroup } from './runner.js';

interface HostIdentity {
  bootId: string;
  hostname: string;
}

let cachedHost: HostIdentity | null | undefined;

/** This host's boot id and name; null where the kernel does not tell the boot (not Linux). */
export function thisHost(): HostIdentity | null {
  if (cachedHost === undefined) {
    try {
      const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
      cachedHost = bootId.length > 0 ? { bootId, hostname: hostname() } : null;
    } catch {
      cachedHost = null;
    }
  }
  return cachedHost;
}

/** What a process's `/proc/<pid>/stat` says that matters here. */
interface ProcStat {
  pid: number;
  /** One letter: R, S, D, Z (zombie), X (dead), T... */
  state: string;
  pgrp: number;
  /** Start time in clock ticks after boot (field 22). */
  startTicks: number;
}

/**
 * Parses `/proc/<pid>/stat`. The command name (field 2) is in parentheses and may hold spaces and
 * parentheses itself, so the fields are counted from the last `)`.
 */
export function parseStat(text: string): ProcStat | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  // After ") ": field 3 (state) is at index 0, so field n is at index n - 3.
  const rest = text.slice(close + 2).split(' ');
  const state = rest[0] ?? '';
  const pgrp = Number(rest[2]);
  const startTicks = Number(rest[19]);
  if (![pid, pgrp, startTicks].every(Number.isSafeInteger) || state.length !== 1) return undefined;
  return { pid, state, pgrp, startTicks };
}

/**
 * The group a child spawned `detached` leads, read at once: call it right after the spawn, in the same
 * turn of the event loop (Node reaps a child only on a later turn), so its pid cannot have been reused. Undefined when /proc
 * cannot tell (not Linux, or the child is already gone).
 */
export function groupOf(pid: number): ComposeGroup | undefined {
  const here = thisHost();
  if (here === null) return undefined;
  let stat: ProcStat | undefined;
  try {
    stat = parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
  if (stat === undefined || stat.pid !== pid) return undefined;
  return { pgid: pid, start_ticks: stat.startTicks, boot_id: here.bootId, hostname: here.hostname };
}

/** The processes of group `pgid` now, zombies left out (they run nothing; they wait to be reaped). */
export async function groupMembers(pgid: number): Promise<ProcStat[]> {
  const pids = (await readdir('/proc')).filter((name) => /^[0-9]+$/.test(name));
  const stats = await Promise.all(
    pids.map(async (pid) => {
      try {
        return parseStat(await readFile(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return undefined; // exited between the listing and the read
      }
    }),
  );
  return stats.filter(
    (stat): stat is ProcStat =>
      stat !== undefined && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X',
  );
}

/**
 * `alive`: the recorded group still runs here; `gone`: nothing of it runs (also when this host has
 * rebooted since); `elsewhere`: it ran on another host, which alone can tell.
 */
export type GroupVerdict = 'alive' | 'gone' | 'elsewhere';

/** What is known of a recorded group from this host, given the processes whose group id is its pgid. */
export function judgeGroup(
  group: ComposeGroup,
  here: HostIdentity | null,
  members: readonly ProcStat[],
): GroupVerdict {
  // kill(-1) would signal every process: a group id is a pid above 1, whatever a record says.
  if (!Number.isSafeInteger(group.pgid) || group.pgid <= 1) return 'gone';
  if (here === null || group.hostname !== here.hostname) return 'elsewhere';
  // Same host, another boot: no process of that boot survived the reboot.
  if (group.boot_id !== here.bootId) return 'gone';
  if (members.length === 0) return 'gone';
  const leader = members.find((member) => member.pid === group.pgid);
  // A leader with another start time is a later process that reused the id (and leads a group of its own).
  if (leader) return leader.startTicks === group.start_ticks ? 'alive' : 'gone';
  // The leader has exited and left members behind; none of them can be older than the group.
  return members.every((member) => member.startTicks >= group.start_ticks) ? 'alive' : 'gone';
}

/** `judgeGroup` on the processes of this host now. */
export async function checkGroup(group: ComposeGroup): Promise<GroupVerdict> {
  const here = thisHost();
  const local =
    here !== null && group.hostname === here.hostname && group.boot_id === here.bootId && group.pgid > 1;
  const members = local ? await groupMembers(group.pgid) : [];
  // Never this server's own group: compose always leads a group of its own.
  if (members.some((member) => member.pid === process.pid)) return 'gone';
  return judgeGroup(group, here, members);
}

interface StopOptions {
  /** Time between SIGTERM and SIGKILL. */
  graceMs: number;
  /** How often the group is looked at while it is being stopped. */
  pollMs?: number;
  /** True to give up waiting (the server is stopping): the group is left as it is then. */
  abandon?: () => boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Stops a group left running: SIGTERM, then SIGKILL once the grace has passed (again on every look
 * after it, for a member forked meanwhile), until nothing of it is left. The group is checked before
 * every signal, so an id that was reused in between is never signalled. Resolves `stopped` once it is
 * gone, `gone` or `elsewhere` when there was nothing to stop here, `abandoned` when `abandon` said so.
 */
export async function stopGroup(
  group: ComposeGroup,
  options: StopOptions,
): Promise<'stopped' | 'gone' | 'elsewhere' | 'abandoned'> {
  const pollMs = options.pollMs ?? 100;
  const first = await checkGroup(group);
  if (first !== 'alive') return first;
  signalGroup(group.pgid, 'SIGTERM');
  const killAt = Date.now() + options.graceMs;
  for (;;) {
    await sleep(pollMs);
    if ((await checkGroup(group)) !== 'alive') return 'stopped';
    if (options.abandon?.()) return 'abandoned';
    if (Date.now() >= killAt) signalGroup(group.pgid, 'SIGKILL');
  }
}
