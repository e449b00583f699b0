import { copyFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JobResult } from '../../../projections/jobs.js';
import type { ComposeGroup, DeployOptions, EnvironmentId } from '../../../streams/stacks.js';
import { allEnded } from '../all-settled.js';
import {
  type ComposeOperation,
  type ComposeStep,
  type ComposeTarget,
  composeEnv,
  composeSteps,
  isNoContainerToStartLine,
  isUsageLine,
  isWaitFailureLine,
} from '../compose/args.js';
import { consumeLines } from '../compose/line-consumer.js';
import type { ComposeProgram } from '../compose/program.js';
import {
  notRemovedLine,
  type RemovedLeftovers,
  type RenamedLeftover,
  removedLine,
} from '../compose/renamed-containers.js';
import type { RunnerOptions } from '../compose/runner.js';
import { isV2ProgressLine, SummaryCounter } from '../compose/summary.js';
import type {
  ComposeExit,
  ComposeInvocation,
  ComposePlace,
  ComposeProcess,
  DeployVariant,
  Environment,
} from '../contracts.js';
import type { WatchResult } from '../engine/service-health.js';
import type { Ticket } from '../jobs/queue.js';
import type { DeployHow } from '../stack/security.js';
import { PINNED_COMPOSE_FILE, type Stack } from '../stack/store.js';
import { type DeployJob, DeployOutput, type DeployRecord } from './deploy-output.js';
import { budgetNotice } from './log-files.js';
import { describeFailure, WITHHELD_ERROR_MESSAGE } from './run-recorder.js';

/**
 * A job's deploy, from the claim to its recorded end, as explicit stages over one output
 * (DeployOutput): wait for a compose slot, resolve the source (a git fetch), resolve the secrets,
 * record the content (beside making compose's place and steps ready), the compose steps (with the look
 * whether the services came up), and complete (the run's end, then the job's). The service keeps the
 * claims and the lifecycle (close, cancel, auto-rollback) and gives the pipeline what it asks the
 * world through DeployParts, so each stage runs with fakes too.
 */

/** The compose text of the stack's last successful `up`, beside its compose file (v1's fallback). */
export const LAST_GOOD_FILE = '.compose.last-good.yaml';
/** Stderr lines kept for a failed run's error message. */
const ERROR_TAIL_LINES = 5;
const NO_OPTIONS: DeployOptions = { pull: false, build: false, forceRecreate: false };
const NO_EXIT: ComposeExit = { exitCode: null, signal: null, timedOut: false, cancelled: false };

export const SERVER_STOPPING_MESSAGE = 'The server was stopped during this job; compose was stopped';
/** The status of a start that found no container (after a down) and runs `up` instead. */
export const START_CREATES_MESSAGE =
  'The stack has no containers to start (after a down): running compose up to create and start them';
const LINE_FAULT_MESSAGE = 'Internal error while handling the compose output; compose was stopped';

/** The error of a job someone cancelled (and of its run). */
export const cancelledMessage = (userId: string | null) =>
  `Cancelled by ${userId ?? 'a user'}; compose was stopped`;

/** The status a queued job reports first (docs/security.md#limits-and-their-defaults). */
export function queuedStatus(ticket: Pick<Ticket, 'ahead' | 'limit'>): string {
  const before = ticket.ahead === 1 ? '1 job waits' : `${ticket.ahead} jobs wait`;
  return `Queued: all ${ticket.limit} compose slots are taken (jobs.maxConcurrent); ${before} before this one`;
}

/** A step that printed compose's usage: compose did not take the arguments chronicle gave it. */
function usageFailure(subcommand: string, program: ComposeProgram): string {
  const which = `${program.command.join(' ')} ${program.version ?? '(version unknown)'}`;
  return `Compose did not accept the arguments of \`${subcommand}\` (it printed its usage, exit code 0); ${which} was given ${program.generation} arguments`;
}

/** What a failed step before `up` means for the stack: nothing of the new deploy was applied. */
const notRun = (subcommand: string) =>
  `${subcommand} was not run: the stack's containers are as they were before this deploy`;

