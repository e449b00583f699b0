import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { type AuditState, audit } from '../../projections/audit.js';
import { type DeployRunsState, deployRuns } from '../../projections/deploy-runs.js';
import {
  type JobResult,
  type JobsState,
  jobs as jobsProjection,
  runningJobs,
} from '../../projections/jobs.js';
import type { LiveModel } from '../../projections/live-model.js';
import { ProjectionRunner } from '../../projections/runtime.js';
import { stackActivity } from '../../projections/stack-activity.js';
import {
  type DeployOptions,
  type EnvironmentId,
  isStackOperation,
  type JobKind,
  type Trigger,
} from '../../streams/stacks.js';
import type { EventStore } from '../store/types.js';
import { type ComposeOperation, type ComposeStep, composeEnv, fallbackStep } from './compose/args.js';
import { composeObjection } from './compose/check.js';
import { formatEnvFile } from './compose/env-file.js';
import { groupOf } from './compose/process-groups.js';
import { type ComposeProgram, ComposeResolver } from './compose/program.js';
import { findRenamedLeftovers, removeRenamedLeftovers } from './compose/renamed-containers.js';
import { runCompose } from './compose/runner.js';
import type { SummaryCounter } from './compose/summary.js';
import { findEnvironment } from './config/stacks-config.js';
import type {
  ComposePlace,
  ComposeProcess,
  ComposeTrees,
  DeploySource,
  DeployVariant,
  Environment,
  PreparedDeploy,
  Redactor,
  StackRef,
  StacksConfig,
  StackVariable,
  StartedJob,
} from './contracts.js';
import { Engines } from './engine/engines.js';
import { type WatchResult, watchServices } from './engine/service-health.js';
import { StacksError } from './errors.js';
import { DeployHistory } from './history/history.js';
import { Instance } from './instances/instance.js';
import { Leftovers } from './instances/interrupted-work.js';
import type { Job } from './jobs/job-book.js';
import { JobBook } from './jobs/job-book.js';
import { ComposeSlots, type Ticket } from './jobs/queue.js';
import { NotificationDispatcher } from './notifications/dispatcher.js';
import { OutputKeys } from './output/keys.js';
import { createRedactor } from './output/redaction.js';
import {
  countHolding,
  type ShortValueWarning,
  shortValued,
  shortValueWarnings,
} from './output/short-values.js';
import {
  cancelledMessage,
  type DeployParts,
  LAST_GOOD_FILE,
  type OperationOutcome,
  type RenamedLook,
  runDeploy,
  SERVER_STOPPING_MESSAGE,
} from './runs/deploy.js';
import { Retention } from './runs/retention.js';
import { RunBook } from './runs/run-book.js';
import type { RunRecorder } from './runs/run-recorder.js';
import { StacksSchedules } from './schedules/schedules.js';
import { outOfScopeMessage, providerServes, resolveSecrets } from './secrets/secret-providers.js';
import { StackActivity } from './stack/activity.js';
import type { AdoptionSource } from './stack/adoption.js';
import { type DeployHow, StackSecurity } from './stack/security.js';
import { oneShotServices, pullableServices, StackStatusReader } from './stack/status.js';
import {
  COMPOSE_FILE,
  checkEdited,
  composeHash,
  createStack,
  deleteStack,
  ENV_FILE,
  envHash,
  getStack,
  listStacks,
  loadHashKey,
  type NewStack,
  removeLeftovers,
  type Stack,
  type StackSummary,
  saveCompose,
  setVariables,
  stackDir,
  stackExists,
  validateCompose,
  validateVariables,
} from './stack/store.js';

/** The deploy seam's types live with the others (types.ts); the service's callers find them here too. */
export type { DeploySource, DeployVariant, PreparedDeploy, StartedJob };

/**
 * The stacks service: wires the stack files, the compose runner, redaction, jobs and the run recorder
 * into the operations the routes offer. Each operation runs as a job; deploy, create-and-start and a
 * compose save with restart also record a run (spec: Which operations record a run).
 *
 * One job at a time per stack: a second operation on a stack whose job runs is a 409. At most
 * `jobs.maxConcurrent` jobs run compose at once; later ones wait `queued`, in order (jobs/queue.ts).
 */

interface StacksServiceOptions {
  store: EventStore;
  dataDir: string;
  config: StacksConfig;
  /** How often finished jobs past the retention are deleted (ms). */
  sweepIntervalMs?: number;
  /**
   * The compose program (the CLI resolves it at start to report it); default: the config's
   * `compose.command`, or the one found by trying (compose-program.ts).
   */
  compose?: ComposeResolver;
}

const DEFAULT_SWEEP_MS = 10 * 60_000;
/**
 * How often runs and jobs of instances that are gone are looked for: with several instances on one
 * log, one that is killed leaves its runs `running` until a live one closes them.
 */
const INTERRUPTED_CHECK_MS = 15_000;
/** How long close() waits for running jobs to record their end. */
const CLOSE_GRACE_MS = 10_000;

export const STACK_BUSY_MESSAGE = 'Stack has a job running';
const JOB_ENDED_MESSAGE = 'The job has ended';
const JOB_ELSEWHERE_MESSAGE =
  'The job runs in another chronicle instance: cancel it there (its instance has the compose process)';

/** The failure of a job that was still queued when the server stopped. */
const STOPPED_WHILE_QUEUED_MESSAGE = 'The server was stopped while this job was queued; compose did not run';

/** The deploy's own messages, for the service's callers. */
export { SERVER_STOPPING_MESSAGE };

