import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkGroup,
  groupMembers,
  groupOf,
  judgeGroup,
  parseStat,
  stopGroup,
  thisHost,
} from '../../src/stacks/compose/process-groups.js';
import type { ComposeGroup } from '../../streams/stacks.js';

/** A stat line shaped like the kernel's, with what matters here set. */
const stat = (pid: number, comm: string, state: string, pgrp: number, start: number) =>
  `${pid} (${comm}) ${state} 1 ${pgrp} ${pgrp} 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 ${start} 1000 100 18446744073709551615`;

const here = { bootId: 'boot-a', hostname: 'host-a' };
const group: ComposeGroup = { pgid: 100, start_ticks: 5000, boot_id: 'boot-a', hostname: 'host-a' };
const proc = (pid: number, startTicks: number) => ({ pid, state: 'S', pgrp: 100, startTicks });

describe('parseStat', () => {
  it('reads pid, state, group and start time, whatever the command name holds', () => {
    expect(parseStat(stat(100, 'node', 'S', 100, 5000))).toEqual({
      pid: 100,
      state: 'S',
      pgrp: 100,
      startTicks: 5000,
    });
    // A name with spaces and parentheses: fields are counted from the last ")".
    expect(parseStat(stat(7, 'a) b (c', 'Z', 3, 42))).toEqual({
      pid: 7,
      state: 'Z',
      pgrp: 3,
      startTicks: 42,
    });
    expect(parseStat('garbage')).toBeUndefined();
    expect(parseStat('12 (x) S 1')).toBeUndefined();
  });
});

describe('judgeGroup', () => {
  it('alive: the recorded leader (same start time), or members that started after it once it has gone', () => {
    expect(judgeGroup(group, here, [proc(100, 5000), proc(101, 5010)])).toBe('alive');
    expect(judgeGroup(group, here, [proc(101, 5010)])).toBe('alive');
  });

  it('gone: no member; a leader with another start time (a reused id); a member older than the group', () => {
    expect(judgeGroup(group, here, [])).toBe('gone');
    expect(judgeGroup(group, here, [proc(100, 9000)])).toBe('gone');
    expect(judgeGroup(group, here, [proc(101, 4000)])).toBe('gone');
  });

  it('gone after a reboot of the same host, whatever runs now; elsewhere on another host', () => {
    expect(judgeGroup({ ...group, boot_id: 'boot-old' }, here, [proc(100, 5000)])).toBe('gone');
    expect(judgeGroup({ ...group, hostname: 'host-b' }, here, [proc(100, 5000)])).toBe('elsewhere');
    expect(judgeGroup(group, null, [proc(100, 5000)])).toBe('elsewhere');
  });

  it('never a group id of 1 or less (kill(-1) would signal every process)', () => {
    for (const pgid of [1, 0, -5, 1.5])
      expect(judgeGroup({ ...group, pgid }, here, [{ ...proc(pgid, 5000), pgrp: pgid }])).toBe('gone');
  });
});

describe.skipIf(thisHost() === null)('process groups on this host (Linux /proc)', () => {
  const started: number[] = [];
  afterEach(() => {
    for (const pid of started.splice(0))
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone
      }
  });

  /** A detached leader (its own group) that starts a grandchild ignoring SIGTERM; both sleep. */
  async function leaderWithGrandchild(): Promise<number> {
    const grandchild = "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)";
    const leader = `require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(grandchild)}], { stdio: 'ignore' }); setInterval(() => {}, 1000)`;
    const child = spawn(process.execPath, ['-e', leader], { detached: true, stdio: 'ignore' });
    const pid = child.pid as number;
    started.push(pid);
    child.unref();
    for (let i = 0; i < 200 && (await groupMembers(pid)).length < 2; i++)
      await new Promise((r) => setTimeout(r, 25));
    return pid;
  }

  it('groupOf records the leader as /proc has it; checkGroup finds it alive', async () => {
    const pid = await leaderWithGrandchild();
    const recorded = groupOf(pid) as ComposeGroup;
    expect(recorded).toMatchObject({
      pgid: pid,
      boot_id: thisHost()?.bootId,
      hostname: thisHost()?.hostname,
    });
    expect((await groupMembers(pid)).map((m) => m.pid)).toContain(pid);
    expect(await checkGroup(recorded)).toBe('alive');
  });

  it('stopGroup: SIGTERM, then SIGKILL after the grace for the member that ignores it; nothing left', async () => {
    const pid = await leaderWithGrandchild();
    expect((await groupMembers(pid)).length).toBe(2);
    const recorded = groupOf(pid) as ComposeGroup;
    expect(await stopGroup(recorded, { graceMs: 300, pollMs: 50 })).toBe('stopped');
    expect(await groupMembers(pid)).toEqual([]);
    expect(await stopGroup(recorded, { graceMs: 300 })).toBe('gone');
  });

  it('never signals a group that is not the recorded one: another start time (a reused id), another host', async () => {
    const pid = await leaderWithGrandchild();
    const recorded = groupOf(pid) as ComposeGroup;
    const reused = { ...recorded, start_ticks: recorded.start_ticks - 1 };
    expect(await stopGroup(reused, { graceMs: 0 })).toBe('gone');
    expect(await stopGroup({ ...recorded, hostname: `${recorded.hostname}-other` }, { graceMs: 0 })).toBe(
      'elsewhere',
    );
    await new Promise((r) => setTimeout(r, 200));
    expect((await groupMembers(pid)).length).toBe(2);
  });
});
