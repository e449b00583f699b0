import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DeployRunsState, deployRuns } from '../../projections/deploy-runs.js';
import { type JobsState, jobs } from '../../projections/jobs.js';
import { ProjectionRunner } from '../../projections/runtime.js';
import { Instance } from '../../src/stacks/instances/instance.js';
import { JobBook, type JobBookOptions } from '../../src/stacks/jobs/job-book.js';
import { OutputKeys } from '../../src/stacks/output/keys.js';
import type { LogBudget } from '../../src/stacks/runs/log-files.js';
import { RunBook } from '../../src/stacks/runs/run-book.js';
import { openStore } from '../../src/store/open.js';
import type { EventStore, RecordedEvent } from '../../src/store/types.js';

export type StoreKind = 'memory' | 'level';
export const storeKinds: readonly StoreKind[] = ['memory', 'level'];

export const tempDir = (prefix = 'chronicle-records-') => mkdtemp(join(tmpdir(), prefix));

export interface Records {
  store: EventStore;
  storeUrl: string;
  dataDir: string;
  runsModel: ProjectionRunner<DeployRunsState>;
  jobsModel: ProjectionRunner<JobsState>;
  runs: RunBook;
  jobs: JobBook;
  /** The instance the books record as theirs; `leave()` it to play a server that stopped. */
  instance: Instance;
  /** Stops the projections and closes the store (the data dir stays, for a restart). */
  stop(): Promise<void>;
  /** stop() and remove the data dir. */
  dispose(): Promise<void>;
}

export interface RecordsOptions {
  budget?: LogBudget;
  jobs?: Partial<Omit<JobBookOptions, 'instance'>>;
  /** Reopen this data dir (and its store) instead of making new ones. */
  reopen?: { dataDir: string; storeUrl: string };
}

/** The records half of the stacks service over a real store: what the service will wire. */
export async function openRecords(kind: StoreKind, options: RecordsOptions = {}): Promise<Records> {
  const dataDir = options.reopen?.dataDir ?? (await tempDir());
  const storeUrl =
    options.reopen?.storeUrl ?? (kind === 'memory' ? 'memory:' : `level:${join(dataDir, 'events')}`);
  const store = await openStore(storeUrl);
  const runsModel = new ProjectionRunner(store, deployRuns, { snapshotIntervalMs: 60_000 });
  const jobsModel = new ProjectionRunner(store, jobs, { snapshotIntervalMs: 60_000 });
  await Promise.all([runsModel.start(), jobsModel.start()]);
  const instance = await Instance.join(store);
  // One key cache for both books, as the service has.
  const keys = new OutputKeys(store);
  const runs = new RunBook(store, runsModel, {
    dataDir,
    budget: options.budget ?? { budgetBytes: 2 * 1024 ** 3, remeasureBytes: 1024 ** 2 },
    instance,
    keys,
  });
  const jobBook = new JobBook(store, jobsModel, { retentionHours: 24, ...options.jobs, instance, keys });
  let stopped = false;
  const records: Records = {
    store,
    storeUrl,
    dataDir,
    runsModel,
    jobsModel,
    runs,
    jobs: jobBook,
    instance,
    async stop() {
      if (stopped) return;
      stopped = true;
      await Promise.all([runsModel.stop(), jobsModel.stop()]);
      await store.close();
    },
    async dispose() {
      await records.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return records;
}

export async function readAllEvents(store: EventStore, stream?: string): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  if (stream === undefined) for await (const e of store.readAll()) events.push(e);
  else for await (const e of store.readStream(stream)) events.push(e);
  return events;
}

export const noExit = { exitCode: 0, signal: null, timedOut: false, cancelled: false } as const;
