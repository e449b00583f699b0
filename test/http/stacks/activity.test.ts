/**
 * A stack's Activity, black-box with the fake compose: Stop, Start, Restart and Down are kept (who, what,
 * when, how it ended, the output redacted and bounded) and read back after their job is swept, after a
 * restart and after `chronicle rebuild stack-activity`; never in the deploys list; audited as
 * operation.started / operation.finished.
 */
import { expect, it } from 'vitest';
import { runCli } from '../../cli/helpers.js';
import {
  arrayOf,
  composeText,
  createStackDone,
  describeStacks,
  type Json,
  objectOf,
  serveStacks,
  stacksConfig,
} from './helpers.js';

const SECRET = 's3cret-value-9';
const stacks = serveStacks();

const operationsOf = async (path: string) =>
  (objectOf(await stacks.admin.get(path)).operations ?? []) as Json[];

describeStacks('stack activity', () => {
  it('keeps each operation with who, its result and its redacted output; deploys never list them', async () => {
    await createStackDone(stacks.admin, 'busy', null, {
      compose: composeText({
        up: { lines: ['up'] },
        stop: {
          lines: [
            ' Container busy-web-1  Stopping',
            `stopping with ${SECRET}`,
            ' Container busy-web-1  Stopped',
          ],
        },
        start: { lines: [' Container busy-web-1  Started'] },
        restart: { stderr: ['restart refused by the engine'], exit: 3 },
        down: { lines: [' Container busy-web-1  Removed'] },
      }),
      variables: [{ name: 'TOKEN', value: SECRET, secret: true }],
    });
    const ids: string[] = [];
    for (const operation of ['stop', 'start', 'restart', 'down']) {
      const reply = await stacks.server.as('admin').postJson(`/api/stacks/busy/${operation}?env=null`);
      ids.push((objectOf(reply) as { jobId: string }).jobId);
    }
    const listed = await operationsOf('/api/stacks/busy/activity?env=null');
    expect(listed.map((o) => [o.operation, o.status, o.userId, o.jobId])).toEqual([
      ['down', 'success', 'admin', ids[3]],
      ['restart', 'failed', 'admin', ids[2]],
      ['start', 'success', 'admin', ids[1]],
      ['stop', 'success', 'admin', ids[0]],
    ]);
    const stop = listed[3] as Json;
    expect(stop).toMatchObject({ exitCode: 0, error: null, lines: 3, keptLines: 3 });
    expect(Date.parse(stop.finishedAt as string)).toBeGreaterThanOrEqual(
      Date.parse(stop.startedAt as string),
    );
    expect(listed[1]).toMatchObject({ exitCode: 3, lines: 1 });
    expect(String(listed[1]?.error)).toContain('restart refused by the engine');

    // Its output, redacted as every output: the secret never comes back.
    const read = objectOf(await stacks.admin.get(`/api/stacks/busy/activity/${ids[0]}?env=null`));
    expect(read.output).toEqual([
      ' Container busy-web-1  Stopping',
      'stopping with ***',
      ' Container busy-web-1  Stopped',
    ]);
    expect(JSON.stringify(listed)).not.toContain(SECRET);

    // Jobs, not runs: the deploys list holds the create's run only.
    const runs = arrayOf(await stacks.admin.get('/api/stacks/busy/deploys?env=null'));
    expect(runs.map((r) => r.id)).toHaveLength(1);

    // Audited: who started which operation, and how it ended.
    const audit = objectOf(await stacks.admin.get('/api/audit?type=operation.&stack=busy'));
    const entries = (audit.entries as Json[]).filter((e) => (e.details as Json).jobId === ids[2]);
    expect(entries.map((e) => [e.type, e.user, e.stack, e.details])).toEqual([
      [
        'operation.finished',
        null,
        'busy',
        { operation: 'restart', jobId: ids[2], status: 'failed', exitCode: 3 },
      ],
      ['operation.started', 'admin', 'busy', { operation: 'restart', jobId: ids[2] }],
    ]);
    expect(audit.total).toBe(8);
  });

  it('bounds the kept output to the last 200 lines', async () => {
    const lines = Array.from({ length: 300 }, (_, i) => `line ${i + 1}`);
    await createStackDone(stacks.admin, 'loud', 1, { compose: composeText({ up: {}, stop: { lines } }) });
    const reply = await stacks.admin.postJson('/api/stacks/loud/stop?env=1');
    const { jobId } = objectOf(reply) as { jobId: string };
    const read = objectOf(await stacks.admin.get(`/api/stacks/loud/activity/${jobId}?env=1`));
    expect(read).toMatchObject({ lines: 300, keptLines: 200 });
    expect(read.output).toEqual(lines.slice(100));
  });

  it('answers 404 for an unknown operation, 400 for a bad env, 403 without view there', async () => {
    const missing = await stacks.admin.get('/api/stacks/busy/activity/no-such-job?env=null');
    expect([missing.status, missing.value]).toEqual([404, { error: 'Operation not found' }]);
    const other = await stacks.admin.get('/api/stacks/loud/activity?env=null');
    expect(objectOf(other).operations).toEqual([]);
    expect((await stacks.admin.get('/api/stacks/busy/activity?env=x')).status).toBe(400);
    expect((await stacks.server.as('nogrant').get('/api/stacks/busy/activity?env=null')).status).toBe(403);
    expect((await stacks.server.as('viewer1').get('/api/stacks/loud/activity?env=1')).status).toBe(200);
  });

  it('outlives the job (swept), a restart and a rebuild of its read model', async () => {
    const before = await operationsOf('/api/stacks/busy/activity?env=null');
    const stopId = before[3]?.jobId as string;
    const output = objectOf(await stacks.admin.get(`/api/stacks/busy/activity/${stopId}?env=null`)).output;
    // A retention of 0 hours: the start sweeps every finished job.
    await stacks.restart({ config: stacksConfig({ jobs: { retentionHours: 0 } }) });
    expect((await stacks.admin.get(`/api/jobs/${stopId}`)).status).toBe(404);
    expect(await operationsOf('/api/stacks/busy/activity?env=null')).toEqual(before);

    const { dataDir } = stacks.server;
    await stacks.server.stop();
    const rebuilt = await runCli(['rebuild', 'stack-activity', '--data', dataDir]);
    expect(rebuilt.code).toBe(0);
    await stacks.restart();
    expect(await operationsOf('/api/stacks/busy/activity?env=null')).toEqual(before);
    const again = objectOf(await stacks.admin.get(`/api/stacks/busy/activity/${stopId}?env=null`));
    expect(again.output).toEqual(output);
  });
});
