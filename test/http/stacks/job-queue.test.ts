/**
 * Bounded compose jobs (config `jobs.maxConcurrent`, docs/security.md#limits-and-their-defaults): 20 creates at
 * once start at most 4 compose `up`s, the others wait `queued` in their poll and their run, then all
 * succeed; with 1 slot the jobs run one after the other, first come first served; the save-time check
 * of a compose file never waits behind deploys; a stop fails the queued jobs, which never ran; a bad
 * value stops the start. The fake compose program holds every `up` at a gate (a file the test makes)
 * and appends `start <pid>` and `exit <pid>` to a marker file: how many ran at once is read from the
 * marker's order, never from time.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli, tempDir } from '../../cli/helpers.js';
import {
  argvCalls,
  arrayOf,
  composeText,
  createStack,
  deploy,
  describeStacks,
  eventually,
  getRun,
  type JobAck,
  type Json,
  objectOf,
  type StacksClient,
  type StacksServer,
  saveCompose,
  stacksConfig,
  startStacks,
  waitJob,
} from './helpers.js';

const servers: StacksServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.stop();
});

async function serve(maxConcurrent?: number): Promise<StacksServer> {
  const server = await startStacks({
    config: stacksConfig(maxConcurrent === undefined ? {} : { jobs: { maxConcurrent } }),
  });
  servers.push(server);
  return server;
}

/** The marker's lines, `start <pid>` and `exit <pid>`, in the order they were written. */
async function markerLines(marker: string): Promise<string[]> {
  try {
    return (await readFile(marker, 'utf8')).split('\n').filter((line) => line !== '');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

const starts = (lines: readonly string[]) => lines.filter((line) => line.startsWith('start ')).length;

/**
 * The most `up`s that ran at once: a process writes `exit` before it exits, and the next job's compose
 * is spawned only after a slot was freed by an exit, so the marker's order is the processes' order.
 */
function mostAtOnce(lines: readonly string[]): number {
  let now = 0;
  let most = 0;
  for (const line of lines) {
    now += line.startsWith('start ') ? 1 : -1;
    most = Math.max(most, now);
  }
  return most;
}

/** An `up` that prints one line, waits for `gate`, prints another and appends to `marker`. */
function gatedCompose(dir: string, name: string): string {
  return composeText({
    up: {
      lines: [`up ${name}`, `done ${name}`],
      gate: { afterLines: 1, file: join(dir, 'gate') },
      marker: join(dir, 'marker'),
    },
  });
}

async function jobStatus(client: StacksClient, jobId: string): Promise<string> {
  return objectOf(await client.get(`/api/jobs/${jobId}`)).status as string;
}

const statusMessages = (messages: Json[]) =>
  messages.filter((m) => m.type === 'status').map((m) => m.status as string);

describeStacks('bounded compose jobs (jobs.maxConcurrent)', () => {
  it('20 creates at once: at most 4 `up` at once, the others queued in poll and run, then all succeed', async () => {
    const server = await serve();
    const admin = server.as('admin');
    const dir = await tempDir();
    const names = Array.from({ length: 20 }, (_, i) => `queue-${i}`);
    const acks = await Promise.all(
      names.map((name) => createStack(admin, name, 1, { compose: gatedCompose(dir, name) })),
    );
    // Four `up`s reach the gate; nothing ends before the test opens it.
    await eventually(
      async () => (starts(await markerLines(join(dir, 'marker'))) >= 4 ? true : undefined),
      'four compose ups',
    );
    const runs = await Promise.all(names.map((name, i) => getRun(admin, name, acks[i]?.runId as number)));
    const statuses = runs.map((run) => run.status);
    expect(statuses.filter((s) => s === 'running')).toHaveLength(4);
    expect(statuses.filter((s) => s === 'queued')).toHaveLength(16);
    const polls = await Promise.all(acks.map((ack) => jobStatus(admin, ack.jobId)));
    // A job is queued exactly when its run is.
    expect(polls).toEqual(statuses);
    // The deploys list shows the same.
    for (const [i, name] of names.entries())
      expect(arrayOf(await admin.get(`/api/stacks/${name}/deploys?env=1`)).map((run) => run.status)).toEqual([
        statuses[i],
      ]);
    expect(starts(await markerLines(join(dir, 'marker')))).toBe(4);

    await writeFile(join(dir, 'gate'), '');
    const jobs = await Promise.all(acks.map((ack) => waitJob(admin, ack.jobId, 120_000)));
    for (const [i, job] of jobs.entries())
      expect(job.result, names[i]).toMatchObject({ success: true, exitCode: 0 });
    for (const [i, name] of names.entries())
      expect(await getRun(admin, name, acks[i]?.runId as number), name).toMatchObject({ status: 'success' });
    const marker = await markerLines(join(dir, 'marker'));
    expect(starts(marker)).toBe(20);
    expect(mostAtOnce(marker)).toBe(4);
    // Each queued job said so first, with how many waited before it: 0 to 15, each once.
    const queuedJobs = jobs.filter((_, i) => statuses[i] === 'queued');
    const ahead = queuedJobs.map((job) => {
      const said = statusMessages(job.messages).find((s) => s.startsWith('Queued: '));
      expect(said).toMatch(
        /^Queued: all 4 compose slots are taken \(jobs\.maxConcurrent\); \d+ jobs? waits? before this one$/,
      );
      return Number(/; (\d+) job/.exec(said as string)?.[1]);
    });
    expect(ahead.sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => i));
    for (const job of jobs.filter((_, i) => statuses[i] === 'running'))
      expect(statusMessages(job.messages).some((s) => s.startsWith('Queued'))).toBe(false);
  }, 240_000);

  it('maxConcurrent 1: the jobs run one after the other, first come first served', async () => {
    const server = await serve(1);
    const admin = server.as('admin');
    const dir = await tempDir();
    const names = Array.from({ length: 5 }, (_, i) => `serial-${i}`);
    for (const name of names) {
      const ack = await createStack(admin, name, null, { compose: composeText({}) });
      await waitJob(admin, ack.jobId);
    }
    for (const name of names) await saveCompose(admin, name, null, gatedCompose(dir, name));
    const before = (await argvCalls(server)).length;
    // One after the other, so their order is known: the first runs, the other four queue in order.
    const acks: JobAck[] = [];
    for (const name of names) acks.push(await deploy(admin, name, null));
    await eventually(
      async () => (starts(await markerLines(join(dir, 'marker'))) >= 1 ? true : undefined),
      'the first up',
    );
    expect(await Promise.all(acks.map((ack) => jobStatus(admin, ack.jobId)))).toEqual([
      'running',
      'queued',
      'queued',
      'queued',
      'queued',
    ]);
    await writeFile(join(dir, 'gate'), '');
    const jobs = await Promise.all(acks.map((ack) => waitJob(admin, ack.jobId, 120_000)));
    for (const job of jobs) expect(job.result).toMatchObject({ success: true });
    const marker = await markerLines(join(dir, 'marker'));
    expect(marker.map((line) => line.split(' ')[0])).toEqual(Array(5).fill(['start', 'exit']).flat());
    expect(mostAtOnce(marker)).toBe(1);
    // Compose ran the stacks in the order their deploys came.
    const ups = (await argvCalls(server))
      .slice(before)
      .filter((call) => call.argv.includes('up'))
      .map((call) => call.argv[call.argv.indexOf('--project-name') + 1]);
    expect(ups).toEqual(names);
    const ahead = jobs
      .slice(1)
      .map((job) => statusMessages(job.messages).find((s) => s.startsWith('Queued: ')));
    expect(ahead).toEqual([0, 1, 2, 3].map((n) => expect.stringContaining(`; ${n} job`)));
  }, 240_000);

  it('a save-time check does not wait behind the deploys that hold every slot', async () => {
    const server = await serve(1);
    const admin = server.as('admin');
    const dir = await tempDir();
    const busy = await createStack(admin, 'holder', null, { compose: gatedCompose(dir, 'holder') });
    const waiting = await createStack(admin, 'waiter', null, { compose: gatedCompose(dir, 'waiter') });
    await eventually(
      async () => (starts(await markerLines(join(dir, 'marker'))) >= 1 ? true : undefined),
      'the holder up',
    );
    expect(await jobStatus(admin, waiting.jobId)).toBe('queued');
    // Compose's check of a file it refuses answers 422 while the only job slot is taken...
    const refused = composeText({ config: { stderr: ['services.web.restart must be a string'], exit: 15 } });
    const saved = await admin.put('/api/stacks/waiter/compose?env=null', {
      content: refused,
      restart: false,
    });
    expect(saved.status).toBe(422);
    expect(objectOf(saved).error).toMatch(/services\.web\.restart must be a string/);
    // ...and a create checks its file too: its job then queues behind the two.
    const third = await createStack(admin, 'third', null, { compose: gatedCompose(dir, 'third') });
    expect(await jobStatus(admin, third.jobId)).toBe('queued');
    expect(await jobStatus(admin, busy.jobId)).toBe('running');
    expect((await getRun(admin, 'third', third.runId as number)).status).toBe('queued');
    await writeFile(join(dir, 'gate'), '');
    for (const ack of [busy, waiting, third])
      expect((await waitJob(admin, ack.jobId, 120_000)).result).toMatchObject({ success: true });
    expect(mostAtOnce(await markerLines(join(dir, 'marker')))).toBe(1);
  }, 240_000);

  it('a stop fails the queued jobs, which never ran; the restarted server runs again', async () => {
    const first = await serve(1);
    const admin = first.as('admin');
    const dir = await tempDir();
    const running = await createStack(admin, 'stop-a', 2, { compose: gatedCompose(dir, 'stop-a') });
    const queued = await createStack(admin, 'stop-b', 2, { compose: gatedCompose(dir, 'stop-b') });
    await eventually(
      async () => (starts(await markerLines(join(dir, 'marker'))) >= 1 ? true : undefined),
      'the first up',
    );
    expect((await getRun(admin, 'stop-b', queued.runId as number)).status).toBe('queued');
    const stopped = await first.stop();
    expect(stopped.code).toBe(0);
    const second = await startStacks({ dataDir: first.dataDir });
    servers.push(second);
    const again = second.as('admin');
    expect(await getRun(again, 'stop-b', queued.runId as number)).toMatchObject({
      status: 'failed',
      errorMessage: 'The server was stopped while this job was queued; compose did not run',
    });
    expect((await getRun(again, 'stop-a', running.runId as number)).status).toBe('failed');
    expect(starts(await markerLines(join(dir, 'marker')))).toBe(1);
    const job = objectOf(await again.get(`/api/jobs/${queued.jobId}`));
    expect(job).toMatchObject({ status: 'done', result: { success: false } });
    await writeFile(join(dir, 'gate'), '');
    const after = await deploy(again, 'stop-b', 2);
    expect((await waitJob(again, after.jobId, 120_000)).result).toMatchObject({ success: true });
  }, 240_000);

  it('a bad jobs.maxConcurrent stops the start with the reason, exit 2', async () => {
    for (const [value, reason] of [
      [0, 'config jobs.maxConcurrent must be a whole number of compose jobs, 1 or more'],
      [2.5, 'config jobs.maxConcurrent must be a whole number of compose jobs, 1 or more'],
      ['4', 'config jobs.maxConcurrent must be a whole number of compose jobs, 1 or more'],
    ] as const) {
      const dir = await tempDir();
      const file = join(dir, 'config.json');
      await writeFile(file, JSON.stringify(stacksConfig({ jobs: { maxConcurrent: value as number } })));
      const result = await runCli(['stacks', '--port', '0', '--data', dir, '--config', file]);
      expect(result.code, String(value)).toBe(2);
      expect(result.stderr).toContain(reason);
    }
  });
});
