/**
 * Fakes for the deploy pipeline's stages (src/stacks/runs/deploy.ts): a job and a run that keep what
 * they are told, parts that answer as a healthy world does (each one can be replaced), and a compose
 * process that prints the lines it is given and exits with the code it is given.
 */
import { tmpdir } from 'node:os';
import { Subject } from 'rxjs';
import type { JobResult } from '../../../projections/jobs.js';
import type { ComposeProgram } from '../../../src/stacks/compose/program.js';
import type {
  ComposeExit,
  ComposeInvocation,
  ComposeProcess,
  OutputLine,
} from '../../../src/stacks/contracts.js';
import type { DeployInput, DeployParts } from '../../../src/stacks/runs/deploy.js';
import type { DeployJob, DeployRecord } from '../../../src/stacks/runs/deploy-output.js';
import type { RunCompletion } from '../../../src/stacks/runs/run-recorder.js';
import type { Stack } from '../../../src/stacks/stack/store.js';
import type { ComposeGroup } from '../../../streams/stacks.js';

/** What a job was told, in order. */
export type JobEntry =
  | { status: string }
  | { line: string }
  | { budgetReached: string }
  | { composeStarted: number }
  | { dequeued: true };

export class FakeJob implements DeployJob {
  readonly id = 'job-1';
  readonly told: JobEntry[] = [];
  backlogBytes = 0;
  error: DeployJob['error'] = undefined;
  finished: Parameters<DeployJob['finish']>[0] | undefined;

  status(status: string): void {
    this.told.push({ status });
  }
  line(line: string): void {
    this.told.push({ line });
  }
  budgetReached(notice: string): void {
    this.told.push({ budgetReached: notice });
  }
  composeStarted(group: ComposeGroup): void {
    this.told.push({ composeStarted: group.pgid });
  }
  dequeued(): void {
    this.told.push({ dequeued: true });
  }
  async recorded(): Promise<void> {}
  async finish(outcome: Parameters<DeployJob['finish']>[0]): Promise<JobResult> {
    this.finished = outcome;
    return { type: 'result', ...outcome, output: [] };
  }

  get statuses(): string[] {
    return this.told.flatMap((e) => ('status' in e ? [e.status] : []));
  }
  get lines(): string[] {
    return this.told.flatMap((e) => ('line' in e ? [e.line] : []));
  }
}

export class FakeRun implements DeployRecord {
  readonly runId = 7;
  readonly lines: string[] = [];
  /** Where withheld lines were: the count of log lines before each. */
  readonly withheldAt: number[] = [];
  readonly groups: number[] = [];
  readonly sources: Parameters<DeployRecord['resolveSource']>[0][] = [];
  readonly removed: string[][] = [];
  readonly notes: string[] = [];
  completion: RunCompletion | undefined;
  dequeuedAt: number | undefined;
  /** Lines the log takes before its budget is reached. */
  budgetLines = Number.POSITIVE_INFINITY;
  backlogBytes = 0;
  queuedLineBytes = 0;

  line(text: string): boolean {
    if (this.lines.length >= this.budgetLines) return false;
    this.lines.push(text);
    return true;
  }
  withheld(): void {
    this.withheldAt.push(this.lines.length);
  }
  async composeStarted(group: ComposeGroup): Promise<void> {
    this.groups.push(group.pgid);
  }
  async dequeued(): Promise<void> {
    this.dequeuedAt = this.lines.length;
  }
  async resolveSource(source: Parameters<DeployRecord['resolveSource']>[0]): Promise<void> {
    this.sources.push(source);
  }
  async leftoversRemoved(containers: readonly string[]): Promise<void> {
    this.removed.push([...containers]);
  }
  async note(event: Parameters<DeployRecord['note']>[0]): Promise<number> {
    this.notes.push(event.type);
    return this.notes.length;
  }
  // The fake answers what complete() resolves with only in type: the pipeline never reads it.
  complete(completion: RunCompletion): ReturnType<DeployRecord['complete']> {
    this.completion = completion;
    return Promise.resolve({} as Awaited<ReturnType<DeployRecord['complete']>>);
  }
}

export const group = (pgid: number): ComposeGroup => ({
  pgid,
  start_ticks: 1,
  boot_id: 'boot',
  hostname: 'here',
});