/** A stack's running job: its compose process, its end, and how its claim on the stack is let go. */
interface JobSlot {
  process?: ComposeProcess;
  done: Promise<unknown>;
  release?: () => Promise<void>;
  /**
   * Its place among the compose jobs (jobs/queue.ts): while `ticket.waiting`, `ticket.withdraw(reason)`
   * ends the job before compose ran, failed with the reason.
   */
  ticket?: Ticket;
  /** The job holding the slot, once it started. */
  jobId?: string;
  /** Set once someone cancelled the job (`cancelJob`): who. */
  cancel?: { userId: string | null };
}

/** The job of a stack that runs now (`runningJob`). */
interface RunningStackJob {
  id: string;
  kind: JobKind;
  runId: number | null;
  userId: string | null;
  startedAt: string;
  cancelledBy?: string | null;
}

/** A running job's cancel (`cancelJob`): what the route answers. */
interface CancelledJob {
  jobId: string;
  runId: number | null;
  cancelledBy: string | null;
}

/** A start step that goes on after `open` resolves; its failure is written on standard error. */
const background = (work: Promise<unknown>, what: string) =>
  void work.catch((error: unknown) => {
    process.stderr.write(`stacks: ${what} could not start: ${(error as Error).message}\n`);
  });

const keyOf = (ref: StackRef) => `${ref.environmentId ?? 'local'}/${ref.name}`;

export class StacksService {
  readonly store: EventStore;
  readonly dataDir: string;
  readonly config: StacksConfig;
  readonly jobs: JobBook;
  readonly runs: RunBook;
  readonly instance: Instance;
  /** Settings, the deploy_log_reconcile job and its schedule, execution rows. */
  readonly schedules: StacksSchedules;
  /** When the environments' security settings are held against a compose file (stack-security.ts). */
  readonly security: StackSecurity;
  /** What each run deployed, diffs, redeploys and auto-rollback; set by `open`. */
  history!: DeployHistory;
  /** The audit trail's read model (projections/audit.ts); set by `open`. */
  audit!: ProjectionRunner<AuditState>;
  /** The stack operations (start, stop, restart, down) kept in each stack's Activity; set by `open`. */
  activity!: StackActivity;
  /** The deploy-run retention schedule; set by `open`. */
  retention!: Retention;
  /** Notification deliveries; set by `open`. */
  notifications!: NotificationDispatcher;
  private readonly runsModel: ProjectionRunner<DeployRunsState>;
  private readonly jobsModel: ProjectionRunner<JobsState>;
  private readonly hashKey: Buffer;
  /** Which compose runs the jobs, and with which generation's arguments. */
  private readonly compose: ComposeResolver;
  /** Stacks with a job running, and the work that runs it. */
  private readonly busy = new Map<string, JobSlot>();
  /** The compose jobs' slots (`jobs.maxConcurrent`), and the save-time checks' own (jobs/queue.ts). */
  private readonly slots: ComposeSlots;
  private readonly checks: ComposeSlots;
  /** Every job of this process until its end is recorded (a stack is let go a moment before). */
  private readonly running = new Set<JobSlot>();
  private sweepTimer: NodeJS.Timeout | undefined;
  private interruptedTimer: NodeJS.Timeout | undefined;
  /** Compose that gone instances left running, and their unfinished runs and jobs. */
  private readonly leftovers: Leftovers;
  /** The look for interrupted work under way (one at a time). */
  private interrupted: Promise<void> | undefined;
  private closing = false;
  /** Git stacks' checked-out trees (git-stacks.ts sets it when it opens); without it every stack is plain. */
  trees: ComposeTrees | undefined;
  /** The engines asked whether a deploy's services came up. */
  private readonly engines = new StackStatusReader();
  /** The engines cleaned before an `up` (no time-out of their own: the job's deadline bounds them). */
  private readonly upEngines: Engines;
  /** What a deploy asks of the service's stores, engines, compose and providers (runs/deploy.ts). */
  private readonly deployParts: DeployParts;

  private constructor(
    options: StacksServiceOptions,
    models: {
      runs: ProjectionRunner<DeployRunsState>;
      jobs: ProjectionRunner<JobsState>;
      schedules: StacksSchedules;
    },
    hashKey: Buffer,
    instance: Instance,
  ) {
    this.schedules = models.schedules;
    this.store = options.store;
    this.dataDir = options.dataDir;
    this.config = options.config;
    this.runsModel = models.runs;
    this.jobsModel = models.jobs;
    this.hashKey = hashKey;
    this.security = new StackSecurity({
      config: this.config,
      store: this.store,
      dataDir: this.dataDir,
      hashKey,
    });
    this.instance = instance;
    this.compose = options.compose ?? new ComposeResolver(this.config.compose.command);
    this.upEngines = new Engines(this.config);
    this.slots = new ComposeSlots(this.config.jobs.maxConcurrent);
    this.checks = new ComposeSlots(this.config.jobs.maxConcurrent);
    // One key cache for both: a run's key also seals its job's output.
    const keys = new OutputKeys(this.store);
    this.jobs = new JobBook(this.store, this.jobsModel, {
      retentionHours: this.config.jobs.retentionHours,
      instance,
      keys,
      // A stack operation a stopped server left running is kept in its stack's Activity as it closes.
      onInterrupted: async (job, end) => {
        if (!isStackOperation(job.kind)) return;
        await this.activity.recordInterrupted({
          jobId: job.id,
          operation: job.kind,
          stack: job.stack,
          environmentId: job.environmentId,
          userId: job.userId,
          startedAt: job.startedAt,
          ...end,
        });
      },
    });
    this.runs = new RunBook(this.store, this.runsModel, {
      dataDir: this.dataDir,
      budget: this.config.deployLogs,
      instance,
      keys,
    });
    this.leftovers = new Leftovers({
      runs: this.runs,
      jobs: this.jobs,
      runsModel: this.runsModel,
      jobsModel: this.jobsModel,
      instance,
      claim: async (ref) => (this.closing ? undefined : (await this.claim(ref))?.release),
    });
    this.deployParts = this.partsOfDeploys();
  }

