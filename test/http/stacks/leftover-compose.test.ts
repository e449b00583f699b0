/**
 * Compose left running by a server killed during a job (docs/stacks.md#jobs-runs-and-how-compose-runs). Compose runs in a process
 * group of its own, so `kill -9` of the server leaves it running (here: the fake compose and a grandchild
 * of it that ignores SIGTERM, both appending to a marker file). The restart on the same data directory
 * must stop that group before the stack is free again (a job of the stack is a 409 until then), close
 * the run and job `failed` saying so, and only then let a new job of the stack run: no line of the old
 * group in the marker file after the new compose started.
 */
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import { postgresSchemas, postgresUnavailable } from '../../store/postgres-helpers.js';
import {
  ackOf,
  composeText,
  createStackDone,
  describeStacks,
  eventually,
  expectStatus,
  type FakeBehaviour,
  getRun,
  type Json,
  objectOf,
  type Reply,
  type StacksClient,
  type StacksServer,
  saveCompose,
  sleep,
  startStacks,
  waitJob,
  waitRun,
} from './helpers.js';

const STOPPED_RUN =
  'The server stopped before this deploy finished; the compose process it left running was stopped';
const STOPPED_JOB =
  'The server stopped before this job finished; the compose process it left running was stopped';

const unavailable = await postgresUnavailable();
const schemas = postgresSchemas('leftovers');
afterAll(() => schemas.dropAll());

const servers: StacksServer[] = [];
/** Process groups a test started: killed at the end whatever happened, so none outlives the suite. */
const groups = new Set<number>();
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});
afterAll(() => {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
});

/** Pids of the live (not zombie) processes of group `pgid`, as `ps` lists them. */
function membersOf(pgid: number): number[] {
  const ps = spawnSync('ps', ['-e', '-o', 'pid=,pgid=,stat='], { encoding: 'utf8' });
  if (ps.status !== 0) throw new Error(`ps failed: ${ps.stderr}`);
  return ps.stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, group, stat]) => Number(group) === pgid && stat !== undefined && !stat.startsWith('Z'))
    .map(([pid]) => Number(pid));
}

/** The marker file's lines as [word, pid]. */
async function markerLines(marker: string): Promise<Array<[string, number]>> {
  let text = '';
  try {
    text = await readFile(marker, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [word, pid] = line.split(' ');
      return [word as string, Number(pid)];
    });
}

/** Starts the old compose with `post`, waits for its grandchild to tick, then kill -9 of the server. */
async function killDuringJob(
  server: StacksServer,
  marker: string,
  post: () => Promise<Reply>,
): Promise<{ jobId: string; runId: number | null; pgid: number }> {
  const ack = ackOf(await post());
  const pgid = await eventually(async () => {
    const lines = await markerLines(marker);
    const start = lines.find(([word]) => word === 'start');
    return start && lines.some(([word]) => word === 'tick') ? start[1] : undefined;
  }, 'the old compose and its grandchild to run');
  groups.add(pgid);
  await server.kill9();
  // Compose outlived the server: its group is still there.
  expect(membersOf(pgid).length).toBeGreaterThan(0);
  return { ...ack, pgid };
}

/**
 * Asks for the next job until it is accepted: every refusal a 409 "busy", and once it is accepted the old
 * group has no process left. Returns the accepted job's ack and how many refusals came first.
 */
async function nextJob(post: () => Promise<Reply>, oldGroup: number) {
  let refused = 0;
  for (;;) {
    const reply = await post();
    if (reply.status === 202) {
      expect(membersOf(oldGroup)).toEqual([]);
      return { ack: ackOf(reply), refused };
    }
    expectStatus(reply, 409, 'a job of the stack while the old compose runs');
    expect(objectOf(reply)).toEqual({ error: 'Stack has a job running' });
    refused += 1;
    await sleep(50);
  }
}

/** No line of the old group's processes after the new compose's start line. */
async function expectNoOverlap(marker: string, oldGroup: number): Promise<void> {
  const lines = await markerLines(marker);
  const newStart = lines.findIndex(([word, pid]) => word === 'start' && pid !== oldGroup);
  expect(newStart, JSON.stringify(lines)).toBeGreaterThan(0);
  const newPid = lines[newStart]?.[1];
  const oldPids = new Set(lines.slice(0, newStart).map(([, pid]) => pid));
  expect(oldPids.has(oldGroup)).toBe(true);
  expect(oldPids.size, 'the old compose and its grandchild').toBeGreaterThanOrEqual(2);
  const after = lines.slice(newStart);
  expect(after.filter(([, pid]) => oldPids.has(pid))).toEqual([]);
  expect(after).toContainEqual(['exit', newPid]);
}

/**
 * Stack `web` (local), its compose for `subcommand` running on: a marker file, a grandchild in its group
 * that ignores SIGTERM, and `behaviour`. Returns the marker file.
 */
