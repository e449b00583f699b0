/**
 * The git-stacks read model (projections/git-stacks.ts) and the schedule plan (git/auto-deploy.ts):
 * pure functions over events and maps.
 */
import { describe, expect, it, vi } from 'vitest';
import { gitStackKey, gitStacks } from '../../projections/git-stacks.js';
import { loadState, saveState } from '../../projections/projection.js';
import { AutoDeploySchedules, planSchedules } from '../../src/stacks/git/auto-deploy.js';
import type { RecordedEvent } from '../../src/store/types.js';
import type { StacksEventMap } from '../../streams/stacks.js';

let position = 0;
function event<T extends keyof StacksEventMap>(
  stream: string,
  type: T,
  data: StacksEventMap[T],
): RecordedEvent {
  position += 1;
  return {
    stream,
    revision: 0,
    position,
    type,
    data: data as unknown as RecordedEvent['data'],
    metadata: { at: new Date(0).toISOString() },
  } as RecordedEvent;
}

const configured = (stack: string, cron: string | null = null) =>
  event(`stack-local-${stack}`, 'GitStackConfigured', {
    stack,
    environment_id: null,
    repository: 'https://example.com/r.git',
    branch: 'main',
    compose_path: 'compose.yaml',
    auto_deploy_cron: cron,
    webhook_secret_set: true,
    user_id: 'admin',
  });

const runStarted = (stack: string, runId: number, extra?: Record<string, string>) =>
  event(`deploy-run-${runId}`, 'RunStarted', {
    run_id: runId,
    job_id: `job-${runId}`,
    stack,
    environment_id: null,
    trigger: 'manual',
    user_id: null,
    options: { pull: false, build: false, forceRecreate: false },
    compose_hash: 'c',
    env_hash: 'e',
    log_file: `${runId}.log`,
    ...(extra ? { extra } : {}),
  });

const delivered = (stack: string, id: string) =>
  event(`git-webhook-local-${stack}`, 'GitWebhookDeliveryHandled', {
    stack,
    environment_id: null,
    delivery_id: id,
    outcome: 'deployed',
    run_id: 1,
  });

const fold = (events: RecordedEvent[]) => events.reduce(gitStacks.evolve, gitStacks.initial());

describe('git-stacks projection', () => {
  it('keeps the settings, the commit of the latest git run and the delivery ids', () => {
    const state = fold([
      configured('app'),
      runStarted('app', 1, { source: 'git', commit: 'aaa' }),
      runStarted('app', 2), // a plain deploy of the same stack: no commit
      runStarted('other', 3, { source: 'git', commit: 'zzz' }), // no such git stack
      delivered('app', 'd-1'),
      configured('app', '* * * * *'),
      runStarted('app', 4, { source: 'git', commit: 'bbb' }),
    ]);
    const app = state.stacks.get(gitStackKey(null, 'app'));
    expect(app?.autoDeployCron).toBe('* * * * *');
    expect(app?.lastCommit).toBe('bbb');
    expect(app?.lastRunId).toBe(4);
    expect(app?.deliveries.seen.has('d-1')).toBe(true);
    expect(state.stacks.has(gitStackKey(null, 'other'))).toBe(false);
  });

  it('takes the last run from its start and its commit once resolved; a failed fetch keeps the one before', () => {
    const resolved = (runId: number, commit: string) =>
      event(`deploy-run-${runId}`, 'RunSourceResolved', {
        run_id: runId,
        extra: { source: 'git', commit },
      });
    const app = (events: RecordedEvent[]) => fold(events).stacks.get(gitStackKey(null, 'app'));
    const base = [configured('app'), runStarted('app', 1, { source: 'git', commit: 'aaa' })];
    // Started, not fetched yet (or its fetch failed): the run is the last, the commit the one before.
    expect(app([...base, runStarted('app', 2, { source: 'git', branch: 'main' })])).toMatchObject({
      lastRunId: 2,
      lastCommit: 'aaa',
    });
    expect(
      app([...base, runStarted('app', 2, { source: 'git', branch: 'main' }), resolved(2, 'bbb')]),
    ).toMatchObject({ lastRunId: 2, lastCommit: 'bbb' });
    // A commit resolved for a run that is not the stack's last changes nothing.
    expect(app([...base, resolved(9, 'zzz')])).toMatchObject({ lastRunId: 1, lastCommit: 'aaa' });
  });

  it('forgets a deleted stack: made again, it has no last commit and no remembered deliveries', () => {
    const state = fold([
      configured('app'),
      runStarted('app', 1, { source: 'git', commit: 'aaa' }),
      delivered('app', 'd-1'),
      event('stack-local-app', 'StackDeleted', { stack: 'app', environment_id: null, user_id: null }),
    ]);
    expect(state.stacks.size).toBe(0);
    const again = gitStacks.evolve(state, configured('app'));
    const app = again.stacks.get(gitStackKey(null, 'app'));
    expect(app?.lastCommit).toBeNull();
    expect(app?.deliveries.seen.size).toBe(0);
  });

  it('round-trips through a snapshot', () => {
    const state = fold([configured('app'), delivered('app', 'd-1'), delivered('app', 'd-2')]);
    const copy = loadState(gitStacks, JSON.parse(JSON.stringify(saveState(gitStacks, state))));
    expect([...(copy.stacks.get(gitStackKey(null, 'app'))?.deliveries.seen ?? [])]).toEqual(['d-1', 'd-2']);
  });
});

describe('planSchedules', () => {
  it('starts new and changed expressions, stops changed and removed ones', () => {
    const current = new Map([
      ['local/a', '* * * * *'],
      ['local/b', '0 * * * *'],
      ['1/c', '*/5 * * * *'],
    ]);
    const wanted = new Map([
      ['local/a', '* * * * *'],
      ['local/b', '30 * * * *'],
      ['local/d', '* * * * * *'],
    ]);
    const plan = planSchedules(current, wanted);
    expect(plan.stop.sort()).toEqual(['1/c', 'local/b']);
    expect(plan.start.sort()).toEqual([
      ['local/b', '30 * * * *'],
      ['local/d', '* * * * * *'],
    ]);
  });

  it('does nothing when they agree', () => {
    const same = new Map([['local/a', '* * * * *']]);
    expect(planSchedules(same, new Map(same))).toEqual({ stop: [], start: [] });
  });
});

describe('AutoDeploySchedules', () => {
  it('an expression node-cron refuses leaves that stack unscheduled, said once; the others keep theirs', () => {
    const logged: string[] = [];
    const write = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      logged.push(String(chunk));
      return true;
    });
    const schedules = new AutoDeploySchedules(async () => {});
    try {
      const wanted = new Map([
        ['local/constructor', 'not a cron'],
        ['local/web', '0 3 * * *'],
      ]);
      expect(() => schedules.sync(wanted)).not.toThrow();
      schedules.sync(new Map(wanted));
      expect(schedules.scheduled).toEqual(new Map([['local/web', '0 3 * * *']]));
      expect(logged.filter((line) => line.includes('local/constructor'))).toHaveLength(1);
      expect(logged[0]).toContain('cannot schedule the auto-deploy of local/constructor on "not a cron"');
      // A valid expression for it later is scheduled.
      schedules.sync(new Map([...wanted, ['local/constructor', '0 4 * * *']]));
      expect(schedules.scheduled.get('local/constructor')).toBe('0 4 * * *');
    } finally {
      schedules.stop();
      write.mockRestore();
    }
  });
});