  private partsOfDeploys(): DeployParts {
    return {
      config: this.config,
      stopping: () => this.closing,
      readStack: (stack) => getStack(this.dataDir, stack),
      hashes: (stack) => ({
        compose: composeHash(stack.compose),
        env: envHash(this.hashKey, stack.variables),
      }),
      stackDir: (stack) => stackDir(this.dataDir, stack),
      environment: (id) => (id === null ? null : (findEnvironment(this.config, id) ?? null)),
      composeProgram: () => this.compose.resolve(),
      placeOf: (stack, variant) => this.placeOf(stack, variant),
      pullable: (stack, place) => this.pullable(stack, place),
      checkProviderScope: (stack, how) => this.checkProviderScope(stack, how),
      checkDeploy: (stack, compose, place, env, how) =>
        this.security.checkDeploy(stack, compose, place, env, how),
      resolveProvider: (stack, cwd, timeoutMs) => this.resolveProvider(stack, cwd, timeoutMs),
      recordContent: (run, stack) => this.history.record(run, stack),
      recordImages: (run, environment, project) => this.history.recordImages(run, environment, project),
      lookForRenamed: (environment, project) => this.lookForRenamed(environment, project),
      removeRenamed: (environment, leftovers, deadline) => {
        const { docker } = this.upEngines.of(environment);
        if (docker === undefined) return Promise.resolve(undefined);
        return removeRenamedLeftovers(
          docker,
          leftovers,
          AbortSignal.timeout(Math.max(1, deadline - Date.now())),
        );
      },
      engineDown: (environment) => this.engineDown(environment),
      brokenFileStep: (program, stack, place, operation, env) =>
        this.brokenFileStep(program, stack, place, operation, env),
      watchServices: (environment, stack, names, deadline, status, stopped) =>
        this.watchServices(environment, stack, names, deadline, status, stopped),
      confirmCreations: (environment, project, summary) =>
        this.confirmCreations(environment, project, summary),
      spawn: runCompose,
      groupOf,
    };
  }

  /** The read models the service answers from, for blue-green rebuilds (`chronicle rebuild`). */
  get liveModels(): LiveModel[] {
    return [
      this.runsModel,
      this.jobsModel,
      this.history.model,
      this.audit,
      this.retention.model,
      this.activity.model,
    ];
  }

  /**
   * Starts the service on a store: removes what interrupted stack creates and deletes left, catches the
   * projections up, closes the runs and jobs a stopped server left running, and starts the retention sweep.
   */
  static async open(options: StacksServiceOptions): Promise<StacksService> {
    await removeLeftovers(options.dataDir);
    const hashKey = await loadHashKey(options.dataDir);
    const runs = new ProjectionRunner(options.store, deployRuns);
    const jobs = new ProjectionRunner(options.store, jobsProjection);
    await runs.start();
    await jobs.start();
    let schedules: StacksSchedules;
    try {
      schedules = await StacksSchedules.open({ store: options.store, dataDir: options.dataDir, runs });
    } catch (error) {
      await Promise.allSettled([runs.stop(), jobs.stop()]);
      throw error;
    }
    let instance: Instance;
    try {
      instance = await Instance.join(options.store);
    } catch (error) {
      await Promise.allSettled([schedules.close(), runs.stop(), jobs.stop()]);
      throw error;
    }
    const service = new StacksService(options, { runs, jobs, schedules }, hashKey, instance);
    try {
      service.history = await DeployHistory.open(service);
      // The audit, retention-execution and notification read models catch up in the background: a
      // long log must not hold the start (their readers wait for the head, see their routes).
      service.audit = new ProjectionRunner(options.store, audit);
      background(service.audit.start(), 'the audit read model');
      const activity = new ProjectionRunner(options.store, stackActivity);
      service.activity = new StackActivity(options.store, service.jobs.keys, activity);
      background(activity.start(), 'the stack activity read model');
      service.retention = Retention.open({
        store: options.store,
        config: options.config,
        runs: {
          all: () => runs.state.runs.values(),
          deleteRun: (runId, userId) => service.runs.deleteRun(runId, userId),
        },
        history: () => service.history.model.state,
        settings: schedules.settingsUpdates,
      });
      service.runs.afterDelete = (_runId, position) => service.history.collect(position);
      await service.closeInterrupted();
      await service.jobs.sweep();
      // After the runs are closed: a scheduled reconcile must find them finished.
      await schedules.startSchedule();
      await service.retention.startSchedule();
      // Catches its read model up only: deliveries go on in the background, a channel that is down
      // never holds the start.
      service.notifications = new NotificationDispatcher(options.store, options.config.notifications ?? []);
      background(service.notifications.start(), 'notifications');
    } catch (error) {
      // Nothing may keep running after a failed start: the caller only has the error.
      await Promise.allSettled([
        schedules.close(),
        runs.stop(),
        jobs.stop(),
        instance.leave(),
        service.history?.close(),
        service.audit?.stop(),
        service.activity?.model.stop(),
        service.retention?.close(),
        service.notifications?.close(),
      ]);
      throw error;
    }
    service.interruptedTimer = setInterval(() => {
      service.closeInterrupted().catch((error: unknown) => {
        process.stderr.write(`stacks: closing interrupted runs failed: ${(error as Error).message}\n`);
      });
    }, INTERRUPTED_CHECK_MS);
    service.interruptedTimer.unref();
    const every = options.sweepIntervalMs ?? DEFAULT_SWEEP_MS;
    service.sweepTimer = setInterval(() => {
      service.jobs.sweep().catch((error: unknown) => {
        process.stderr.write(`stacks: job retention sweep failed: ${(error as Error).message}\n`);
      });
    }, every);
    service.sweepTimer.unref();
    return service;
  }

