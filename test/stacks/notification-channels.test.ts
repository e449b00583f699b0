import { describe, expect, it } from 'vitest';
import { notifications, type Occurrence } from '../../projections/notifications.js';
import type { NotificationChannel } from '../../src/stacks/contracts.js';
import { channelRequest, wants } from '../../src/stacks/notifications/channels.js';
import type { RecordedEvent } from '../../src/store/types.js';

const o: Occurrence = {
  position: 7,
  event: 'run.failed',
  stack: 'web',
  environmentId: 1,
  runId: 3,
  text: 'Deploy run 3 of web (environment 1) failed (exit code 1)',
  at: '2026-11-26T00:00:00.000Z',
};
const channel = (over: Partial<NotificationChannel>): NotificationChannel => ({
  name: 'c',
  type: 'webhook',
  url: 'http://127.0.0.1:1/x',
  events: ['run.failed'],
  maxAttempts: 3,
  retryBaseMs: 10,
  ...over,
});

describe('channel requests', () => {
  it('build each type with the idempotency key', () => {
    const hook = channelRequest(channel({}), o, 'c:7');
    expect(hook.headers['idempotency-key']).toBe('c:7');
    expect(JSON.parse(hook.body)).toMatchObject({ key: 'c:7', event: 'run.failed', runId: 3 });
    const ntfy = channelRequest(channel({ type: 'ntfy', token: 'tk' }), o, 'c:7');
    expect(ntfy.body).toBe(o.text);
    expect(ntfy.headers.authorization).toBe('Bearer tk');
    const gotify = channelRequest(
      channel({ type: 'gotify', url: 'http://g.example/', token: 'app' }),
      o,
      'c:7',
    );
    expect(gotify.url).toBe('http://g.example/message?token=app');
    expect(JSON.parse(gotify.body)).toEqual({ title: 'chronicle', message: o.text, priority: 8 });
    const slack = channelRequest(channel({ type: 'slack' }), o, 'c:7');
    expect(JSON.parse(slack.body)).toEqual({ text: o.text, content: o.text });
  });

  it('match events, stacks and environments', () => {
    expect(wants(channel({}), o)).toBe(true);
    expect(wants(channel({ events: ['run.succeeded'] }), o)).toBe(false);
    expect(wants(channel({ stacks: ['api'] }), o)).toBe(false);
    expect(wants(channel({ environments: [null] }), o)).toBe(false);
    expect(wants(channel({ environments: [1], stacks: ['web'] }), o)).toBe(true);
  });
});

describe('notifications read model', () => {
  const ev = (position: number, stream: string, type: string, data: unknown) =>
    ({
      stream,
      revision: 0,
      position,
      type,
      data,
      metadata: { at: '2026-11-26T00:00:00.000Z' },
    }) as RecordedEvent;
  it('turns a rollback run that succeeds into run.succeeded and run.rolled_back, a failed one into run.failed', () => {
    let state = notifications.initial();
    const started = (id: number, extra: Record<string, number>) =>
      ev(id * 10, `deploy-run-${id}`, 'RunStarted', {
        run_id: id,
        stack: 'web',
        environment_id: null,
        extra,
      });
    const done = (id: number, status: string) =>
      ev(id * 10 + 1, `deploy-run-${id}`, 'RunCompletedSealed', {
        run_id: id,
        status,
        exit_code: status === 'failed' ? 1 : 0,
      });
    for (const e of [started(1, {}), done(1, 'failed'), started(2, { rollbackOf: 1 }), done(2, 'success')])
      state = notifications.evolve(state, e);
    expect(state.occurrences.map((o) => `${o.event} ${o.runId} ${o.position}`)).toEqual([
      'run.failed 1 11',
      'run.succeeded 2 21',
      'run.rolled_back 2 21',
    ]);
  });
});