/** Why a job's output could not be recorded, in the store's words. */
const recordingReason = (error: Error): string =>
  error.cause instanceof Error ? error.cause.message : error.message;

/** What the engine said of the containers an interrupted compose left (compose/renamed-containers.ts). */
export type RenamedLook = RenamedLeftover[] | { notLooked: string };

/** How a stack operation (a job without a run) ended, for its stack's Activity. */
export interface OperationOutcome {
  success: boolean;
  error?: string;
  exitCode?: number;
  cancelledBy?: string | null;
}

/** What the pipeline asks of the world: the service's stores, engines, compose and providers. */
export interface DeployParts {
  /** The job's time-out and the log budget (the config's `jobs` and `deployLogs`). */
  readonly config: { jobs: { timeoutSeconds: number }; deployLogs: { budgetBytes: number } };
  /** True once the server stops: no step may start after it. */
  stopping(): boolean;
  /** The stack as its folder holds it now (a source step may have rewritten it). */
  readStack(stack: Stack): Promise<Stack>;
  /** The hashes runs record of a stack's compose text and variables (stack-store.ts). */
  hashes(stack: Stack): { compose: string; env: string };
  /** The stack's folder, where its secret provider runs. */
  stackDir(stack: Stack): string;
  environment(id: EnvironmentId): Environment | null;
  composeProgram(): Promise<ComposeProgram>;
  /** Where compose runs for the stack (its folder, or a git stack's tree at the variant's commit). */
  placeOf(stack: Stack, variant: DeployVariant): Promise<ComposePlace>;
  /** What v1's `pull` is given (stack-status.ts `pullableServices`). */
  pullable(stack: Stack, place: ComposePlace): Promise<string[] | undefined>;
  /** A 403 when the stack's provider does not serve its environment and the stack may not have it. */
  checkProviderScope(stack: Stack, how: DeployHow): Promise<void>;
  /** The environment's security settings held against the files compose is given (stack-security.ts). */
  checkDeploy(
    stack: Stack,
    compose: string,
    place: ComposePlace,
    env: Record<string, string>,
    how: DeployHow,
  ): Promise<void>;
  /** The stack's secret provider's values, as it gives them now. */
  resolveProvider(stack: Stack, cwd: string, timeoutMs: number): Promise<Record<string, string>>;
  /** What the run deploys, stored once per distinct content (deploy history). */
  recordContent(run: DeployRecord, stack: Stack): Promise<void>;
  /** The images the services run after a successful `up`. */
  recordImages(run: DeployRecord, environment: Environment | null, project: string): Promise<void>;
  /** The engine's look for containers an interrupted compose left renamed; never rejects. */
  lookForRenamed(environment: Environment | null, project: string): Promise<RenamedLook>;
  /** Removes them, until `deadline`; undefined when the engine cannot be had. */
  removeRenamed(
    environment: Environment | null,
    leftovers: readonly RenamedLeftover[],
    deadline: number,
  ): Promise<RemovedLeftovers | undefined>;
  /** Why the engine does not answer now, or undefined when it does. */
  engineDown(environment: Environment | null): Promise<string | undefined>;
  /** The step that runs a failed operation again without the stack's broken file, and why. */
  brokenFileStep(
    program: ComposeProgram,
    stack: Stack,
    place: ComposePlace,
    operation: Exclude<ComposeOperation, 'up'>,
    env: Record<string, string>,
  ): Promise<{ step: ComposeStep; why: string } | undefined>;
  /** Asks the engine until the containers settle, at most until `deadline`; undefined when it cannot. */
  watchServices(
    environment: Environment | null,
    stack: Stack,
    names: ReadonlySet<string>,
    deadline: number,
    status: (text: string) => void,
    stopped: () => boolean,
  ): Promise<WatchResult | undefined>;
  /** v1's `Creating x ... error`: which of the containers the engine holds. */
  confirmCreations(environment: Environment | null, project: string, summary: SummaryCounter): Promise<void>;
  /** Spawns compose (compose/runner.ts `runCompose`). */
  spawn(invocation: ComposeInvocation, options: RunnerOptions): ComposeProcess;
  /** The process group a just-spawned compose leads (process-groups.ts `groupOf`), read in the same turn. */
  groupOf(pid: number): ComposeGroup | undefined;
}

