/**
 * A deleted run leaves no readable copy of its output anywhere in the store (docs/security.md#deleted-runs-crypto-shredding): not in
 * the LevelDB files, not in any page of the PostgreSQL tables, not in a copy `chronicle migrate` made
 * before or after the delete. Output is sealed with a key per run kept in its own stream; deleting the
 * run deletes that stream, whose bytes the adapters remove from their files for good.
 *
 * Each test deploys twice with a compose that fails printing a random marker (to stdout and stderr, so
 * it reaches the job's lines, its result, and the run's error message), deletes the first run, and
 * searches the raw bytes for its marker and its key. The second run shows the search finds what is
 * there: its log file holds its marker, the store holds its key, and a copy still opens its output.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { lines, runCli, tempDir } from '../../cli/helpers.js';
import { levelFileContents } from '../../store/level-files.js';
import {
  pagesContaining,
  postgresSchemas,
  postgresUnavailable,
  withPostgres,
} from '../../store/postgres-helpers.js';
import {
  composeText,
  createStackDone,
  deployDone,
  describeStacks,
  expectStatus,
  objectOf,
  type StacksClient,
  type StartOptions,
  saveCompose,
  waitRun,
  withStacks,
} from './helpers.js';

const pgUnavailable = await postgresUnavailable();
const schemas = postgresSchemas('shred');
afterAll(() => schemas.dropAll());

const marker = () => `marker-${randomBytes(12).toString('hex')}`;

/** What a run's output must never be found as: its marker, and its key (base64 as stored, and raw). */
interface Secret {
  runId: number;
  jobId: string;
  marker: string;
  key?: string;
}
const needlesOf = (s: Secret): Buffer[] => [
  Buffer.from(s.marker),
  ...(s.key === undefined ? [] : [Buffer.from(s.key), Buffer.from(s.key, 'base64')]),
];

/**
 * Every file under `dir` holding one of `needles`, relative to it: in its raw bytes, or in what LevelDB
 * reads from it (a table's blocks uncompressed, a log's records whole; a raw search alone could miss a
 * value there, see level-files.ts). The stack folders are left out: a stack's compose file is its
 * definition (it tells the fake compose what to print), not a run's output, and deleting a run does
 * not touch it.
 */
function filesHolding(dir: string, needles: readonly Buffer[]): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (relative(dir, path) === 'stacks') continue;
      if (statSync(path).isDirectory()) walk(path);
      else {
        const contents = levelFileContents(path);
        if (needles.some((needle) => contents.some((part) => part.includes(needle))))
          found.push(relative(dir, path));
      }
    }
  };
  walk(dir);
  return found.sort();
}

/** A run of stack `shred` that fails printing `mark`: its ids once it has ended. */
async function failingRun(admin: StacksClient, first: boolean): Promise<Secret> {
  const mark = marker();
  const compose = composeText({ lines: [`out ${mark}`], stderr: [`err ${mark}`], exit: 3 });
  let ids: { runId: number | null; jobId: string; job: { messages: unknown[] } };
  if (first) ids = await createStackDone(admin, 'shred', null, { compose });
  else {
    await saveCompose(admin, 'shred', null, compose);
    ids = await deployDone(admin, 'shred', null);
  }
  const runId = ids.runId as number;
  const run = await waitRun(admin, 'shred', runId);
  // Readable before the delete, through the API: the key opens it.
  expect(run).toMatchObject({ status: 'failed' });
  expect(String(run.errorMessage)).toContain(`err ${mark}`);
  expect(JSON.stringify(ids.job.messages)).toContain(`out ${mark}`);
  return { runId, jobId: ids.jobId, marker: mark };
}

async function deleteRun(admin: StacksClient, s: Secret): Promise<void> {
  expectStatus(await admin.del(`/api/stacks/shred/deploys/${s.runId}`), 200, 'DELETE run');
  expect((await admin.get(`/api/stacks/shred/deploys/${s.runId}`)).status).toBe(404);
  expect((await admin.get(`/api/jobs/${s.jobId}`)).status).toBe(404);
}

/**
 * The key of a run, read from the LevelDB log of a data directory whose server is stopped; undefined
 * when there is none (a test asserts that there is one after it has searched for the marker).
 */
async function levelKeyOf(dataDir: string, runId: number): Promise<string | undefined> {
  const printed = await runCli(['events', `key-run-${runId}`, '--json', '--data', dataDir]);
  expect(printed.code, printed.stderr).toBe(0);
  const [event] = lines(printed.stdout).map(
    (line) => JSON.parse(line) as { type: string; data: { key: string } },
  );
  return event?.type === 'OutputKeyCreated' ? event.data.key : undefined;
}

async function migrateTo(from: string, dataDir: string): Promise<void> {
  const copied = await runCli(['migrate', '--from', from, '--to', `level:${join(dataDir, 'events')}`]);
  expect(copied.code, copied.stderr).toBe(0);
}

/** Runs `work` as the admin of a server started with `options`; the server has stopped when it resolves. */
const withServer = <T>(options: StartOptions, work: (admin: StacksClient) => Promise<T>): Promise<T> =>
  withStacks(options, (server) => work(server.as('admin')));

