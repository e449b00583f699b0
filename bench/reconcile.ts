/**
 * `npm run bench -- reconcile`: the deploy-log reconcile over 100,000 log files and 100,000
 * records, against a plain directory walk with stat of the same files in the same run (the limit).
 *
 *  - the data: a LevelDB store holding 100,000 recorded runs (RunStarted + RunCompleted appended in bulk,
 *    1,000 of them left `running`), spread over the environments null, 1, 2 and 3; 100,000 log files:
 *    the files of half the runs (50,000 matched), and 50,000 orphans, 40,000 of them older than the grace
 *    (to delete) and 10,000 fresh (to keep); the other 50,000 runs have no file (49,000 finished: to flag;
 *    1,000 running: never flagged);
 *  - the limit: `readdir` of every folder and `lstat` of every file, 64 in flight (bench/reconcile-child.ts),
 *    a warm-up pass then the median of three, in a child process each;
 *  - the reconcile: the real Reconciler in a child process, over the same store and files, after the
 *    walks (it deletes files); its read models are caught up first (`open`, not counted in its time);
 *  - elements/s: files / time for both (the same 100,000 files), and (files + records) / time for the
 *    reconcile; ratio = walk time / reconcile time; peak RSS of each child.
 * Target: reconcile >= 0.5x the walk.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { environmentLogDir } from '../src/stacks/runs/log-files.js';
import { openStore } from '../src/store/open.js';
import { type EnvironmentId, runStream, stacksEvent } from '../streams/stacks.js';
import { type BenchReport, printReport } from './report.js';

const FILES = Number(process.env.BENCH_RECONCILE_FILES ?? 100_000);
const RECORDS = Number(process.env.BENCH_RECONCILE_RECORDS ?? 100_000);
const RUNNING = Math.round(RECORDS / 100);
const TARGET_RATIO = 0.5;
const ENVS: EnvironmentId[] = [null, 1, 2, 3];
const CHILD_JS = fileURLToPath(new URL('./reconcile-child.js', import.meta.url));
const run = promisify(execFile);

const envOf = (id: number) => ENVS[id % ENVS.length] as EnvironmentId;

async function child(mode: 'walk' | 'reconcile', dataDir: string): Promise<Record<string, number | string>> {
  const { stdout } = await run(process.execPath, [CHILD_JS, mode, dataDir], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout) as Record<string, number | string>;
}

/** 100,000 runs appended in bulk: one append per run stream, many in flight (the store group-commits). */
export async function writeRecords(dataDir: string): Promise<void> {
  const store = await openStore(`level:${join(dataDir, 'events')}`);
  const options = { pull: false, build: false, forceRecreate: false };
  const appendRun = (id: number) => {
    const started = stacksEvent('RunStarted', {
      run_id: id,
      job_id: `job-${id}`,
      stack: `stack-${id % 50}`,
      environment_id: envOf(id),
      trigger: 'manual',
      user_id: 'bench',
      options,
      compose_hash: 'c',
      env_hash: 'e',
      log_file: `${id}.log`,
    });
    const events = [started];
    // The last RUNNING runs (which have no file) stay running.
    if (id <= RECORDS - RUNNING)
      events.push(
        stacksEvent('RunCompleted', {
          run_id: id,
          status: 'success',
          exit_code: 0,
          exit_code_known: true,
          error_message: null,
        }),
      );
    return store.append(runStream(id), events, { expectedRevision: 'no_stream' });
  };
  for (let id = 1; id <= RECORDS; id += 5_000) {
    const ids = Array.from({ length: Math.min(5_000, RECORDS - id + 1) }, (_, i) => id + i);
    await Promise.all(ids.map(appendRun));
  }
  await store.close();
}

/** The files: those of the first half of the runs, then orphans (ids above every run's), 4/5 of them old. */
export async function writeFiles(
  dataDir: string,
): Promise<{ matched: number; oldOrphans: number; freshOrphans: number }> {
  for (const env of ENVS) await mkdir(environmentLogDir(dataDir, env), { recursive: true });
  const matched = Math.min(Math.floor(FILES / 2), RECORDS);
  const orphans = FILES - matched;
  const oldOrphans = Math.floor((orphans * 4) / 5);
  const old = new Date(Date.now() - 3_600_000);
  const jobs: Array<{ id: number; old: boolean }> = [];
  for (let id = 1; id <= matched; id++) jobs.push({ id, old: false });
  for (let i = 0; i < orphans; i++) jobs.push({ id: RECORDS + 1 + i, old: i < oldOrphans });
  for (let i = 0; i < jobs.length; i += 2_000)
    await Promise.all(
      jobs.slice(i, i + 2_000).map(async ({ id, old: isOld }) => {
        const path = join(environmentLogDir(dataDir, envOf(id)), `${id}.log`);
        await writeFile(path, `line of run ${id}\n`);
        if (isOld) await utimes(path, old, old);
      }),
    );
  return { matched, oldOrphans, freshOrphans: orphans - oldOrphans };
}

export async function benchReconcile(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'chronicle-bench-reconcile-'));
  try {
    process.stderr.write(`writing ${RECORDS} records and ${FILES} files under ${dataDir}\n`);
    await writeRecords(dataDir);
    const layout = await writeFiles(dataDir);
    await child('walk', dataDir); // warm-up: the same page cache for every measured pass
    const walks = [];
    for (let i = 0; i < 3; i++) walks.push(await child('walk', dataDir));
    walks.sort((a, b) => (a.ms as number) - (b.ms as number));
    const walk = walks[1] as Record<string, number>;
    const reconcile = await child('reconcile', dataDir);
    const walkMs = walk.ms as number;
    const reconcileMs = reconcile.ms as number;
    const expected = {
      deletedFiles: layout.oldOrphans,
      markedRecords: RECORDS - layout.matched - RUNNING,
      keptFresh: layout.freshOrphans,
    };
    const correct =
      reconcile.status === 'success' &&
      reconcile.deletedFiles === expected.deletedFiles &&
      reconcile.markedRecords === expected.markedRecords &&
      reconcile.keptFresh === expected.keptFresh;
    const ratio = walkMs / reconcileMs;
    const report: BenchReport = {
      name: `reconcile: ${FILES} log files, ${RECORDS} records (${RUNNING} running)`,
      rows: [
        {
          pass: 'walk (readdir + lstat, the limit)',
          ms: walkMs,
          'files/s': (walk.files as number) / (walkMs / 1000),
          'elements/s': (walk.files as number) / (walkMs / 1000),
          'peak RSS MB': walk.peakRssMb as number,
        },
        {
          pass: 'reconcile',
          ms: reconcileMs,
          'files/s': FILES / (reconcileMs / 1000),
          'elements/s': (FILES + RECORDS) / (reconcileMs / 1000),
          'peak RSS MB': reconcile.peakRssMb as number,
          deleted: reconcile.deletedFiles as number,
          flagged: reconcile.markedRecords as number,
          'kept fresh': reconcile.keptFresh as number,
          'read models open ms': reconcile.openMs as number,
        },
      ],
      ratios: {
        'reconcile / walk': { value: ratio, target: TARGET_RATIO, ok: ratio >= TARGET_RATIO && correct },
      },
      extra: { walks: walks.map((w) => w.ms), expected, reconcile, correct },
    };
    printReport(report);
    if (!correct)
      process.stderr.write(`reconcile counts differ from the expected ${JSON.stringify(expected)}\n`);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