/** The stack's claim as the pipeline sees it: its place in the compose queue, its process, a cancel. */
interface DeploySlot {
  readonly ticket?: Pick<Ticket, 'queued' | 'ahead' | 'limit' | 'granted'>;
  /** The compose process running now, for a stop or a cancel to end. */
  process?: ComposeProcess;
  /** Set once someone cancelled the job: who. */
  readonly cancel?: { userId: string | null };
}

/** One job's deploy, as the service started it (its job, and its run when it records one). */
export interface DeployInput {
  /** The stack as the run's start recorded it, and the hashes recorded then. */
  stack: Stack;
  hashes: { compose: string; env: string };
  userId: string | null;
  operation: ComposeOperation;
  options: DeployOptions;
  variant: DeployVariant;
  job: DeployJob;
  run: DeployRecord | undefined;
  slot: DeploySlot;
  /**
   * Compose has ended: frees the stack and the compose slot before the end is recorded, so whoever sees
   * the run or the job finished can start the next job of the stack at once (not a 409 for a moment).
   */
  release(): void;
  /** A stack operation kept in its stack's Activity before its result is seen (a job without a run). */
  recordOperation?: (outcome: OperationOutcome) => Promise<void>;
}

/** What the stages before compose made ready: the program, the files, the target and the environment. */
interface PreparedCompose {
  program: ComposeProgram;
  place: ComposePlace;
  composeFile: string;
  target: ComposeTarget;
  env: Record<string, string>;
  /** The engine's look for renamed leftovers, started beside the rest (the first `up` takes it). */
  renamed: Promise<RenamedLook> | undefined;
}

/** Runs a started job to its end; resolves with the recorded result (never rejects). */
export function runDeploy(parts: DeployParts, input: DeployInput): Promise<JobResult> {
  return new Deploy(parts, input).run();
}

/** One deploy's state across its stages; each stage is a method, run in order by `run`. */
export class Deploy {
  /** The stack as the stages know it: read again after the source stage. */
  stack: Stack;
  readonly output: DeployOutput;
  readonly summary = new SummaryCounter();
  /** The job's time-out covers the source, the provider and compose together. */
  readonly deadline: number;
  exit: ComposeExit = NO_EXIT;
  /** Why the deploy failed; undefined while it has not. */
  failure: string | undefined;
  /** Lines compose printed, withheld ones included. */
  printed = 0;
  /** The provider's values, given to compose in its environment. */
  secrets: Record<string, string> = {};
  /** Where compose ran, once known (a pinned compose file is removed from there at the end). */
  place: ComposePlace | undefined;
  private readonly how: DeployHow;
  private readonly stderrTail: string[] = [];

  constructor(
    private readonly parts: DeployParts,
    private readonly input: DeployInput,
  ) {
    this.stack = input.stack;
    const { variant } = input;
    this.output = new DeployOutput(
      input.job,
      input.run,
      [...input.stack.variables.map((v) => v.value), ...(variant.redact ?? [])],
      {
        forwardLines: variant.forwardLines !== false,
        budgetNotice: budgetNotice(parts.config.deployLogs.budgetBytes),
      },
    );
    this.deadline = Date.now() + this.timeoutMs;
    this.how = {
      fetchedFromGit: variant.resolve !== undefined,
      ...(variant.pinnedCompose !== undefined ? { pinnedBy: input.userId } : {}),
    };
  }

  private get timeoutMs(): number {
    return this.parts.config.jobs.timeoutSeconds * 1000;
  }

  private get environment(): Environment | null {
    return this.parts.environment(this.stack.environmentId);
  }

  /** The stages in order; any failure is settled into the result. */
  async run(): Promise<JobResult> {
    for (const stage of this.input.variant.stages ?? []) this.output.status(stage);
    try {
      await this.waitTurn();
      await this.resolveSource();
      this.halt();
      await this.resolveSecrets();
      const prepared = await this.recordContent();
      this.halt();
      await this.composeSteps(prepared);
      await this.settle(prepared);
    } catch (error) {
      this.failure = (error as Error).message;
    }
    return this.complete();
  }

