import type { EnvironmentId } from '../../../streams/stacks.js';

/**
 * What the deploy-log reconcile decides (spec, Reconcile rules 1-4), as pure functions: given what is on
 * disk and what the records say, which files to delete and which records to flag. The I/O around it
 * (listing, stat, unlink, events) is reconcile.ts.
 */

/** Spec, Limits: unmatched log files modified within this long are kept. */
export const RECONCILE_GRACE_MS = 5 * 60_000;

const RUN_LOG_NAME = /^([1-9][0-9]*)\.log$/;
const ENV_FOLDER = /^(null|0|-?[1-9][0-9]*)$/;

/**
 * The run id a run-log name stands for (`<positive int>.log`, one spelling: no leading zero), or
 * undefined for any other name — those entries are left alone.
 */
export function runIdOfLogName(name: string): number | undefined {
  const digits = RUN_LOG_NAME.exec(name)?.[1];
  if (digits === undefined) return undefined;
  const id = Number(digits);
  return Number.isSafeInteger(id) ? id : undefined;
}

/** The environment a folder of `<data>/deploy-logs/` belongs to (`null` or an integer), or undefined. */
export function environmentOfFolder(name: string): EnvironmentId | undefined {
  if (!ENV_FOLDER.test(name)) return undefined;
  if (name === 'null') return null;
  const id = Number(name);
  return Number.isSafeInteger(id) ? id : undefined;
}

/** A record as the reconcile sees it. */
export interface RecordView {
  id: number;
  environmentId: EnvironmentId;
  terminal: boolean;
  logMissing: boolean;
}

/** One environment's log folder as listed. */
export interface FolderListing {
  environmentId: EnvironmentId;
  /** False when the folder could not be listed: nothing of it is known, so no record of it is flagged. */
  listed: boolean;
  /** Names of its entries (any kind: a directory named like a run log still takes that name). */
  names: readonly string[];
}

const envKey = (env: EnvironmentId) => (env === null ? 'null' : String(env));

/** Records by environment and id, for lookups while planning. */
export class RecordIndex {
  private readonly byEnv = new Map<string, Map<number, RecordView>>();
  constructor(records: Iterable<RecordView>) {
    for (const record of records) {
      const key = envKey(record.environmentId);
      let ids = this.byEnv.get(key);
      if (!ids) {
        ids = new Map();
        this.byEnv.set(key, ids);
      }
      ids.set(record.id, record);
    }
  }
  get(env: EnvironmentId, id: number): RecordView | undefined {
    return this.byEnv.get(envKey(env))?.get(id);
  }
  environments(): EnvironmentId[] {
    return [...this.byEnv.keys()].map((key) => (key === 'null' ? null : Number(key)));
  }
  of(env: EnvironmentId): Iterable<RecordView> {
    return this.byEnv.get(envKey(env))?.values() ?? [];
  }
}

/**
 * The run-log entries of a folder that have no record in that environment: the only ones whose age
 * matters, so the only ones the reconcile needs to stat.
 */
export function unmatchedLogNames(folder: FolderListing, records: RecordIndex): string[] {
  const unmatched: string[] = [];
  for (const name of folder.names) {
    const id = runIdOfLogName(name);
    if (id !== undefined && !records.get(folder.environmentId, id)) unmatched.push(name);
  }
  return unmatched;
}

export type ReconcileAction =
  | { kind: 'delete_file'; environmentId: EnvironmentId; file: string; runId: number; modifiedMs: number }
  | { kind: 'mark_missing'; environmentId: EnvironmentId; runId: number; logFile: string };

interface ReconcilePlan {
  /** Every environment looked at: those with a folder and those with records, null first. */
  environments: EnvironmentId[];
  actions: ReconcileAction[];
  /** Unmatched run logs modified within the grace. */
  keptFresh: number;
  /** Entries not named like run logs (`notes.txt`, `007.log`, `5.log.tmp`): never touched. */
  ignored: number;
}

interface PlanInput {
  now: number;
  graceMs: number;
  folders: readonly FolderListing[];
  /** Modification times (ms) of the unmatched entries, by `<env>/<name>`; absent = unknown, so kept. */
  modified: ReadonlyMap<string, number>;
  /**
   * Records as they were before the folders were listed: only a run already finished then may be
   * flagged, since a run finishing during the listing may have written its file after its folder was read.
   */
  before: RecordIndex;
  /**
   * Records as they were after the folders were listed: a file is an orphan only if it has no record
   * then, since a run that started during the listing may have created its file after the run existed.
   */
  after: RecordIndex;
}

export const modifiedKey = (env: EnvironmentId, name: string) => `${envKey(env)}/${name}`;

const compareEnv = (a: EnvironmentId, b: EnvironmentId) =>
  a === b ? 0 : a === null ? -1 : b === null ? 1 : a - b;

/**
 * The plan: per environment (the union of folders and records, rule 1), every unmatched run log older
 * than the grace is deleted (rule 2), and every finished record without a file and not yet flagged is
 * flagged (rule 3). Records that have not finished (`queued`, `running`, any unknown status) are never
 * flagged, and a file with a record is never deleted whatever the record's status.
 */
export function planReconcile(input: PlanInput): ReconcilePlan {
  const environments = new Map<string, EnvironmentId>();
  for (const folder of input.folders) environments.set(envKey(folder.environmentId), folder.environmentId);
  for (const env of [...input.before.environments(), ...input.after.environments()])
    environments.set(envKey(env), env);
  const actions: ReconcileAction[] = [];
  let keptFresh = 0;
  let ignored = 0;
  const folders = new Map(input.folders.map((f) => [envKey(f.environmentId), f]));
  const sorted = [...environments.values()].sort(compareEnv);
  for (const env of sorted) {
    const folder = folders.get(envKey(env)) ?? { environmentId: env, listed: true, names: [] };
    if (!folder.listed) continue;
    const present = new Set<number>();
    for (const name of folder.names) {
      const runId = runIdOfLogName(name);
      if (runId === undefined) {
        ignored += 1;
        continue;
      }
      present.add(runId);
      if (input.after.get(env, runId) || input.before.get(env, runId)) continue;
      const modifiedMs = input.modified.get(modifiedKey(env, name));
      if (modifiedMs === undefined || input.now - modifiedMs < input.graceMs) {
        keptFresh += 1;
        continue;
      }
      actions.push({ kind: 'delete_file', environmentId: env, file: name, runId, modifiedMs });
    }
    for (const record of input.before.of(env)) {
      if (!record.terminal || record.logMissing || present.has(record.id)) continue;
      // Deleted meanwhile (its file went with it), or flagged by a run that finished meanwhile.
      const now = input.after.get(env, record.id);
      if (!now || now.logMissing) continue;
      actions.push({
        kind: 'mark_missing',
        environmentId: env,
        runId: record.id,
        logFile: `${record.id}.log`,
      });
    }
  }
  return { environments: sorted, actions, keptFresh, ignored };
}
