import { afterAll, afterEach, expect, it } from 'vitest';
import { postgresSchemas, postgresUnavailable } from '../../store/postgres-helpers.js';
import {
  composeText,
  createStackDone,
  dataOf,
  deploy,
  describeStacks,
  ended,
  eventually,
  expectStatus,
  getRun,
  type Json,
  objectOf,
  openSse,
  type StacksServer,
  saveCompose,
  startStacks,
  TOKENS,
  waitJob,
} from './helpers.js';

/**
 * Several `chronicle stacks` instances on one PostgreSQL log and one data directory (docs/operations.md#several-instances): both
 * serve reads and writes, their read models converge, a subscriber on one receives the lines of a
 * deploy running on the other, one stack runs one job at a time across them, and the runs of an
 * instance that is killed are closed by the one that lives — never those of an instance still alive.
 */
const unavailable = await postgresUnavailable();
const schemas = postgresSchemas('instances');
afterAll(() => schemas.dropAll());

const servers: StacksServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

async function twoInstances(): Promise<[StacksServer, StacksServer]> {
  const storeUrl = schemas.url();
  const a = await startStacks({ storeUrl });
  servers.push(a);
  const b = await startStacks({ storeUrl, dataDir: a.dataDir });
  servers.push(b);
  return [a, b];
}

const LINES = 300;
const slowCompose = (perLineMs: number) =>
  composeText({ up: { lines: ['pulling', 'Container app-web-1  Started'], repeat: LINES / 2, perLineMs } });