  /**
   * Closes the runs and jobs of instances that are gone (this one's own never). Those whose compose
   * still runs on this host are closed once it is stopped, their stack claimed meanwhile (instances/interrupted-work.ts).
   */
  private closeInterrupted(): Promise<void> {
    if (this.closing) return Promise.resolve();
    this.interrupted ??= (async () => {
      const held = await this.leftovers.sweep();
      await this.runs.closeInterruptedRuns(held.runs);
      await this.jobs.closeInterruptedJobs(undefined, held.jobs);
    })().finally(() => {
      this.interrupted = undefined;
    });
    return this.interrupted;
  }

  /** The environment of a ref: null for local, the configured one, or a 404. */
  environment(env: EnvironmentId): Environment | null {
    if (env === null) return null;
    const found = findEnvironment(this.config, env);
    if (!found) throw new StacksError('environment_not_found', 'Environment not found');
    return found;
  }

  // ----------------------------------------------------------------------------------------------
  // Stacks
  // ----------------------------------------------------------------------------------------------

  listStacks(env: EnvironmentId): Promise<StackSummary[]> {
    this.environment(env);
    return listStacks(this.dataDir, env);
  }

  getStack(ref: StackRef): Promise<Stack> {
    this.environment(ref.environmentId);
    return getStack(this.dataDir, ref);
  }

  async setVariables(
    ref: StackRef,
    variables: readonly StackVariable[],
    userId: string | null,
  ): Promise<Stack> {
    this.environment(ref.environmentId);
    // New values change what the compose file says (`context: ${CTX}`): it is checked with them.
    const stack = await getStack(this.dataDir, ref);
    await this.security.checkSave(ref, stack.compose, await this.savePlace(stack), variables, userId);
    return setVariables(this.dataDir, ref, variables, { events: this.store, userId });
  }

  /** Where a saved compose file is checked: where compose will run it (a git stack without a tree yet: its folder). */
  private savePlace(stack: Stack): Promise<ComposePlace> {
    return this.placeOf(stack, {}).catch(() => this.security.folderPlace(stack));
  }

  /**
   * The warnings of variables too short to replace (short-values.ts), with how many lines of the
   * stack's last run hold each value.
   */
  async shortValueWarnings(ref: StackRef, variables: readonly StackVariable[]): Promise<ShortValueWarning[]> {
    const short = shortValued(variables);
    if (short.length === 0) return [];
    const last = this.runs.list(ref.name, ref.environmentId)[0];
    const counts =
      last === undefined
        ? undefined
        : await countHolding(
            this.runs.logPathOf(last),
            short.map((v) => v.value),
          );
    return shortValueWarnings(short, counts);
  }

  async deleteStack(ref: StackRef, userId: string | null): Promise<void> {
    this.environment(ref.environmentId);
    if (this.busy.has(keyOf(ref)) || (await this.leftovers.blocks(ref)))
      throw new StacksError('stack_busy', STACK_BUSY_MESSAGE);
    await deleteStack(this.dataDir, ref, { events: this.store, userId });
  }

  /** Create and start (a recorded run, trigger manual). */
  async createAndStart(
    ref: StackRef,
    input: NewStack,
    options: DeployOptions,
    userId: string | null,
  ): Promise<StartedJob> {
    this.environment(ref.environmentId);
    this.checkProvider(input.secretProvider, ref, userId);
    // A stack with a job running exists (or is being created by that job).
    if (this.busy.has(keyOf(ref))) throw new StacksError('stack_exists', 'Stack already exists');
    if (await stackExists(this.dataDir, ref)) throw new StacksError('stack_exists', 'Stack already exists');
    const compose = validateCompose(input.compose);
    const variables = validateVariables(input.variables);
    // Before compose's own check, which reads the files the compose file names.
    await this.security.checkSave(ref, compose, this.security.folderPlace(ref), variables, userId);
    await this.checkNewCompose(ref, compose, variables);
    return this.exclusive(ref, async () => {
      await createStack(this.dataDir, ref, input, { events: this.store, userId });
      return { kind: 'create', operation: 'up', options, record: true, trigger: 'manual', userId };
    });
  }

  /**
   * Makes a stack of a compose project the engine runs (adoption.ts made `source` of its files) and
   * records its first run, `adopted`: compose does not run, the containers stay as they are, and the run
   * holds what was adopted (its log, its content, the images its services run). The stack is the
   * project's name, so from then on every operation of the stack acts on those containers.
   */
  async adopt(ref: StackRef, source: AdoptionSource, userId: string | null): Promise<{ runId: number }> {
    const environment = this.environment(ref.environmentId);
    if (this.closing) throw new StacksError('server_stopping', 'The server is stopping');
    if (this.busy.has(keyOf(ref)) || (await stackExists(this.dataDir, ref)))
      throw new StacksError('stack_exists', 'Stack already exists');
    const variables = validateVariables(source.stack.variables);
    const compose = validateCompose(source.stack.compose);
    await this.checkNewCompose(ref, compose, variables);
    const slot = await this.claim(ref);
    if (!slot) throw new StacksError('stack_busy', STACK_BUSY_MESSAGE);
    try {
      const stack = await createStack(this.dataDir, ref, source.stack, { events: this.store, userId });
      await copyFile(
        join(stackDir(this.dataDir, ref), COMPOSE_FILE),
        join(stackDir(this.dataDir, ref), LAST_GOOD_FILE),
      );
      const recorder = await this.runs.start({
        jobId: randomUUID(),
        stack: ref.name,
        environmentId: ref.environmentId,
        trigger: 'manual',
        userId,
        options: { pull: false, build: false, forceRecreate: false },
        composeHash: composeHash(stack.compose),
        envHash: envHash(this.hashKey, stack.variables),
        extra: { adopted: true, merged: source.merged },
      });
      const redactor = createRedactor(stack.variables.map((v) => v.value));
      for (const line of source.log) {
        const shown = redactor.line(line);
        if (shown !== null) recorder.line(shown);
        else recorder.withheld();
      }
      await this.history.record(recorder, stack);
      await this.history.recordImages(recorder, environment, ref.name);
      await recorder.complete({
        success: true,
        adopted: true,
        exit: { exitCode: 0, signal: null, timedOut: false, cancelled: false },
        redactor,
      });
      return { runId: recorder.runId };
    } finally {
      await slot.release?.();
    }
  }

