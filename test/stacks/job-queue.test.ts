import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deployRuns, evolveRun } from '../../projections/deploy-runs.js';
import { jobs as jobsProjection } from '../../projections/jobs.js';
import {
  admit,
  aheadOf,
  ComposeSlots,
  emptyQueue,
  leave,
  type QueueState,
  QueueWithdrawnError,
} from '../../src/stacks/jobs/queue.js';
import type { RecordedEvent } from '../../src/store/types.js';

describe('the queue decision (pure)', () => {
  it('runs up to the limit at once, then queues in arrival order', () => {
    let state: QueueState = emptyQueue(2);
    const started: string[] = [];
    for (const id of ['a', 'b', 'c', 'd']) {
      const decision = admit(state, id);
      state = decision.state;
      started.push(...decision.start);
    }
    expect(started).toEqual(['a', 'b']);
    expect(state).toEqual({ limit: 2, running: ['a', 'b'], waiting: ['c', 'd'] });
    expect([aheadOf(state, 'c'), aheadOf(state, 'd'), aheadOf(state, 'a')]).toEqual([0, 1, undefined]);
  });

  it('a freed slot goes to the first waiting; a withdrawn waiting one starts nothing', () => {
    let state: QueueState = { limit: 2, running: ['a', 'b'], waiting: ['c', 'd', 'e'] };
    const withdrawn = leave(state, 'd');
    expect(withdrawn).toEqual({ state: { limit: 2, running: ['a', 'b'], waiting: ['c', 'e'] }, start: [] });
    state = withdrawn.state;
    const freed = leave(state, 'b');
    expect(freed).toEqual({ state: { limit: 2, running: ['a', 'c'], waiting: ['e'] }, start: ['c'] });
    expect(leave(freed.state, 'nobody')).toEqual({ state: freed.state, start: [] });
    // Asking twice changes nothing.
    expect(admit(freed.state, 'e')).toEqual({ state: freed.state, start: [] });
    expect(admit(freed.state, 'a')).toEqual({ state: freed.state, start: [] });
  });

  it('any sequence: never more than the limit run, nobody waits beside a free slot, order is kept', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('admit' as const), id: fc.integer({ min: 0, max: 12 }) }),
      fc.record({ kind: fc.constant('leave' as const), id: fc.integer({ min: 0, max: 12 }) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(op, { maxLength: 60 }), (limit, ops) => {
        let state: QueueState = emptyQueue(limit);
        const startOrder: string[] = [];
        const waitOrder: string[] = [];
        for (const { kind, id } of ops) {
          const key = String(id);
          const wasWaiting = state.waiting.includes(key);
          const known = wasWaiting || state.running.includes(key);
          const decision = kind === 'admit' ? admit(state, key) : leave(state, key);
          state = decision.state;
          if (kind === 'admit' && !known) waitOrder.push(key);
          if (kind === 'leave' && wasWaiting) waitOrder.splice(waitOrder.indexOf(key), 1);
          startOrder.push(...decision.start);
          for (const started of decision.start) waitOrder.splice(waitOrder.indexOf(started), 1);
          expect(state.running.length).toBeLessThanOrEqual(limit);
          if (state.waiting.length > 0) expect(state.running.length).toBe(limit);
          expect(new Set([...state.running, ...state.waiting]).size).toBe(
            state.running.length + state.waiting.length,
          );
          // Those still waiting keep the order they came in.
          expect(state.waiting).toEqual(waitOrder);
        }
      }),
    );
  });
});

describe('ComposeSlots', () => {
  it('grants in order as slots free; release of a waiting ticket withdraws it', async () => {
    const slots = new ComposeSlots(1);
    const a = slots.request('a');
    const b = slots.request('b');
    const c = slots.request('c');
    expect([a.queued, b.queued, c.queued]).toEqual([false, true, true]);
    expect([a.ahead, b.ahead, c.ahead]).toEqual([0, 0, 1]);
    expect([slots.running, slots.waiting, a.limit]).toEqual([1, 2, 1]);
    const granted: string[] = [];
    void b.granted.then(() => granted.push('b'));
    const cOutcome = c.granted.then(
      () => 'granted',
      (error: unknown) => error,
    );
    c.release();
    expect(await cOutcome).toBeInstanceOf(QueueWithdrawnError);
    a.release();
    a.release();
    await b.granted;
    expect(granted).toEqual(['b']);
    expect([slots.running, slots.waiting, b.waiting]).toEqual([1, 0, false]);
    expect(b.withdraw(new Error('too late'))).toBe(false);
  });

  it('withdraw and withdrawAll reject the waiting with the reason; the running keep their slot', async () => {
    const slots = new ComposeSlots(1);
    const a = slots.request('a');
    const b = slots.request('b');
    const c = slots.request('c');
    const d = slots.request('d');
    expect(b.withdraw(new Error('cancelled by admin'))).toBe(true);
    await expect(b.granted).rejects.toThrow('cancelled by admin');
    expect(slots.withdrawAll(new Error('stopping'))).toBe(2);
    await expect(c.granted).rejects.toThrow('stopping');
    await expect(d.granted).rejects.toThrow('stopping');
    expect([slots.running, slots.waiting]).toEqual([1, 0]);
    a.release();
    expect(slots.running).toBe(0);
  });

  it('run() waits its turn and frees the slot however the work ends', async () => {
    const slots = new ComposeSlots(2);
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let most = 0;
    let now = 0;
    const work = (fail: boolean) => async () => {
      now += 1;
      most = Math.max(most, now);
      await gate;
      now -= 1;
      if (fail) throw new Error('failed');
      return 'ok';
    };
    const all = Promise.allSettled([1, 2, 3, 4, 5].map((i) => slots.run(work(i % 2 === 0))));
    await Promise.resolve();
    expect([slots.running, slots.waiting]).toEqual([2, 3]);
    open();
    const outcomes = await all;
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect(most).toBe(2);
    expect([slots.running, slots.waiting]).toEqual([0, 0]);
  });

  it('refuses a pool without a slot', () => {
    expect(() => new ComposeSlots(0)).toThrow(RangeError);
  });
});