describeStacks('several instances on one PostgreSQL log', () => {
  if (unavailable !== undefined) {
    it.skip(`skipped: ${unavailable}`, () => undefined);
    console.log(`skipped: several instances: ${unavailable}`);
    return;
  }

  it('a deploy on A streams every line to a subscriber on B; both answer the run the same way', async () => {
    const [a, b] = await twoInstances();
    await createStackDone(a.as('admin'), 'web', null);
    await saveCompose(a.as('admin'), 'web', null, slowCompose(2));
    const ack = await deploy(a.as('admin'), 'web', null);
    const onB = await openSse(b.port, `/api/jobs/${ack.jobId}/events`, TOKENS.admin);
    expect(onB.status).toBe(200);
    await ended(onB);
    const messages = dataOf(onB);
    const lines = messages.filter((m) => m.type === 'line').map((m) => m.line);
    expect(lines).toHaveLength(LINES);
    expect(lines.slice(0, 2)).toEqual(['pulling', 'Container app-web-1  Started']);
    expect(messages.at(-1)).toMatchObject({ type: 'result', success: true });

    // Read models converge: B lists and shows the run A recorded, with the same JSON.
    const runId = ack.runId as number;
    const onA = await getRun(a.as('admin'), 'web', runId);
    const seenOnB = await eventually(async () => {
      const run = await getRun(b.as('admin'), 'web', runId);
      return run.status === 'success' ? run : undefined;
    }, 'the run to be success on B');
    expect(onA.status).toBe('success');
    expect(seenOnB).toEqual(await getRun(a.as('admin'), 'web', runId));
    const listB = await b.as('admin').get('/api/stacks/web/deploys?env=null');
    expect((listB.value as Json[]).map((r) => r.id)).toContain(runId);
    // The log file is in the shared data directory: B serves it.
    const log = await b.as('admin').get(`/api/stacks/web/deploys/${runId}/log`);
    expectStatus(log, 200, 'log on B');
    expect(log.text.split('\n').filter(Boolean)).toHaveLength(LINES);

    // Writes on B too: a deploy there, seen on A.
    const second = await deploy(b.as('admin'), 'web', null);
    expect((await waitJob(a.as('admin'), second.jobId)).result).toMatchObject({ success: true });
    expect(second.runId).toBeGreaterThan(runId);
  }, 90_000);

  it('one stack runs one job at a time across instances', async () => {
    const [a, b] = await twoInstances();
    await createStackDone(a.as('admin'), 'web', null);
    // Runs for 8 s whatever the machine's load, so B's request certainly comes while it runs.
    await saveCompose(
      a.as('admin'),
      'web',
      null,
      composeText({ up: { lines: ['pulling'], sleepMs: 8_000 } }),
    );
    const running = await deploy(a.as('admin'), 'web', null);
    const refused = await b.as('admin').post('/api/stacks/web/deploy?env=null', {});
    expectStatus(refused, 409, 'deploy on B while A deploys');
    expect(objectOf(refused)).toEqual({ error: 'Stack has a job running' });
    await waitJob(a.as('admin'), running.jobId);
    const after = await deploy(b.as('admin'), 'web', null);
    expect((await waitJob(b.as('admin'), after.jobId)).result).toMatchObject({ success: true });
  }, 90_000);

  it("A killed during a deploy: B closes A's run as failed; B never closes a run of a live A", async () => {
    const storeUrl = schemas.url();
    const a = await startStacks({ storeUrl });
    servers.push(a);
    await createStackDone(a.as('admin'), 'web', null);
    // A deploy that would take a minute: it is killed long before.
    await saveCompose(a.as('admin'), 'web', null, slowCompose(200));
    const ack = await deploy(a.as('admin'), 'web', null);
    const runId = ack.runId as number;
    // B starts while A's deploy runs: A is alive, so B leaves the run alone.
    const b = await startStacks({ storeUrl, dataDir: a.dataDir });
    servers.push(b);
    expect((await getRun(b.as('admin'), 'web', runId)).status).toBe('running');
    await a.kill9();
    const closed = await eventually(
      async () => {
        const run = await getRun(b.as('admin'), 'web', runId);
        return run.status === 'running' ? undefined : run;
      },
      "B to close A's run",
      45_000,
    );
    // A's compose dies at its next write into the closed pipe; should B look before, it stops it and says so.
    expect(closed).toMatchObject({
      status: 'failed',
      errorMessage: expect.stringMatching(/^The server stopped before this deploy finished/),
    });
    const job = await waitJob(b.as('admin'), ack.jobId, 45_000);
    expect(job.result).toMatchObject({
      success: false,
      error: expect.stringMatching(/^The server stopped before this job finished/),
    });
  }, 120_000);

  it('the reconcile schedule runs on one instance; when that one dies another takes it over', async () => {
    const storeUrl = schemas.url();
    const a = await startStacks({ storeUrl });
    servers.push(a);
    const b = await startStacks({ storeUrl, dataDir: a.dataDir });
    servers.push(b);
    const cronRows = async (server: StacksServer) => {
      const reply = await server.as('admin').get('/api/schedules/executions?limit=500');
      expectStatus(reply, 200, 'executions');
      return ((objectOf(reply).executions as Json[]) ?? []).filter(
        (row) => row.scheduleType === 'deploy_log_reconcile' && row.trigger === 'cron',
      );
    };
    expectStatus(
      await b.as('admin').post('/api/settings/general', { deployLogReconcileCron: '* * * * * *' }),
      200,
      'every second',
    );
    const before = await eventually(async () => {
      const rows = await cronRows(b);
      return rows.length >= 3 ? rows : undefined;
    }, 'three scheduled reconciles');
    // One reconcile per tick, never two at once: their times do not overlap.
    const spans = before
      .map((row) => [Date.parse(row.startedAt as string), Date.parse((row.finishedAt as string) ?? '')])
      .sort((x, y) => (x[0] as number) - (y[0] as number));
    for (let i = 1; i < spans.length; i++)
      expect(spans[i]?.[0] as number).toBeGreaterThanOrEqual(spans[i - 1]?.[1] as number);

    // A, started first, holds the schedule; it dies, and B goes on ticking.
    await a.kill9();
    const killedAt = Date.now();
    const after = await eventually(
      async () => {
        const rows = (await cronRows(b)).filter(
          (row) => Date.parse(row.startedAt as string) > killedAt && row.status !== 'running',
        );
        return rows.length >= 2 ? rows : undefined;
      },
      'scheduled reconciles after the holder died',
      45_000,
    );
    expect(after.every((row) => row.status === 'success')).toBe(true);
    expectStatus(
      await b.as('admin').post('/api/settings/general', { deployLogReconcileEnabled: false }),
      200,
      'disable',
    );
  }, 120_000);
});