  /**
   * `PUT compose`: saves; with restart, redeploys as a recorded job. `editedHash` (the request's
   * `If-Match`) is the version the caller edited: another stored version answers 409 `compose_changed`,
   * checked first (before compose's check) and again as the file is written.
   */
  async saveCompose(
    ref: StackRef,
    content: string,
    restart: boolean,
    options: DeployOptions,
    userId: string | null,
    editedHash?: string,
  ): Promise<StartedJob | { saved: true; composeHash: string }> {
    this.environment(ref.environmentId);
    const stack = await getStack(this.dataDir, ref);
    checkEdited(stack, editedHash);
    const text = validateCompose(content);
    // Before compose's own check, which reads the files the compose file names.
    await this.security.checkSave(ref, text, await this.savePlace(stack), stack.variables, userId);
    await this.checkCompose(stack, text);
    const recording = { events: this.store, userId };
    if (!restart) {
      const saved = await saveCompose(this.dataDir, ref, content, recording, editedHash);
      return { saved: true, composeHash: composeHash(saved.compose) };
    }
    return this.exclusive(ref, async () => {
      await saveCompose(this.dataDir, ref, content, recording, editedHash);
      return { kind: 'compose_save', operation: 'up', options, record: true, trigger: 'manual', userId };
    });
  }

  /** The deploy endpoint (a recorded run). */
  async deploy(
    ref: StackRef,
    options: DeployOptions,
    userId: string | null,
    trigger: Trigger = 'manual',
  ): Promise<StartedJob> {
    this.environment(ref.environmentId);
    return this.exclusive(ref, async () => ({
      kind: 'deploy' as const,
      operation: 'up' as const,
      options,
      record: true,
      trigger,
      userId,
    }));
  }

  /**
   * A recorded deploy (`up`) whose preparation runs with the stack claimed, so no other job of the stack
   * runs between it and compose. `prepare` runs before the job and its run start (a git create fetches
   * and makes the stack there; when it throws, nothing starts and the claim is let go); what may take
   * long belongs in the plan's `variant.resolve`, which runs inside the job.
   */
  async preparedDeploy(ref: StackRef, prepare: () => Promise<PreparedDeploy>): Promise<StartedJob> {
    this.environment(ref.environmentId);
    return this.exclusive(ref, async () => {
      const plan = await prepare();
      return { ...plan, operation: 'up' as const, record: true };
    });
  }

  /** The compose program the jobs run (found at the first job, or at start by the CLI). */
  composeProgram(): Promise<ComposeProgram> {
    return this.compose.resolve();
  }

  /** Whether a job of the stack runs now (a scheduled deploy skips its turn then). */
  isBusy(ref: StackRef): boolean {
    return this.busy.has(keyOf(ref));
  }

  /**
   * The job of the stack that runs now (any instance's, as the read model has it), or null: what the
   * stack's answer says as `job`.
   */
  runningJob(ref: StackRef): RunningStackJob | null {
    const info = runningJobs(this.jobsModel.state).find(
      (j) => j.stack === ref.name && j.environmentId === ref.environmentId,
    );
    if (info === undefined) return null;
    return {
      id: info.id,
      kind: info.kind,
      runId: info.runId,
      userId: info.userId,
      startedAt: info.startedAt,
      ...(info.cancelledBy !== undefined ? { cancelledBy: info.cancelledBy } : {}),
    };
  }

  /**
   * Cancels a running job of this instance: records who asked (JobCancelRequested, the audit's
   * `job.cancelled`), stops its compose process group (SIGTERM, then SIGKILL after a grace) and ends the
   * job, and its run, `cancelled`; a queued job leaves the queue, and one still preparing (a git fetch,
   * a provider) stops before compose starts. 409 when the job has ended or runs in another instance; asking again changes nothing.
   */
  cancelJob(jobId: string, userId: string | null): CancelledJob {
    const slot = [...this.running].find((s) => s.jobId === jobId);
    const job = this.jobs.running(jobId);
    if (!slot || !job || job.finished) {
      const info = this.jobs.info(jobId);
      if (info === undefined || info.status === 'done' || job?.finished)
        throw new StacksError('job_ended', JOB_ENDED_MESSAGE);
      throw new StacksError('job_elsewhere', JOB_ELSEWHERE_MESSAGE);
    }
    if (!slot.cancel) {
      slot.cancel = { userId };
      job.cancelRequested(userId);
      // A queued job leaves the queue (compose never runs); a running one's process group is stopped.
      slot.ticket?.withdraw(new Error(cancelledMessage(userId)));
      slot.process?.cancel();
    }
    return { jobId, runId: job.runId, cancelledBy: slot.cancel.userId };
  }