  /** Before each step that may take long: a stopping server or a cancel ends the job there. */
  halt(): void {
    if (this.parts.stopping()) throw new Error(SERVER_STOPPING_MESSAGE);
    const cancel = this.input.slot.cancel;
    if (cancel) throw new Error(cancelledMessage(cancel.userId));
  }

  private stopped(): boolean {
    return this.parts.stopping() || this.input.slot.cancel !== undefined;
  }

  /** A queued job waits for its compose slot; rejects when it leaves the queue (the server stops). */
  async waitTurn(): Promise<void> {
    const { ticket } = this.input.slot;
    if (!ticket?.queued) return;
    this.output.notice(queuedStatus(ticket));
    await ticket.granted;
    await this.input.run?.dequeued();
    this.input.job.dequeued();
  }

  /**
   * The variant's source step (a git deploy fetches and checks out its commit, writing the compose
   * file): then the stack is read again, its values hidden too, and the run records the hashes when
   * they changed.
   */
  async resolveSource(): Promise<void> {
    const { variant, run, hashes } = this.input;
    if (!variant.resolve) return;
    await variant.resolve({
      status: (text) => this.output.status(text),
      details: async (extra) => {
        await run?.resolveSource({ extra });
      },
      redact: (more) => this.output.extend(more),
    });
    // The step may have rewritten the compose file (and the variables): compose runs what is there now.
    this.stack = await this.parts.readStack(this.stack);
    this.output.extend(this.stack.variables.map((v) => v.value));
    const now = this.parts.hashes(this.stack);
    if (now.compose !== hashes.compose || now.env !== hashes.env)
      await run?.resolveSource({ composeHash: now.compose, envHash: now.env });
  }

  /** The provider's scope checked (for an `up`) and its values read: compose gets them, output hides them. */
  async resolveSecrets(): Promise<void> {
    if (this.input.operation === 'up') await this.parts.checkProviderScope(this.stack, this.how);
    if (this.stack.secretProvider === null) return;
    this.output.notice(`Resolving secrets from ${this.stack.secretProvider}`);
    this.secrets = await this.parts.resolveProvider(
      this.stack,
      this.parts.stackDir(this.stack),
      this.timeoutMs,
    );
    this.output.extend(Object.values(this.secrets));
  }

  /**
   * What the run deploys recorded (deploy history), beside the engine's look for containers an
   * interrupted compose left (the stack is claimed: no compose of it runs meanwhile) and compose's place
   * and target made ready; all of it ends before the last look at a stop (a stop during it must not let
   * compose start after the server cancelled the running ones).
   */
  async recordContent(): Promise<PreparedCompose> {
    const { operation, run } = this.input;
    const stack = this.stack;
    const renamed = operation === 'up' ? this.parts.lookForRenamed(this.environment, stack.name) : undefined;
    const [, made] = await allEnded([
      run && operation === 'up' ? this.parts.recordContent(run, stack) : Promise.resolve(),
      this.prepareCompose(),
    ]);
    return { ...made, renamed };
  }

  private async prepareCompose(): Promise<Omit<PreparedCompose, 'renamed'>> {
    const { operation, options, variant } = this.input;
    const stack = this.stack;
    const program = await this.parts.composeProgram();
    const place = await this.parts.placeOf(stack, variant);
    this.place = place;
    let composeFile = place.file;
    if (variant.pinnedCompose !== undefined) {
      composeFile = join(place.cwd, PINNED_COMPOSE_FILE);
      await writeFile(composeFile, variant.pinnedCompose);
    }
    const target: ComposeTarget = {
      command: program.argv,
      generation: program.generation,
      project: stack.name,
      composeFile,
      overrides: place.overrides,
      ...(program.generation === 'v1' && options.pull
        ? { pullable: await this.parts.pullable(stack, place) }
        : {}),
    };
    const env = composeEnv(process.env, stack.variables, this.secrets, this.environment);
    // Before every deploy: the files may have changed since they were saved (security settings).
    if (operation === 'up')
      await this.parts.checkDeploy(
        stack,
        variant.pinnedCompose ?? stack.compose,
        { ...place, file: composeFile },
        env,
        this.how,
      );
    return { program, place, composeFile, target, env };
  }

