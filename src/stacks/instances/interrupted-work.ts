/**
 * Work a stacks instance left unfinished when it died (kill -9, a crash, a lost host): its runs still
 * `running`, its jobs without a result, and the compose process groups they may have left behind.
 *
 * Compose runs detached, in a process group of its own (compose/runner.ts), so it outlives a server
 * killed during a deploy. Its group is recorded when it starts (RunComposeStarted, JobComposeStarted).
 * Before a stack with such work is free again, the group must be gone: an instance on the host that ran
 * it stops it (SIGTERM, then SIGKILL after a grace), with the stack claimed meanwhile (a deploy of it is
 * a 409), then closes the runs and jobs `failed` saying the compose was stopped. Work whose group is
 * already gone (or that never started compose) is closed at once by the books, as before. A group that
 * ran on another host can only be told apart there: its work is left open, and its stack busy, until an
 * instance starts on that host (after a reboot of it, the group is known to be gone). The work of a live
 * instance is never touched.
 */
import type { DeployRun, DeployRunsState } from '../../../projections/deploy-runs.js';
import { unfinishedRuns } from '../../../projections/deploy-runs.js';
import { type JobInfo, type JobsState, runningJobs } from '../../../projections/jobs.js';
import type { ComposeGroup } from '../../../streams/stacks.js';
import { checkGroup, type GroupVerdict, stopGroup } from '../compose/process-groups.js';
import type { StackRef } from '../contracts.js';
import { INTERRUPTED_JOB_MESSAGE, type JobBook, type ReadModel } from '../jobs/job-book.js';
import { INTERRUPTED_RUN_MESSAGE, type RunBook } from '../runs/run-book.js';
import type { Instance } from './instance.js';

const STOPPED = '; the compose process it left running was stopped';
const STOPPED_RUN_MESSAGE = `${INTERRUPTED_RUN_MESSAGE}${STOPPED}`;
const STOPPED_JOB_MESSAGE = `${INTERRUPTED_JOB_MESSAGE}${STOPPED}`;

/** Time between SIGTERM and SIGKILL of a group left behind (the compose runner's own grace). */
const STOP_GRACE_MS = 2000;

/** A run or job of a gone instance, not closed yet. */
type Item = { ref: StackRef; group?: ComposeGroup } & (
  | { kind: 'run'; id: number }
  | { kind: 'job'; id: string }
);

/** What the books must leave open for now: work whose compose may still run. */
interface Held {
  runs: Set<number>;
  jobs: Set<string>;
}

interface LeftoversOptions {
  runs: RunBook;
  jobs: JobBook;
  runsModel: ReadModel<DeployRunsState>;
  jobsModel: ReadModel<JobsState>;
  instance: Instance;
  /**
   * Claims the stack as a job of it would (this process and the store's lease); undefined when a job of
   * it runs, or another instance has claimed it. The returned function lets it go.
   */
  claim(ref: StackRef): Promise<(() => Promise<void>) | undefined>;
  graceMs?: number;
}

const stackKey = (ref: StackRef) => `${ref.environmentId ?? 'local'}/${ref.name}`;
const itemKey = (item: Item) => `${item.kind}:${item.id}`;
const groupKey = (group: ComposeGroup) =>
  `${group.hostname}/${group.boot_id}/${group.pgid}/${group.start_ticks}`;

export class Leftovers {
  private readonly options: LeftoversOptions;
  /** Stacks whose groups this process is stopping, and the work that does it. */
  private readonly stopping = new Map<string, Promise<void>>();
  /** Work whose groups are gone and whose end is being recorded: it no longer holds its stack. */
  private readonly settled = new Set<string>();
  /** Groups of another host already reported, so the log says it once. */
  private readonly reported = new Set<string>();
  private closed = false;

  constructor(options: LeftoversOptions) {
    this.options = options;
  }

  /**
   * Looks at the work of gone instances: starts stopping the groups still running on this host (the
   * stack claimed), and returns what the books must not close yet (those, and groups of other hosts).
   */
  async sweep(): Promise<Held> {
    const held: Held = { runs: new Set(), jobs: new Set() };
    const hold = (items: readonly Item[]) => {
      for (const item of items)
        if (item.kind === 'run') held.runs.add(item.id);
        else held.jobs.add(item.id);
    };
    for (const [key, items] of await this.find()) {
      if (this.stopping.has(key)) {
        hold(items);
        continue;
      }
      const verdicts = await Promise.all(
        items.map(
          (item): Promise<GroupVerdict> => (item.group ? checkGroup(item.group) : Promise.resolve('gone')),
        ),
      );
      const elsewhere = items.filter((_, i) => verdicts[i] === 'elsewhere');
      hold(elsewhere);
      for (const item of elsewhere) this.reportElsewhere(item);
      if (!verdicts.includes('alive')) continue; // the books close the rest at once
      const local = items.filter((_, i) => verdicts[i] !== 'elsewhere');
      hold(local);
      if (this.closed) continue;
      const release = await this.options.claim(items[0]?.ref as StackRef);
      if (!release) continue; // claimed elsewhere or a job of it runs: the next sweep looks again
      const work = this.stop(local, release).finally(() => this.stopping.delete(key));
      this.stopping.set(key, work);
    }
    return held;
  }

