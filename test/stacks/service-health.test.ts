/**
 * src/stacks/engine/service-health.ts: the judgement of the containers an `up` started (pure), and the
 * container log frames of the Engine API.
 */
import { describe, expect, it } from 'vitest';
import { type ContainerRun, demuxLog, judge } from '../../src/stacks/engine/service-health.js';

const run = (over: Partial<ContainerRun>): ContainerRun => ({
  name: 'shop-web-1',
  service: 'web',
  state: 'running',
  exitCode: 0,
  health: null,
  restartPolicy: 'no',
  restartCount: 0,
  ...over,
});

describe('judge', () => {
  it('ready: running (healthy or without a check), paused, and one-shots that exited 0', () => {
    const oneShots = new Set(['migrate', 'seed']);
    expect(judge([], oneShots)).toEqual({ kind: 'ready' });
    expect(
      judge(
        [
          run({}),
          run({ name: 'shop-db-1', service: 'db', health: 'healthy' }),
          run({ name: 'shop-migrate-1', service: 'migrate', state: 'exited', restartPolicy: '' }),
          run({ name: 'shop-seed-1', service: 'seed', state: 'exited', restartPolicy: 'on-failure' }),
          run({ name: 'shop-held-1', service: 'held', state: 'paused' }),
        ],
        oneShots,
      ),
    ).toEqual({ kind: 'ready' });
  });

  it('exit 0 of a service the compose file does not declare a one-shot: stopped when it should run', () => {
    const web = run({ state: 'exited' });
    expect(judge([web], new Set(['migrate']))).toEqual({
      kind: 'failed',
      failed: [{ container: web, reason: 'Service web (container shop-web-1) exited with code 0' }],
    });
  });

  it('failed: a non-zero exit, an unhealthy check; a failure wins over what still waits', () => {
    const crashed = run({ name: 'shop-app-1', service: 'app', state: 'exited', exitCode: 3 });
    const sick = run({ health: 'unhealthy' });
    const starting = run({ name: 'shop-db-1', service: 'db', health: 'starting' });
    expect(judge([crashed, sick, starting], new Set())).toEqual({
      kind: 'failed',
      failed: [
        { container: crashed, reason: 'Service app (container shop-app-1) exited with code 3' },
        { container: sick, reason: 'Service web (container shop-web-1) is unhealthy' },
      ],
    });
    expect(judge([run({ state: 'dead', exitCode: 137 })], new Set(['web']))).toMatchObject({
      kind: 'failed',
    });
  });

  it('waiting: a check still starting, a restart under way, created, exit 0 under restart: always', () => {
    const verdict = judge(
      [
        run({ health: 'starting' }),
        run({
          name: 'shop-app-1',
          service: 'app',
          state: 'restarting',
          exitCode: 1,
          restartCount: 2,
          restartPolicy: 'always',
        }),
        run({ name: 'shop-new-1', service: 'new', state: 'created' }),
        run({ name: 'shop-loop-1', service: 'loop', state: 'exited', restartPolicy: 'always' }),
      ],
      new Set(['loop']),
    );
    expect(verdict.kind).toBe('waiting');
    expect(verdict.kind === 'waiting' ? verdict.pending.map((p) => p.reason) : []).toEqual([
      'Service web (container shop-web-1) is still starting (health: starting)',
      'Service app (container shop-app-1) keeps restarting (last exit code 1, restarted 2 times)',
      'Service new (container shop-new-1) is created, not running',
      'Service loop (container shop-loop-1) exited with code 0 and is restarted',
    ]);
  });
});

describe('demuxLog', () => {
  const frame = (stream: 1 | 2, text: string) => {
    const payload = Buffer.from(text);
    const head = Buffer.alloc(8);
    head[0] = stream;
    head.writeUInt32BE(payload.length, 4);
    return Buffer.concat([head, payload]);
  };
  it('joins stdout and stderr frames in order; takes a TTY log as it is', () => {
    expect(demuxLog(Buffer.concat([frame(1, 'starting\n'), frame(2, 'boom\n'), frame(1, 'bye\n')]))).toBe(
      'starting\nboom\nbye\n',
    );
    expect(demuxLog(Buffer.from('plain tty output\n'))).toBe('plain tty output\n');
    expect(demuxLog(Buffer.alloc(0))).toBe('');
  });
});