  private secondsLeft(): number {
    return Math.max(1, Math.ceil((this.deadline - Date.now()) / 1000));
  }

  /**
   * Compose's steps, one process each, every line through the output; a failed step may add one that
   * runs the operation another way (a start after a down, a broken file). Then, for an `up`, whether
   * the services came up: v1's `up` does not wait for them, v2's stops at a one-shot.
   */
  async composeSteps(prepared: PreparedCompose): Promise<void> {
    const { program, place, composeFile, target, env, renamed } = prepared;
    const { operation, options, slot } = this.input;
    const stack = this.stack;
    const environment = this.environment;
    const stderrTail = this.stderrTail;
    const steps = composeSteps(target, operation, options, this.secondsLeft());
    /** The last step's output held v2's `up --wait` giving up on a container. */
    let waitGaveUp = false;
    /** The job's time-out ended v2's `up --wait` (both have the same deadline): the engine names who is late. */
    let waitTimedOut = false;
    for (const [index, step] of steps.entries()) {
      this.halt();
      // A compose stopped while recreating left a renamed container that this `up` would trip over
      // (looked for beside the content when it is the first step; after another step, again).
      if (step.subcommand === 'up')
        await this.removeRenamed(
          (index === 0 ? renamed : undefined) ?? this.parts.lookForRenamed(environment, stack.name),
        );
      this.halt();
      this.output.notice(`Running compose ${step.subcommand}`);
      const child = this.parts.spawn(
        {
          argv: step.argv,
          cwd: step.cwd ?? place.cwd,
          env,
          timeoutMs: Math.max(1, this.deadline - Date.now()),
        },
        { overlapBytes: this.output.redactor.longestBytes },
      );
      slot.process = child;
      // Read in the same turn as the spawn (see groupOf), recorded so a restart after a crash can stop it.
      const group = child.pid === undefined ? undefined : this.parts.groupOf(child.pid);
      if (group) this.output.composeStarted(group);
      let usage = false;
      let noContainer = false;
      waitGaveUp = false;
      // Subscribed at once: the runner replays what came before the first subscriber. A throw in here
      // stops compose and fails this job (below), never the process.
      const feed = consumeLines(child, (line) => {
        this.printed += 1;
        this.summary.add(line.line);
        if (isUsageLine(line.line, step.subcommand)) usage = true;
        if (step.subcommand === 'start' && isNoContainerToStartLine(line.line)) noContainer = true;
        if (step.subcommand === 'up' && isWaitFailureLine(line.line)) waitGaveUp = true;
        const shown = this.output.output(line);
        if (shown === null) return;
        if (line.stream === 'stderr' && !isV2ProgressLine(line.line)) {
          stderrTail.push(shown);
          if (stderrTail.length > ERROR_TAIL_LINES) stderrTail.shift();
        }
      });
      this.output.pace(child);
      this.exit = await child.exit;
      this.output.endStep();
      const exit = this.exit;
      waitTimedOut = exit.timedOut && step.subcommand === 'up' && step.argv.includes('--wait');
      let failure: string | undefined;
      if (feed.faulted) {
        const reason = feed.fault instanceof Error ? feed.fault : new Error(String(feed.fault));
        process.stderr.write(
          `stacks: job ${this.input.job.id}: an output line could not be handled; compose was stopped: ${this.output.redactor.text(reason.stack ?? reason.message)}\n`,
        );
        failure = `${LINE_FAULT_MESSAGE}: ${reason.message}`;
      } else if (exit.exitCode !== 0) {
        failure = describeFailure(exit);
        if (exit.timedOut)
          failure = `Timed out after ${this.parts.config.jobs.timeoutSeconds} s; compose was stopped`;
        else if (exit.cancelled && this.parts.stopping()) failure = SERVER_STOPPING_MESSAGE;
        else if (exit.cancelled && slot.cancel) failure = cancelledMessage(slot.cancel.userId);
      } else if (usage) {
        // v1 answers an argument it does not know with its usage and exit code 0 (compose/args.ts).
        failure = usageFailure(step.subcommand, program);
      }
      this.failure = failure;
      if (failure === undefined) continue;
      if (operation === 'start' && index === 0 && noContainer && !exit.timedOut && !exit.cancelled) {
        // After a down there is nothing to start: `up` creates the containers (checked as a deploy is).
        await this.parts.checkProviderScope(stack, this.how);
        await this.parts.checkDeploy(stack, stack.compose, { ...place, file: composeFile }, env, this.how);
        this.output.notice(START_CREATES_MESSAGE);
        steps.push(...composeSteps(target, 'up', NO_OPTIONS, this.secondsLeft()));
        this.failure = undefined;
        stderrTail.length = 0;
        continue;
      }
      if (operation !== 'up' && index === 0 && !exit.timedOut && !exit.cancelled && !usage && !feed.faulted) {
        const fallback = await this.parts.brokenFileStep(program, stack, place, operation, env);
        if (fallback) {
          this.output.notice(fallback.why);
          steps.push(fallback.step);
          this.failure = undefined;
          stderrTail.length = 0;
          continue;
        }
      }
      // Compose's own words for an engine it cannot reach differ (v1 ends in a Python traceback):
      // the engine is asked, and when it does not answer the failure names it, as the stack status does.
      if (exit.exitCode !== 0 && !exit.timedOut && !exit.cancelled && !feed.faulted) {
        const down = await this.parts.engineDown(environment);
        if (down !== undefined) {
          failure = `${down} (compose ${step.subcommand}: ${failure})`;
          stderrTail.splice(0, stderrTail.length - 1);
        }
      }
      const next = steps[index + 1];
      if (next) failure = `${failure} (compose ${step.subcommand}; ${notRun(next.subcommand)})`;
      if (stderrTail.length > 0 && !feed.faulted && !usage) failure = `${failure}:\n${stderrTail.join('\n')}`;
      this.failure = failure;
      break;
    }
    const gaveUp = (waitGaveUp || waitTimedOut) && !this.exit.cancelled && !this.stopped();
    if (operation === 'up' && (this.failure === undefined ? program.generation === 'v1' : gaveUp))
      await this.watch(waitTimedOut);
  }