  /** start / stop / restart / down: jobs only, no run. */
  async operate(
    ref: StackRef,
    operation: 'start' | 'stop' | 'restart' | 'down',
    userId: string | null,
  ): Promise<StartedJob> {
    this.environment(ref.environmentId);
    return this.exclusive(ref, async () => ({
      kind: operation,
      operation,
      options: { pull: false, build: false, forceRecreate: false },
      record: false,
      trigger: 'manual' as const,
      userId,
    }));
  }

  /**
   * A stack may bind a configured provider that serves its environment; an admin may bind any (a
   * deploy then gives its values only while admins wrote everything the stack deploys).
   */
  private checkProvider(name: string | null, ref: StackRef, userId: string | null): void {
    if (name === null) return;
    const provider = this.config.secretProviders.get(name);
    if (provider === undefined)
      throw new StacksError('unknown_secret_provider', `Unknown secret provider ${JSON.stringify(name)}`);
    if (!providerServes(provider, ref.environmentId) && !this.security.isAdmin(userId))
      throw new StacksError('forbidden', `forbidden: ${outOfScopeMessage(name, ref.environmentId)}`);
  }

  /**
   * Before a deploy gives a provider's values to compose: a provider that does not serve the stack's
   * environment gives them only to a stack admins wrote wholly (a non-admin's compose file could
   * print them past redaction). Other operations create and build nothing, so their output is all
   * a value could leave by, and that is redacted.
   */
  private async checkProviderScope(stack: Stack, how: DeployHow): Promise<void> {
    const name = stack.secretProvider;
    const provider = name === null ? undefined : this.config.secretProviders.get(name);
    if (name === null || provider === undefined || providerServes(provider, stack.environmentId)) return;
    const why = await this.security.whyHeld(stack, how);
    if (why !== undefined)
      throw new StacksError(
        'forbidden',
        `${outOfScopeMessage(name, stack.environmentId)} (checked because ${why})`,
      );
  }

  /**
   * Claims the stack (409 when a job of it runs), runs `prepare` (a file change), then starts the job
   * (and its run) and lets it go on in the background. The claim is let go when the job has ended.
   */
  private async exclusive(
    ref: StackRef,
    prepare: () => Promise<{
      kind: JobKind;
      operation: ComposeOperation;
      options: DeployOptions;
      record: boolean;
      trigger: Trigger;
      userId: string | null;
      variant?: DeployVariant;
    }>,
  ): Promise<StartedJob> {
    if (this.closing) throw new StacksError('server_stopping', 'The server is stopping');
    const slot = await this.claim(ref);
    if (!slot) throw new StacksError('stack_busy', STACK_BUSY_MESSAGE);
    let started: StartedJob;
    try {
      // A gone instance may have left compose of this stack running: the stack is free once it is stopped.
      if (await this.leftovers.blocks(ref)) {
        this.closeInterrupted().catch((error: unknown) => {
          process.stderr.write(`stacks: closing interrupted runs failed: ${(error as Error).message}\n`);
        });
        throw new StacksError('stack_busy', STACK_BUSY_MESSAGE);
      }
      const plan = await prepare();
      const stack = await getStack(this.dataDir, ref);
      const jobId = randomUUID();
      // Its turn among the compose jobs: without a free slot the run and the job start `queued`.
      const ticket = this.slots.request(jobId);
      slot.ticket = ticket;
      const queued = ticket.queued ? { queued: { ahead: ticket.ahead, limit: ticket.limit } } : {};
      let recorder: RunRecorder | undefined;
      const hashes = { compose: composeHash(stack.compose), env: envHash(this.hashKey, stack.variables) };
      if (plan.record) {
        recorder = await this.runs.start({
          jobId,
          stack: ref.name,
          environmentId: ref.environmentId,
          trigger: plan.trigger,
          userId: plan.userId,
          options: plan.options,
          composeHash: hashes.compose,
          envHash: hashes.env,
          ...(plan.variant?.extra ? { extra: plan.variant.extra } : {}),
          ...queued,
        });
      }
      let job: Job;
      try {
        job = await this.jobs.start({
          id: jobId,
          kind: plan.kind,
          stack: ref.name,
          environmentId: ref.environmentId,
          userId: plan.userId,
          runId: recorder?.runId ?? null,
          ...queued,
        });
      } catch (error) {
        // The run must not stay `running` for good: close it with the reason.
        await recorder
          ?.complete({
            success: false,
            exit: { exitCode: null, signal: null, timedOut: false, cancelled: false },
            error: `The job could not be started: ${(error as Error).message}`,
            redactor: createRedactor([
              ...stack.variables.map((v) => v.value),
              ...(plan.variant?.redact ?? []),
            ]),
          })
          .catch(() => undefined);
        throw error;
      }
      // A stack operation (no run) is kept in its stack's Activity.
      const operation = !recorder && isStackOperation(job.kind) ? job.kind : undefined;
      // The pipeline settles every failure into a result; this is the net for a bug in it, so the stack
      // is let go and no rejection goes unhandled.
      const result = runDeploy(this.deployParts, {
        stack,
        hashes,
        userId: plan.userId,
        operation: plan.operation,
        options: plan.options,
        variant: plan.variant ?? {},
        job,
        run: recorder,
        slot,
        release: () => {
          slot.ticket?.release();
          slot.release?.();
        },
        ...(operation !== undefined
          ? {
              recordOperation: (outcome: OperationOutcome) =>
                this.activity.record(job, operation, plan.userId, outcome),
            }
          : {}),
      }).catch((error: unknown): JobResult => {
        process.stderr.write(`stacks: job ${jobId} failed unexpectedly: ${(error as Error).stack}\n`);
        return {
          type: 'result',
          success: false,
          error: 'Internal error while running the job',
          output: [],
        };
      });
      slot.done = result;
      slot.jobId = jobId;
      started = { jobId, runId: recorder?.runId ?? null, result };
    } catch (error) {
      slot.ticket?.release();
      await slot.release?.();
      throw error;
    }
    this.running.add(slot);
    void started.result.finally(() => {
      slot.ticket?.release();
      slot.release?.();
      this.running.delete(slot);
    });
    const runId = started.runId;
    if (runId !== null)
      void started.result.then((result) => (result.success ? undefined : this.rollBack(runId)));
    return started;
  }

