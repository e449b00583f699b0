/**
 * Lines withheld by redaction (a value of 5 characters or fewer cannot be replaced with `***`) leave the
 * run's log; the run says how many and where (`details.withheld`), by the log's own line numbers, so the
 * log's lines, pages and offsets stay those of what was shown. Black-box with the fake compose; the
 * places are recorded as they come, so a reader following the run sees them before it ends; the
 * answer outlives a restart, the reconcile, and a rebuild of the runs' read model.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCli, tempDir } from '../../cli/helpers.js';
import {
  composeText,
  createStackDone,
  deploy,
  deployDone,
  describeStacks,
  getRun,
  logLines,
  logPath,
  objectOf,
  saveCompose,
  serveStacks,
  waitRun,
} from './helpers.js';

const PIN = 'x9q4';
const stacks = serveStacks();

describeStacks('withheld lines of a run', () => {
  it('the run answers how many lines were withheld and after which log line; the log holds the rest', async () => {
    await createStackDone(stacks.admin, 'pinned', null, {
      compose: composeText(),
      variables: [{ name: 'PIN', value: PIN, secret: true }],
    });
    await saveCompose(
      stacks.admin,
      'pinned',
      null,
      composeText({
        up: {
          lines: [
            `starting with ${PIN}`,
            'first',
            `pin is ${PIN}`,
            'between',
            `again ${PIN}`,
            `and ${PIN}`,
            'last',
          ],
        },
      }),
    );
    const { runId } = await deployDone(stacks.admin, 'pinned', null);
    const run = await waitRun(stacks.admin, 'pinned', runId as number);
    expect(run.status).toBe('success');
    const withheld = {
      lines: 4,
      at: [
        { afterLine: 0, lines: 1 },
        { afterLine: 1, lines: 1 },
        { afterLine: 2, lines: 2 },
      ],
    };
    expect((run.details as Record<string, unknown>).withheld).toEqual(withheld);
    expect(JSON.stringify(run)).not.toContain(PIN);
    const { dataDir } = stacks.server;
    expect(await logLines(dataDir, null, runId as number)).toEqual(['first', 'between', 'last']);
    // A page of the log is numbered as the file is: line 2 is `between`, after which two were withheld.
    const page = objectOf(
      await stacks.admin.get(`/api/stacks/pinned/deploys/${runId}/log?fromLine=2&limit=1`),
    );
    expect(page.lines).toEqual([{ line: 2, text: 'between' }]);

    // A run without a withheld line has no such detail.
    const first = await getRun(stacks.admin, 'pinned', 1);
    expect((first.details as Record<string, unknown>).withheld).toBeUndefined();

    // The reconcile leaves a run whose log is there as it was, and flags one whose log is gone without
    // losing where its lines were withheld; a rebuild of the read model answers the same.
    const again = await deployDone(stacks.admin, 'pinned', null);
    await rm(logPath(dataDir, null, again.runId as number));
    const reconcile = await stacks.admin.post('/api/schedules/deploy_log_reconcile/run');
    expect(reconcile.status).toBe(200);
    const flagged = await getRun(stacks.admin, 'pinned', again.runId as number);
    expect(flagged.details).toMatchObject({ logMissing: true, withheld });
    const ids = [run.id as number, 1, again.runId as number];
    const answers = await Promise.all(ids.map((id) => getRun(stacks.admin, 'pinned', id)));
    expect(answers[0]).toEqual(await getRun(stacks.admin, 'pinned', run.id as number));

    await stacks.server.stop();
    const rebuilt = await runCli(['rebuild', 'deploy-runs', '--data', dataDir]);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    await stacks.restart();
    const after = await Promise.all(ids.map((id) => getRun(stacks.admin, 'pinned', id)));
    expect(after).toEqual(answers);
  });

  it('a run followed live says where lines were withheld before it ends', async () => {
    // The deploy waits after its secret line until the test has seen the place in the running run.
    const gate = join(await tempDir(), 'go');
    await createStackDone(stacks.admin, 'gated', null, {
      compose: composeText(),
      variables: [{ name: 'PIN', value: PIN, secret: true }],
    });
    await saveCompose(
      stacks.admin,
      'gated',
      null,
      composeText({
        up: { lines: ['first', `pin is ${PIN}`, 'after'], gate: { afterLines: 2, file: gate } },
      }),
    );
    const { runId } = await deploy(stacks.admin, 'gated', null);
    const place = { lines: 1, at: [{ afterLine: 1, lines: 1 }] };
    await expect
      .poll(async () => (await getRun(stacks.admin, 'gated', runId as number)).details, { timeout: 60_000 })
      .toMatchObject({ withheld: place });
    // Seen while it still runs: compose waits at the gate, which only this test opens.
    expect((await getRun(stacks.admin, 'gated', runId as number)).status).toBe('running');
    await writeFile(gate, '');
    const run = await waitRun(stacks.admin, 'gated', runId as number);
    expect(run.status).toBe('success');
    expect((run.details as Record<string, unknown>).withheld).toEqual(place);
    expect(await logLines(stacks.server.dataDir, null, runId as number)).toEqual(['first', 'after']);
  });
});