  /** After `up`: whether the services came up decides the deploy (compose's word stands when unasked). */
  private async watch(waitTimedOut: boolean): Promise<void> {
    // After the time-out, one look: which containers were not ready when it came.
    const until = waitTimedOut ? Date.now() : this.deadline;
    const watched = await this.parts.watchServices(
      this.environment,
      this.stack,
      this.summary.containerNames(),
      until,
      (text) => this.output.notice(text),
      () => this.stopped(),
    );
    if (watched === undefined || (watched.ready && waitTimedOut)) {
      // The engine could not be asked, or compose was stopped before it was done: its answer stands.
    } else if (watched.ready) {
      this.failure = undefined;
      // Compose's exit code said `--wait` gave up on a one-shot that completed: the deploy succeeded.
      if (this.exit.exitCode !== 0) this.exit = { ...this.exit, exitCode: 0 };
    } else if (this.parts.stopping()) this.failure = SERVER_STOPPING_MESSAGE;
    else if (this.input.slot.cancel) this.failure = cancelledMessage(this.input.slot.cancel.userId);
    else this.failure = watched.error;
  }

  /**
   * Before an `up`: the containers an interrupted compose left under its temporary name are removed,
   * each a line of the output, and the run records their names. An engine that cannot be asked is a
   * status, and the `up` runs on: compose says what is wrong with the engine in its own words.
   */
  private async removeRenamed(looked: Promise<RenamedLook>): Promise<void> {
    const leftovers = await looked;
    if ('notLooked' in leftovers)
      return this.output.notice(
        `Containers left by an interrupted compose were not looked for: ${leftovers.notLooked}`,
      );
    if (leftovers.length === 0) return;
    const result = await this.parts.removeRenamed(this.environment, leftovers, this.deadline);
    if (result === undefined) return;
    for (const name of result.removed) this.output.say(removedLine(name));
    for (const { name, reason } of result.failed) this.output.say(notRemovedLine(name, reason));
    const run = this.input.run;
    if (run && result.removed.length > 0)
      await run.leftoversRemoved(result.removed.map((name) => this.output.redactor.text(name)));
  }

