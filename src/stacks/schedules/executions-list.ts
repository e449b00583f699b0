import type { DeployRun, DeployRunsState, RunJson } from '../../../projections/deploy-runs.js';
import { toRunJson } from '../../../projections/deploy-runs.js';
import {
  type ExecutionsState,
  RECONCILE_SCHEDULE_TYPE,
  type ReconcileExecutionJson,
  toExecutionJson,
} from '../../../projections/executions.js';
import type { toRetentionJson } from '../../../projections/retention-executions.js';
import { checkRunAccess } from '../access/auth.js';
import type { User } from '../contracts.js';

/**
 * `GET /api/schedules/executions`: stack_deploy runs and reconcile executions in one list, newest first
 * (startedAt, then id, then type), paged by `limit`/`offset`. stack_deploy rows only of environments the
 * caller may view (beyond the spec, on purpose: a row names another environment's stack and run); reconcile rows for every authenticated user.
 */

// The paging parameters live in paging.ts (the routes' schemas use them too).
export { pagingParam } from '../paging.js';

type ExecutionRow = RunJson | ReconcileExecutionJson | ExtraExecution['row'];

/** Rows of other schedules (deploy_run_retention): shown to every user, like the reconcile's. */
export interface ExtraExecution {
  startedAt: string;
  id: number;
  type: string;
  row: ReturnType<typeof toRetentionJson>;
}

export interface ExecutionsPage {
  executions: ExecutionRow[];
  /** Rows the caller may see in all, over every page. */
  total: number;
}

interface Entry {
  startedAt: string;
  id: number;
  type: string;
  row: (errors: ReadonlyMap<number, string | null>) => ExecutionRow;
  /** The run of a stack_deploy row. */
  run?: DeployRun;
}

/** A run's error message as shown (opened when it is sealed: see OutputKeys); read for the page only. */
export type RunErrorOf = (run: DeployRun) => Promise<string | null>;

/** Newest first: later startedAt, then higher id, then reconcile before stack_deploy (a fixed order). */
const newestFirst = (a: Entry, b: Entry) =>
  a.startedAt < b.startedAt
    ? 1
    : a.startedAt > b.startedAt
      ? -1
      : b.id - a.id || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0);

export async function listExecutions(
  runs: DeployRunsState,
  executions: ExecutionsState,
  user: User,
  page: { limit: number; offset: number },
  errorOf: RunErrorOf = async (run) => run.errorMessage,
  more: readonly ExtraExecution[] = [],
): Promise<ExecutionsPage> {
  const entries: Entry[] = [];
  for (const run of runs.runs.values())
    if (checkRunAccess(user, 'view', run.environmentId).ok)
      entries.push({
        startedAt: run.startedAt,
        id: run.id,
        type: 'stack_deploy',
        run,
        row: (errors) => toRunJson(run, errors.get(run.id) ?? null),
      });
  for (const execution of executions.executions.values())
    entries.push({
      startedAt: execution.startedAt,
      id: execution.id,
      type: RECONCILE_SCHEDULE_TYPE,
      row: () => toExecutionJson(execution),
    });
  for (const extra of more) entries.push({ ...extra, row: () => extra.row });
  entries.sort(newestFirst);
  const shown = entries.slice(page.offset, page.offset + page.limit);
  const errors = new Map<number, string | null>();
  await Promise.all(
    shown.map(async ({ run }) => {
      if (run) errors.set(run.id, await errorOf(run));
    }),
  );
  return { executions: shown.map((e) => e.row(errors)), total: entries.length };
}