async function lingeringCompose(server: StacksServer, subcommand: string, behaviour: FakeBehaviour) {
  const marker = join(server.dataDir, 'marker.log');
  const admin = server.as('admin');
  await createStackDone(admin, 'web', null, { compose: composeText({}) });
  const fake = { marker, grandchild: { tickMs: 50, ignoreTerm: true }, ...behaviour };
  await saveCompose(admin, 'web', null, composeText({ [subcommand]: fake }));
  return marker;
}

describeStacks('compose left running by a server killed during a job', () => {
  it('a deploy: the restart stops the old compose group, closes the run failed saying so, then a new deploy runs alone', async () => {
    const first = await startStacks();
    servers.push(first);
    // The old compose prints, then sleeps: it and its grandchild (which ignores SIGTERM) run on.
    const marker = await lingeringCompose(first, 'up', { lines: ['pulling'], sleepMs: 120_000 });
    const deployWeb = (client: StacksClient) => () => client.post('/api/stacks/web/deploy?env=null', {});
    const old = await killDuringJob(first, marker, deployWeb(first.as('admin')));

    const second = await startStacks({ dataDir: first.dataDir });
    servers.push(second);
    const admin = second.as('admin');
    await saveCompose(admin, 'web', null, composeText({ up: { marker, lines: ['second deploy'] } }));
    const next = await nextJob(deployWeb(admin), old.pgid);
    console.log(`deploy refused ${next.refused} time(s) while the old compose was being stopped`);
    expect((await waitJob(admin, next.ack.jobId)).result).toMatchObject({ success: true });
    expect(await waitRun(admin, 'web', next.ack.runId as number)).toMatchObject({ status: 'success' });

    expect(await getRun(admin, 'web', old.runId as number)).toMatchObject({
      status: 'failed',
      errorMessage: STOPPED_RUN,
      details: { exitCode: 1 },
    });
    expect((await waitJob(admin, old.jobId)).result).toMatchObject({ success: false, error: STOPPED_JOB });
    await expectNoOverlap(marker, old.pgid);
    expect(second.stderr()).toContain(
      `stopped the compose (process group ${old.pgid}) that run ${old.runId}`,
    );
  }, 120_000);

  it('a stop job (no run): its compose group is stopped at the restart, the job closed failed saying so', async () => {
    const first = await startStacks();
    servers.push(first);
    // This compose keeps printing: with the server gone its next write fails and it exits, while its
    // grandchild keeps the group alive.
    const marker = await lingeringCompose(first, 'stop', {
      lines: ['Stopping'],
      repeat: 100_000,
      perLineMs: 20,
    });
    const stopWeb = (client: StacksClient) => () => client.post('/api/stacks/web/stop?env=null', {});
    const old = await killDuringJob(first, marker, stopWeb(first.as('admin')));
    expect(old.runId).toBeNull();

    const second = await startStacks({ dataDir: first.dataDir });
    servers.push(second);
    const admin = second.as('admin');
    await saveCompose(admin, 'web', null, composeText({ stop: { marker, lines: ['stopped again'] } }));
    const next = await nextJob(stopWeb(admin), old.pgid);
    expect((await waitJob(admin, next.ack.jobId)).result).toMatchObject({ success: true });
    const closed = await waitJob(admin, old.jobId);
    expect(closed.result).toMatchObject({ success: false, error: STOPPED_JOB });
    expect(closed.messages.filter((m: Json) => m.type === 'line').length).toBeGreaterThan(0);
    await expectNoOverlap(marker, old.pgid);
  }, 120_000);

  it('several instances on one PostgreSQL log: B stops the compose that A, killed, left running on this host', async (ctx) => {
    if (unavailable !== undefined) {
      console.log(`skipped: ${unavailable}`);
      ctx.skip();
    }
    const storeUrl = schemas.url();
    const a = await startStacks({ storeUrl });
    servers.push(a);
    const b = await startStacks({ storeUrl, dataDir: a.dataDir });
    servers.push(b);
    const marker = await lingeringCompose(a, 'up', { lines: ['pulling'], sleepMs: 120_000 });
    const deployOn = (server: StacksServer) => () =>
      server.as('admin').post('/api/stacks/web/deploy?env=null', {});
    // While A lives, B refuses the stack (A's lease) and leaves A's compose alone.
    const old = await killDuringJob(a, marker, async () => {
      const reply = await deployOn(a)();
      expectStatus(await deployOn(b)(), 409, 'B while A deploys');
      return reply;
    });
    await saveCompose(b.as('admin'), 'web', null, composeText({ up: { marker, lines: ['deploy on B'] } }));
    // A is gone; B looks every 15 s, and at once when a job of the stack is asked for: a deploy on B is
    // refused until the group is stopped.
    const next = await nextJob(deployOn(b), old.pgid);
    expect((await waitJob(b.as('admin'), next.ack.jobId)).result).toMatchObject({ success: true });
    expect(await getRun(b.as('admin'), 'web', old.runId as number)).toMatchObject({
      status: 'failed',
      errorMessage: STOPPED_RUN,
    });
    await expectNoOverlap(marker, old.pgid);
  }, 120_000);
});