  /** Side by side, all ended before the run is completed: what the compose steps leave to record. */
  async settle(prepared: PreparedCompose): Promise<void> {
    const { operation, run } = this.input;
    const environment = this.environment;
    const deployed = this.failure === undefined && operation === 'up';
    await allEnded([
      this.summary.unsureCreations().size > 0
        ? this.parts.confirmCreations(environment, this.stack.name, this.summary)
        : Promise.resolve(),
      // What v1 needs to stop a project whose file is broken later (brokenFileStep).
      deployed
        ? copyFile(prepared.composeFile, join(prepared.place.cwd, LAST_GOOD_FILE)).catch(() => undefined)
        : Promise.resolve(),
      deployed && run ? this.parts.recordImages(run, environment, this.stack.name) : Promise.resolve(),
    ]);
  }

  /**
   * The end: the error redacted (with the values the provider gives now too), the stack and the slot
   * let go, then the run's completion after the job's output, the operation's Activity, the job's result.
   */
  async complete(): Promise<JobResult> {
    const { variant, slot, job, run } = this.input;
    // Compose has read it; the next redeploy writes its own.
    if (variant.pinnedCompose !== undefined && this.place !== undefined)
      await rm(join(this.place.cwd, PINNED_COMPOSE_FILE), { force: true }).catch(() => undefined);
    // Cancelled: whatever else went wrong meanwhile, the person's cancel is what ended it.
    const cancelledBy =
      slot.cancel !== undefined && this.failure !== undefined ? slot.cancel.userId : undefined;
    if (cancelledBy !== undefined) this.failure = cancelledMessage(cancelledBy);
    const success = this.failure === undefined;
    // Spec, Output redaction 3: the stored error is redacted with secrets the provider gives now too.
    if (!success && this.stack.secretProvider !== null) {
      try {
        const later = await this.parts.resolveProvider(
          this.stack,
          this.parts.stackDir(this.stack),
          this.timeoutMs,
        );
        this.output.extend(Object.values(later));
      } catch {
        // The values resolved at the start still apply; a provider failing now changes nothing else.
      }
    }
    let error: string | undefined;
    if (!success) {
      const redacted = this.output.redactor.text(this.failure ?? '').trim();
      error = redacted.length > 0 ? redacted : WITHHELD_ERROR_MESSAGE;
    }
    this.input.release();
    if (run) {
      try {
        // The job's output first: a run whose output the store could not take is not `success`.
        await job.recorded();
        await run.complete({
          success,
          exit: this.exit,
          error,
          redactor: this.output.redactor,
          summary: this.summary.summary(),
          outputLines: this.printed,
          ...(cancelledBy !== undefined ? { cancelledBy } : {}),
          ...(job.error !== undefined ? { outputError: recordingReason(job.error) } : {}),
        });
      } catch (recordError) {
        process.stderr.write(
          `stacks: run ${run.runId} could not be completed: ${(recordError as Error).message}\n`,
        );
      }
    }
    const exitCode = this.exit.exitCode ?? undefined;
    if (this.input.recordOperation) {
      try {
        await this.input.recordOperation({
          success,
          ...(error !== undefined ? { error } : {}),
          ...(exitCode !== undefined ? { exitCode } : {}),
          ...(cancelledBy !== undefined ? { cancelledBy } : {}),
        });
      } catch (recordError) {
        process.stderr.write(
          `stacks: operation ${job.id} could not be kept in its stack's activity: ${(recordError as Error).message}\n`,
        );
      }
    }
    try {
      return await job.finish({
        success,
        ...(error !== undefined ? { error } : {}),
        ...(exitCode !== undefined ? { exitCode } : {}),
      });
    } catch (recordError) {
      return {
        type: 'result',
        success: false,
        error: `The job's output could not be recorded: ${(recordError as Error).message}`,
        ...(exitCode !== undefined ? { exitCode } : {}),
        output: [],
      };
    }
  }
}