describe('queued runs and jobs in the read models', () => {
  let position = 0;
  const event = (stream: string, type: string, data: Record<string, unknown>) =>
    ({
      stream,
      type,
      data,
      revision: 0,
      position: ++position,
      metadata: { at: `2026-12-02T10:00:0${position % 10}.000Z` },
    }) as unknown as RecordedEvent;

  it('a run is queued with RunQueued, running with RunDequeued, then ends as before', () => {
    const state = deployRuns.initial();
    const run = (type: string, data: Record<string, unknown>) =>
      evolveRun(
        state,
        event('deploy-run-7', type, { run_id: 7, ...data }) as Parameters<typeof evolveRun>[1],
      );
    run('RunStarted', {
      job_id: 'j',
      stack: 's',
      environment_id: null,
      trigger: 'manual',
      user_id: null,
      options: { pull: false, build: false, forceRecreate: false },
      compose_hash: 'c',
      env_hash: 'e',
      log_file: '7.log',
    });
    run('RunQueued', { ahead: 2, limit: 4 });
    expect(state.runs.get(7)?.status).toBe('queued');
    run('RunDequeued', {});
    expect(state.runs.get(7)?.status).toBe('running');
    run('RunCompleted', { status: 'success', exit_code: 0, exit_code_known: true, error_message: null });
    expect(state.runs.get(7)?.status).toBe('success');
    // A late RunDequeued (it cannot be, but a log is what it is) never reopens a finished run.
    run('RunDequeued', {});
    expect(state.runs.get(7)?.status).toBe('success');
  });

  it('a run closed while queued is failed, and its snapshot keeps the status', () => {
    const state = deployRuns.initial();
    deployRuns.evolve(
      state,
      event('deploy-run-3', 'RunStarted', {
        run_id: 3,
        job_id: 'j',
        stack: 's',
        environment_id: 1,
        trigger: 'manual',
        user_id: null,
        options: { pull: false, build: false, forceRecreate: false },
        compose_hash: 'c',
        env_hash: 'e',
        log_file: '3.log',
      }),
    );
    deployRuns.evolve(state, event('deploy-run-3', 'RunQueued', { run_id: 3, ahead: 0, limit: 1 }));
    const saved = deployRuns.snapshot?.load(deployRuns.snapshot.save(state));
    expect(saved?.runs.get(3)?.status).toBe('queued');
    deployRuns.evolve(
      state,
      event('deploy-run-3', 'RunCompleted', {
        run_id: 3,
        status: 'failed',
        exit_code: 1,
        exit_code_known: false,
        error_message: 'stopped',
      }),
    );
    expect(state.runs.get(3)?.status).toBe('failed');
  });

  it('a job is queued between JobQueued and JobDequeued (or its result)', () => {
    const state = jobsProjection.initial();
    const job = (type: string, data: Record<string, unknown> = {}) =>
      jobsProjection.evolve(state, event('stack-job-j1', type, { job_id: 'j1', ...data }));
    job('JobStarted', { kind: 'deploy', stack: 's', environment_id: null, user_id: null, run_id: null });
    expect(state.jobs.get('j1')?.queued).toBeUndefined();
    job('JobQueued', { ahead: 0, limit: 1 });
    expect(state.jobs.get('j1')).toMatchObject({ status: 'running', queued: true, messages: 0 });
    job('JobDequeued');
    expect(state.jobs.get('j1')).toMatchObject({ status: 'running', queued: false, messages: 0 });
    job('JobQueued', { ahead: 0, limit: 1 });
    job('JobFinished', { success: false, error: 'stopped', output: [] });
    expect(state.jobs.get('j1')?.queued).toBeUndefined();
    expect(state.jobs.get('j1')?.status).toBe('done');
  });
});
