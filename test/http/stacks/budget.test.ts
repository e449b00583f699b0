/**
 * The deploy-log size budget (spec: States and transitions, Limits; Output redaction and log storage 4),
 * with a small configured budget: past it, further lines are dropped, one notice line is written and
 * `details.truncated` is true; the budget is per environment.
 */
import { statSync } from 'node:fs';
import { expect, it } from 'vitest';
import {
  composeText,
  createStackDone,
  dataOf,
  deploy,
  deployDone,
  describeStacks,
  ended,
  logLines,
  logPath,
  openSse,
  saveCompose,
  serveStacks,
  stacksConfig,
  TOKENS,
  waitJob,
  waitRun,
} from './helpers.js';

const BUDGET = 4096;
const REMEASURE = 1024;
const LINES = Array.from(
  { length: 600 },
  (_, i) => `budget line ${String(i).padStart(4, '0')} ${'.'.repeat(40)}`,
);

const stacks = serveStacks({
  config: stacksConfig({ deployLogs: { budgetBytes: BUDGET, remeasureBytes: REMEASURE } }),
});

describeStacks('the deploy-log budget', () => {
  it('a deploy printing far more stops writing, with one notice line, and details.truncated = true', async () => {
    await createStackDone(stacks.admin, 'noisy', 1, { compose: composeText({}) });
    await saveCompose(stacks.admin, 'noisy', 1, composeText({ lines: LINES }));
    const { runId, job } = await deployDone(stacks.admin, 'noisy', 1);
    const run = await waitRun(stacks.admin, 'noisy', runId as number);
    expect(run).toMatchObject({ status: 'success', details: { truncated: true, exitCode: 0 } });
    expect(job.result).toMatchObject({ success: true });

    const size = statSync(logPath(stacks.server.dataDir, 1, runId as number)).size;
    // Measured again only every REMEASURE bytes of the run's own output: it may pass the budget by that much.
    expect(size).toBeLessThanOrEqual(BUDGET + REMEASURE + 500);
    const logged = (await logLines(stacks.server.dataDir, 1, runId as number)) ?? [];
    const kept = logged.slice(0, -1);
    const notice = logged.at(-1) ?? '';
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(LINES.length);
    expect(kept).toEqual(LINES.slice(0, kept.length));
    expect(LINES).not.toContain(notice);
    expect(notice.length).toBeGreaterThan(0);
    expect(logged.filter((line) => !LINES.includes(line))).toEqual([notice]);

    const log = await stacks.admin.get(`/api/stacks/noisy/deploys/${runId}/log`);
    expect(log.status).toBe(200);
    expect(log.text.split('\n').filter((l) => l.length > 0)).toEqual(logged);
  });

  it('the budget is per environment: a run in another environment is written whole', async () => {
    await createStackDone(stacks.admin, 'quiet', 2, { compose: composeText({}) });
    await saveCompose(stacks.admin, 'quiet', 2, composeText({ lines: LINES.slice(0, 20) }));
    const { runId } = await deployDone(stacks.admin, 'quiet', 2);
    const run = await waitRun(stacks.admin, 'quiet', runId as number);
    expect(run).toMatchObject({ status: 'success', details: { truncated: false } });
    expect(await logLines(stacks.server.dataDir, 2, runId as number)).toEqual(LINES.slice(0, 20));
  });

  it('past the budget the job takes no more lines either, and says so once (issue 15)', async () => {
    await createStackDone(stacks.admin, 'counted', 2, { compose: composeText({}) });
    await saveCompose(stacks.admin, 'counted', 2, composeText({ lines: LINES }));
    const { runId, jobId } = await deploy(stacks.admin, 'counted', 2);
    const live = await openSse(stacks.server.port, `/api/jobs/${jobId}/events`, TOKENS.admin);
    const job = await waitJob(stacks.admin, jobId);
    await ended(live);
    const logged = (await logLines(stacks.server.dataDir, 2, runId as number)) ?? [];
    const kept = logged.slice(0, -1);
    expect(kept.length).toBeLessThan(LINES.length);
    const notice = logged.at(-1);
    // The job's messages: its statuses, the lines the log kept (no more), the notice once, the result.
    const lines = job.messages.filter((m) => m.type === 'line').map((m) => m.line);
    expect(lines).toEqual(kept);
    const notices = job.messages.filter((m) => m.status === notice);
    expect(notices).toHaveLength(1);
    expect(job.messages.indexOf(notices[0] as (typeof job.messages)[number])).toBe(job.messages.length - 2);
    expect(job.result).toMatchObject({ success: true, output: kept.slice(-200) });
    expect(dataOf(live)).toEqual(job.messages);
  });

  it('once the environment is over budget, the next run there is truncated too', async () => {
    await saveCompose(stacks.admin, 'noisy', 1, composeText({ lines: LINES.slice(0, 100) }));
    const { runId } = await deployDone(stacks.admin, 'noisy', 1);
    const run = await waitRun(stacks.admin, 'noisy', runId as number);
    expect(run).toMatchObject({ status: 'success', details: { truncated: true } });
    const logged = (await logLines(stacks.server.dataDir, 1, runId as number)) ?? [];
    expect(logged.filter((line) => !LINES.includes(line))).toHaveLength(1);
    expect(logged.length).toBeLessThan(100);
  });
});