/** On the copy: the run deleted after the copy is still there and readable, then deleted for good. */
async function deleteOnCopy(copyDir: string, kept: Secret): Promise<void> {
  await withServer({ dataDir: copyDir }, async (admin) => {
    const run = objectOf(await admin.get(`/api/stacks/shred/deploys/${kept.runId}`));
    expect(String(run.errorMessage)).toContain(`err ${kept.marker}`);
    await deleteRun(admin, kept);
  });
  expect(filesHolding(copyDir, needlesOf(kept))).toEqual([]);
}

describeStacks('deleted runs leave no readable output in the store', () => {
  it('LevelDB: nothing of a deleted run in the data directory, nor in a copy made before or after', async () => {
    const dataDir = await tempDir();
    const [gone, kept] = await withServer({ dataDir }, async (admin) => [
      await failingRun(admin, true),
      await failingRun(admin, false),
    ]);
    gone.key = await levelKeyOf(dataDir, gone.runId);
    kept.key = await levelKeyOf(dataDir, kept.runId);
    await withServer({ dataDir }, (admin) => deleteRun(admin, gone));
    expect(filesHolding(dataDir, needlesOf(gone))).toEqual([]);
    expect(gone.key).toBeDefined();
    // What the search finds of the run that stays: its marker in its log file only (the log of events
    // holds no output in clear), and its key in the log of events.
    expect(filesHolding(dataDir, [Buffer.from(kept.marker)])).toEqual([`deploy-logs/null/${kept.runId}.log`]);
    const keptKey = Buffer.from(kept.key as string);
    expect(filesHolding(dataDir, [keptKey]).some((f) => f.startsWith('events/'))).toBe(true);

    const copyDir = await tempDir();
    await migrateTo(`level:${join(dataDir, 'events')}`, copyDir);
    expect(filesHolding(copyDir, needlesOf(gone))).toEqual([]);
    expect(filesHolding(copyDir, [keptKey])).not.toEqual([]);
    await deleteOnCopy(copyDir, kept);
  }, 180_000);

  it.skipIf(pgUnavailable !== undefined)(
    'PostgreSQL: nothing of a deleted run in any page of its tables, nor in a copy made before or after',
    async () => {
      const url = schemas.url();
      const schema = new URL(url).searchParams.get('schema') as string;
      const dataDir = await tempDir();
      const [gone, kept] = await withServer({ dataDir, storeUrl: url }, async (admin) => {
        const runs = [await failingRun(admin, true), await failingRun(admin, false)] as const;
        for (const s of runs) s.key = await pgKeyOf(schema, s.runId);
        await deleteRun(admin, runs[0]);
        return runs;
      });
      const needles = [gone, kept].flatMap((s) => [s.marker, ...(s.key === undefined ? [] : [s.key])]);
      const pages = await pagesContaining(schema, needles);
      if ('unavailable' in pages) {
        console.log(`skipped: the raw pages of PostgreSQL: ${pages.unavailable}`);
        return;
      }
      // Of both runs, only the key of the one that stays is in the tables (the search sees it): no
      // output in clear, nothing of the deleted run's key.
      expect(pages.found).toEqual(kept.key === undefined ? [] : [kept.key]);
      expect(gone.key).toBeDefined();
      expect(kept.key).toBeDefined();
      expect(await keyRowsIn(schema, gone.key as string)).toBe(0);

      const copyDir = await tempDir();
      await migrateTo(url, copyDir);
      expect(filesHolding(copyDir, needlesOf(gone))).toEqual([]);
      expect(filesHolding(copyDir, [Buffer.from(kept.key as string)])).not.toEqual([]);
      await deleteOnCopy(copyDir, kept);
    },
    180_000,
  );
  if (pgUnavailable !== undefined) console.log(`skipped: deleted runs on PostgreSQL: ${pgUnavailable}`);
});

/** A run's key as the PostgreSQL adapter stores it (the table of key streams); undefined when none. */
const pgKeyOf = (schema: string, runId: number) =>
  withPostgres(async (client) => {
    const { rows } = await client
      .query<{ body: string }>(`SELECT body FROM "${schema}".key_events WHERE stream = $1`, [
        `key-run-${runId}`,
      ])
      .catch(() => ({ rows: [] as Array<{ body: string }> }));
    const body = rows[0]?.body;
    return body === undefined ? undefined : (JSON.parse(body) as { d: { key: string } }).d.key;
  });

/** Rows of any table of the schema whose text holds the key (a SELECT: live rows only). */
const keyRowsIn = (schema: string, key: string) =>
  withPostgres(async (client) => {
    const { rows } = await client.query<{ n: string }>(
      `SELECT (SELECT count(*) FROM "${schema}".events WHERE strpos(body, $1) > 0)
            + (SELECT count(*) FROM "${schema}".key_events WHERE strpos(body, $1) > 0)
            + (SELECT count(*) FROM "${schema}".snapshots WHERE strpos(body, $1) > 0) AS n`,
      [key],
    );
    return Number(rows[0]?.n);
  });