  /**
   * Whether a job of the stack must wait: a gone instance left work of it that is not closed yet (its
   * compose may still run). False for work whose groups this process has stopped already.
   */
  async blocks(ref: StackRef): Promise<boolean> {
    // While its groups are being stopped the stack is claimed, so no job of it gets this far.
    const key = stackKey(ref);
    const items = (await this.find(key)).get(key) ?? [];
    return items.some((item) => !this.settled.has(itemKey(item)));
  }

  /** Stops waiting for groups (the server stops); resolves once the stoppers let their stacks go. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.stopping.values()]);
  }

  /** Unfinished runs and jobs of gone instances (not run by this process), by stack; only `only`'s when given. */
  private async find(only?: string): Promise<Map<string, Item[]>> {
    const { runs, jobs, runsModel, jobsModel, instance } = this.options;
    const gone = new Map<string | undefined, Promise<boolean>>();
    const isGone = (owner: string | undefined) => {
      let answer = gone.get(owner);
      if (answer === undefined) {
        answer = instance.isAlive(owner).then((alive) => !alive);
        gone.set(owner, answer);
      }
      return answer;
    };
    const candidates: Array<{ item: Item; owner: string | undefined }> = [];
    const consider = (record: DeployRun | JobInfo, item: Item) => {
      if (only === undefined || stackKey(item.ref) === only)
        candidates.push({ item, owner: record.instanceId });
    };
    for (const run of unfinishedRuns(runsModel.state)) {
      if (runs.isLive(run.id)) continue;
      const ref = { name: run.stack, environmentId: run.environmentId };
      consider(run, {
        kind: 'run',
        id: run.id,
        ref,
        ...(run.composeGroup ? { group: run.composeGroup } : {}),
      });
    }
    for (const job of runningJobs(jobsModel.state)) {
      if (jobs.running(job.id)) continue;
      // A recorded deploy's group is its run's.
      const group =
        job.composeGroup ??
        (job.runId === null ? undefined : runsModel.state.runs.get(job.runId)?.composeGroup);
      const ref = { name: job.stack, environmentId: job.environmentId };
      consider(job, { kind: 'job', id: job.id, ref, ...(group ? { group } : {}) });
    }
    const found = new Map<string, Item[]>();
    for (const { item, owner } of candidates) {
      if (!(await isGone(owner))) continue;
      const key = stackKey(item.ref);
      found.set(key, [...(found.get(key) ?? []), item]);
    }
    return found;
  }

  /** Stops the groups of one stack's work, lets the stack go, then records the ends. */
  private async stop(items: readonly Item[], release: () => Promise<void>): Promise<void> {
    const groups = new Map<string, ComposeGroup>();
    for (const item of items) if (item.group) groups.set(groupKey(item.group), item.group);
    // All at once, each settled into an outcome (none may reject unobserved).
    const outcomes = Promise.all(
      [...groups].map(async ([key, group]) => {
        const outcome = await stopGroup(group, {
          graceMs: this.options.graceMs ?? STOP_GRACE_MS,
          abandon: () => this.closed,
        });
        return [key, outcome] as const;
      }),
    );
    const stopped = new Set<string>();
    let over = false;
    try {
      const results = await outcomes;
      // The server stops: the groups are left as they are, and the next start goes on.
      if (results.some(([, outcome]) => outcome === 'abandoned')) return;
      for (const [key, outcome] of results) if (outcome === 'stopped') stopped.add(key);
      over = true;
    } catch (error) {
      process.stderr.write(`stacks: stopping a compose left running failed: ${(error as Error).message}\n`);
    } finally {
      // Every group is gone: whoever sees the work closed may claim the stack at once.
      if (over) for (const item of items) this.settled.add(itemKey(item));
      await release();
    }
    if (!over) return;
    try {
      for (const item of items) {
        const wasStopped = item.group !== undefined && stopped.has(groupKey(item.group));
        if (wasStopped)
          process.stderr.write(
            `stacks: stopped the compose (process group ${item.group?.pgid}) that ${item.kind} ${item.id} of stack ${item.ref.name} left running\n`,
          );
        if (item.kind === 'run')
          await this.options.runs.closeInterruptedRun(
            item.id,
            wasStopped ? STOPPED_RUN_MESSAGE : INTERRUPTED_RUN_MESSAGE,
          );
        else
          await this.options.jobs.closeInterruptedJob(
            item.id,
            wasStopped ? STOPPED_JOB_MESSAGE : INTERRUPTED_JOB_MESSAGE,
          );
      }
    } catch (error) {
      process.stderr.write(`stacks: closing interrupted work failed: ${(error as Error).message}\n`);
    } finally {
      for (const item of items) this.settled.delete(itemKey(item));
    }
  }

  private reportElsewhere(item: Item): void {
    const group = item.group as ComposeGroup;
    if (this.reported.has(groupKey(group))) return;
    this.reported.add(groupKey(group));
    process.stderr.write(
      `stacks: ${item.kind} ${item.id} of stack ${item.ref.name} ran compose on host ${group.hostname}; ` +
        'only an instance there can stop it, and the stack stays busy until one does\n',
    );
  }
}