  /** A recorded deploy failed: the stack's auto-rollback (history.ts) decides whether to roll back. */
  private async rollBack(runId: number): Promise<void> {
    const run = this.runs.get(runId);
    if (this.closing || !run || run.status !== 'failed') return;
    try {
      await this.history.afterFailure(run);
    } catch (error) {
      process.stderr.write(`stacks: auto-rollback after run ${runId} failed: ${(error as Error).message}\n`);
    }
  }

  /**
   * Claims the stack for one job: in this process (`busy`) and among the instances on the log (the
   * store's lease). Undefined when a job of it runs, here or elsewhere.
   */
  private async claim(ref: StackRef): Promise<JobSlot | undefined> {
    const key = keyOf(ref);
    if (this.busy.has(key)) return undefined;
    const slot: JobSlot = { done: Promise.resolve() };
    this.busy.set(key, slot);
    let lease: Awaited<ReturnType<EventStore['tryLease']>>;
    try {
      lease = await this.store.tryLease(`stack-job:${key}`);
    } catch (error) {
      this.busy.delete(key);
      throw error;
    }
    if (!lease) {
      this.busy.delete(key);
      return undefined;
    }
    const held = lease;
    slot.release = () => {
      if (this.busy.get(key) === slot) this.busy.delete(key);
      return held.release();
    };
    return slot;
  }

