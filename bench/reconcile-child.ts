// One measured pass over a prepared data folder, in a process of its own so that its peak RSS is its
// own: `walk` (the limit: readdir + lstat of every log file) or `reconcile` (the real Reconciler over
// the real LevelDB store and read models). Prints its numbers as JSON.
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { deployRuns } from '../projections/deploy-runs.js';
import { reconcileExecutions } from '../projections/executions.js';
import { ProjectionRunner } from '../projections/runtime.js';
import { Reconciler } from '../src/stacks/reconcile/reconciler.js';
import { DEPLOY_LOGS_DIR } from '../src/stacks/runs/log-files.js';
import { openStore } from '../src/store/open.js';
import { ownPeakRssMb } from './process-usage.js';

const [mode, dataDir] = process.argv.slice(2);
if ((mode !== 'walk' && mode !== 'reconcile') || !dataDir)
  throw new Error('usage: reconcile-child walk|reconcile <data dir>');

/** The same bound on file-system calls in flight as the reconcile's. */
const CONCURRENCY = 64;

async function walk(): Promise<Record<string, number>> {
  const root = join(dataDir as string, DEPLOY_LOGS_DIR);
  const started = performance.now();
  let files = 0;
  let newest = 0;
  for (const folder of await readdir(root)) {
    const names = await readdir(join(root, folder));
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < names.length) {
          const info = await lstat(join(root, folder, names[next++] as string));
          newest = Math.max(newest, info.mtimeMs);
          files += 1;
        }
      }),
    );
  }
  return { files, ms: performance.now() - started };
}

async function reconcile(): Promise<Record<string, number | string>> {
  const opening = performance.now();
  const store = await openStore(`level:${join(dataDir as string, 'events')}`);
  const runs = new ProjectionRunner(store, deployRuns, { snapshots: false });
  const executions = new ProjectionRunner(store, reconcileExecutions, { snapshots: false });
  await runs.start();
  await executions.start();
  const openMs = performance.now() - opening;
  const phases: Record<string, number> = {};
  const reconciler = new Reconciler({
    store,
    dataDir: dataDir as string,
    runs,
    executions,
    onPhase: (phase, ms) => {
      phases[`${phase}Ms`] = ms;
    },
  });
  const started = performance.now();
  const row = await reconciler.run('manual', null);
  const ms = performance.now() - started;
  await runs.stop();
  await executions.stop();
  await store.close();
  return {
    ms,
    openMs,
    status: row.status,
    deletedFiles: row.deletedFiles,
    markedRecords: row.markedRecords,
    keptFresh: row.keptFresh,
    failed: row.failed,
    ...phases,
  };
}

const result = mode === 'walk' ? await walk() : await reconcile();
process.stdout.write(JSON.stringify({ ...result, peakRssMb: ownPeakRssMb() }));