/** A compose run: the lines it prints (stdout unless said), then its exit code. */
export interface ScriptedRun {
  lines?: Array<string | OutputLine>;
  exitCode?: number | null;
  pid?: number;
}

/** Spawns scripted compose runs in turn, keeping each invocation. */
export class FakeCompose {
  readonly invocations: ComposeInvocation[] = [];
  private readonly runs: ScriptedRun[];

  constructor(...runs: ScriptedRun[]) {
    this.runs = runs;
  }

  readonly spawn = (invocation: ComposeInvocation): ComposeProcess => {
    this.invocations.push(invocation);
    const script = this.runs.shift() ?? {};
    const lines = new Subject<OutputLine>();
    let cancelled = false;
    const exit = new Promise<ComposeExit>((resolve) => {
      // After the pipeline subscribed (it does in the turn of the spawn).
      setImmediate(() => {
        for (const line of script.lines ?? []) {
          if (cancelled) break;
          lines.next(typeof line === 'string' ? { stream: 'stdout', line } : line);
        }
        lines.complete();
        const exitCode = cancelled ? null : (script.exitCode ?? 0);
        resolve({ exitCode, signal: null, timedOut: false, cancelled });
      });
    });
    return {
      lines,
      exit,
      pid: script.pid,
      cancel: () => {
        cancelled = true;
      },
    };
  };

  get subcommands(): string[] {
    return this.invocations.map(
      (i) => i.argv.find((a) => ['up', 'start', 'stop', 'pull', 'down'].includes(a)) ?? '?',
    );
  }
}

export const V2: ComposeProgram = {
  command: ['docker', 'compose'],
  argv: ['/usr/bin/docker', 'compose'],
  generation: 'v2',
  version: '2.26.1',
  detected: false,
};

export const stackOf = (over: Partial<Stack> = {}): Stack => ({
  name: 'web',
  environmentId: null,
  compose: 'services:\n  web:\n    image: nginx\n',
  secretProvider: null,
  variables: [{ name: 'DB_PASSWORD', value: 's3cret-value', secret: true }],
  ...over,
});

/** Parts of a world where everything answers and nothing is left over; `over` replaces some. */
export function partsOf(compose: FakeCompose, over: Partial<DeployParts> = {}): DeployParts {
  const dir = tmpdir();
  return {
    config: { jobs: { timeoutSeconds: 60 }, deployLogs: { budgetBytes: 1_000_000 } },
    stopping: () => false,
    readStack: async (stack) => stack,
    hashes: (stack) => ({ compose: `c:${stack.compose.length}`, env: `e:${stack.variables.length}` }),
    stackDir: () => dir,
    environment: () => null,
    composeProgram: async () => V2,
    placeOf: async () => ({ root: dir, cwd: dir, file: `${dir}/compose.yaml`, overrides: [] }),
    pullable: async () => undefined,
    checkProviderScope: async () => {},
    checkDeploy: async () => {},
    resolveProvider: async () => ({}),
    recordContent: async (run) => {
      await run.note({ type: 'RunContentRecorded' } as Parameters<DeployRecord['note']>[0]);
    },
    recordImages: async () => {},
    lookForRenamed: async () => [],
    removeRenamed: async () => ({ removed: [], failed: [] }),
    engineDown: async () => undefined,
    brokenFileStep: async () => undefined,
    watchServices: async () => ({ ready: true }),
    confirmCreations: async () => {},
    spawn: compose.spawn,
    groupOf: (pid) => group(pid),
    ...over,
  };
}

/** A deploy of `stackOf()` (an `up`), its job and run fakes; `over` replaces some of it. */
export function inputOf(
  over: Partial<DeployInput> = {},
): DeployInput & { job: FakeJob; released: () => number } {
  let released = 0;
  const job = (over.job as FakeJob | undefined) ?? new FakeJob();
  const stack = over.stack ?? stackOf();
  return {
    stack,
    hashes: { compose: `c:${stack.compose.length}`, env: `e:${stack.variables.length}` },
    userId: 'alice',
    operation: 'up',
    options: { pull: false, build: false, forceRecreate: false },
    variant: {},
    run: new FakeRun(),
    slot: {},
    release: () => {
      released += 1;
    },
    ...over,
    job,
    released: () => released,
  };
}