  /**
   * v1's `Creating x ... error`: the containers the engine holds were made (their start failed) and
   * count as created; those it does not hold were never made. Unasked engine: none counts.
   */
  private async confirmCreations(
    environment: Environment | null,
    project: string,
    summary: SummaryCounter,
  ): Promise<void> {
    const client = this.engines.client(environment);
    if ('error' in client) return summary.confirm(new Set());
    const listed = await client.docker
      .listContainers({ all: true, filters: { label: [`com.docker.compose.project=${project}`] } })
      .catch(() => []);
    summary.confirm(new Set(listed.map((c) => (c.Names?.[0] ?? '').replace(/^\//, ''))));
  }

  /** The engine's look for removeRenamed; never rejects (an engine that cannot be asked says why). */
  private lookForRenamed(environment: Environment | null, project: string): Promise<RenamedLook> {
    const look = this.engines.client(environment);
    if ('error' in look) return Promise.resolve({ notLooked: look.error });
    return findRenamedLeftovers(look.docker, project).catch((error: unknown) => ({
      notLooked: this.engines.failed(environment, error),
    }));
  }

  /**
   * What v1's `pull` is given: the services with an image and no build, over the stack's compose text and
   * its override files (stack-status.ts `pullableServices`), the profiles of its `COMPOSE_PROFILES`.
   */
  private async pullable(stack: Stack, place: ComposePlace): Promise<string[] | undefined> {
    const overrides = await Promise.all(
      place.overrides.map((file) => readFile(file, 'utf8').catch(() => '')),
    );
    const profiles = (stack.variables.find((v) => v.name === 'COMPOSE_PROFILES')?.value ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '');
    return pullableServices([stack.compose, ...overrides], profiles);
  }

  /**
   * The step that runs `operation` again when it failed because compose refuses the stack's file (a file
   * saved before files were checked, or a git commit's): compose/args.ts `fallbackStep`, and the status
   * that says so. Undefined when the file is not the problem, or v1 has no file that deployed.
   */
  private async brokenFileStep(
    program: ComposeProgram,
    stack: Stack,
    place: ComposePlace,
    operation: Exclude<ComposeOperation, 'up'>,
    env: Record<string, string>,
  ): Promise<{ step: ComposeStep; why: string } | undefined> {
    const objection = await composeObjection(
      {
        command: program.argv,
        project: stack.name,
        dir: place.cwd,
        name: basename(place.file),
        overrides: place.overrides,
        env,
      },
      stack.compose,
    );
    if (objection === undefined) return undefined;
    const lastGood = join(place.cwd, LAST_GOOD_FILE);
    const step = fallbackStep(
      { command: program.argv, generation: program.generation, project: stack.name },
      operation,
      {
        emptyDir: await this.emptyDir(),
        lastGood: (await stat(lastGood).catch(() => undefined)) ? lastGood : undefined,
      },
    );
    if (!step) return undefined;
    const how =
      program.generation === 'v2' ? 'by the project name' : 'with the last compose file that deployed';
    return { step, why: `The compose file is invalid (${objection}); running ${operation} ${how}` };
  }

  /** A folder without a compose file (made once), where v2 finds a project by its name alone. */
  private async emptyDir(): Promise<string> {
    const dir = join(this.dataDir, 'stacks', '.no-compose-file');
    await mkdir(dir, { recursive: true });
    return dir;
  }

  /**
   * A 422 when the compose that will run the stack refuses `text` (compose-check.ts), checked beside
   * the stack's compose file (a git stack: in its tree) with its variables.
   */
  private async checkCompose(stack: Stack, text: string): Promise<void> {
    // A git stack whose tree cannot be made is checked by its next deploy.
    const place = await this.placeOf(stack, {}).catch(() => undefined);
    if (place === undefined) return;
    await this.objectTo(stack, text, place.cwd, place.file, stack.variables, place.overrides);
  }

  /** checkCompose for a stack not made yet: in a folder of its own, with the `.env` it will have. */
  private async checkNewCompose(
    ref: StackRef,
    text: string,
    variables: readonly StackVariable[],
  ): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), 'chronicle-compose-check-'));
    try {
      await writeFile(join(dir, ENV_FILE), formatEnvFile(variables), { mode: 0o600 });
      await this.objectTo(ref, text, dir, join(dir, COMPOSE_FILE), variables);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async objectTo(
    ref: StackRef,
    text: string,
    dir: string,
    file: string,
    variables: readonly StackVariable[],
    overrides: readonly string[] = [],
  ): Promise<void> {
    const program = await this.compose.resolve();
    if (program.version === null) return;
    const env = composeEnv(process.env, variables, {}, this.environment(ref.environmentId));
    // In a slot of the checks' own: a save never waits behind deploys (jobs/queue.ts).
    const objection = await this.checks.run(() =>
      composeObjection(
        { command: program.argv, project: ref.name, dir, name: basename(file), overrides, env },
        text,
      ),
    );
    if (objection !== undefined)
      throw new StacksError('compose_rejected', `The compose file is invalid (compose config): ${objection}`);
  }

  /** Why the engine of an environment does not answer now, or undefined when it does. */
  private async engineDown(environment: Environment | null): Promise<string | undefined> {
    const client = this.engines.client(environment);
    if ('error' in client) return client.error;
    try {
      await client.docker.ping();
      return undefined;
    } catch (error) {
      return this.engines.failed(environment, error);
    }
  }

  /**
   * After `up`: asks the stack's engine until the containers `up` named settle (engine/service-health.ts), at
   * most until the job's deadline. Undefined when the engine cannot be asked (a job status says so).
   */
  private async watchServices(
    environment: Environment | null,
    stack: Stack,
    names: ReadonlySet<string>,
    deadline: number,
    status: (text: string) => void,
    stopped: () => boolean,
  ): Promise<WatchResult | undefined> {
    const client = this.engines.client(environment);
    if ('error' in client) {
      status(`The services' state was not checked: ${client.error}`);
      return undefined;
    }
    status('Waiting for the services to run');
    try {
      const result = await watchServices(client.docker, stack.name, {
        deadline,
        names,
        oneShots: oneShotServices(stack.compose),
        stopped,
      });
      if (!result.ready && result.timedOut)
        return {
          ...result,
          error: `Timed out after ${this.config.jobs.timeoutSeconds} s waiting for the services:\n${result.error}`,
        };
      return result;
    } catch (error) {
      status(`The services' state was not checked: ${this.engines.failed(environment, error)}`);
      return undefined;
    }
  }

  /**
   * Where compose runs for the stack (ComposePlace): a git stack's tree (at the commit a redeploy
   * recorded), else the stack's folder and its compose.yaml.
   */
  private async placeOf(stack: Stack, variant: DeployVariant): Promise<ComposePlace> {
    const commit = variant.extra?.commit;
    const tree = await this.trees?.place(stack, typeof commit === 'string' ? commit : undefined);
    return tree ?? this.security.folderPlace(stack);
  }

  /**
   * The values to hide in what the stack's containers print (their logs, a console): its variables'
   * values and its secret provider's secrets as the provider gives them now. Rejects when the provider
   * fails.
   */
  async valuesOf(stack: Stack): Promise<string[]> {
    const values = stack.variables.map((v) => v.value);
    if (stack.secretProvider === null) return values;
    const secrets = await this.resolveProvider(
      stack,
      stackDir(this.dataDir, stack),
      this.config.jobs.timeoutSeconds * 1000,
    );
    return [...values, ...Object.values(secrets)];
  }

  /** A redactor of the values `valuesOf` gives. */
  async redactorOf(stack: Stack): Promise<Redactor> {
    return createRedactor(await this.valuesOf(stack));
  }

  private async resolveProvider(
    stack: Stack,
    cwd: string,
    timeoutMs: number,
  ): Promise<Record<string, string>> {
    const name = stack.secretProvider as string;
    const provider = this.config.secretProviders.get(name);
    if (!provider)
      throw new StacksError('unknown_secret_provider', `Unknown secret provider ${JSON.stringify(name)}`);
    // Without a prototype: a variable named `__proto__` is a key like any other.
    const env: Record<string, string> = Object.create(null);
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    return resolveSecrets(provider, { cwd, timeoutMs, env, name });
  }

  /**
   * Stops: no new jobs; running compose processes are cancelled (their runs close `failed`, cancelled)
   * and their records finished; then the projections persist their snapshots.
   */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.sweepTimer);
    clearInterval(this.interruptedTimer);
    // The schedule first (no new reconcile), and a running reconcile ends before the runs model stops.
    await this.schedules.close();
    await Promise.all([this.retention.close(), this.notifications.close()]);
    // Queued jobs first, so none takes a slot a cancelled one frees.
    this.slots.withdrawAll(new Error(STOPPED_WHILE_QUEUED_MESSAGE));
    this.checks.withdrawAll(new StacksError('server_stopping', 'The server is stopping'));
    const running = [...this.running];
    for (const slot of running) slot.process?.cancel();
    // A job still resolving its provider has no process to cancel yet: it is given a grace, after
    // which the next start closes its run and job as interrupted.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...running.map((slot) => slot.done), this.leftovers.close(), this.interrupted]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, CLOSE_GRACE_MS);
      }),
    ]);
    clearTimeout(timer);
    await Promise.all([this.history.close(), this.audit.stop(), this.activity.model.stop()]);
    await this.runsModel.stop();
    await this.jobsModel.stop();
    await this.instance.leave();
  }
}
