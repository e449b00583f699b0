/**
 * The seams between the stacks service's parts: configuration and users (config/stacks-config.ts, auth.ts), the
 * compose runner (compose/runner.ts), redaction (redaction.ts), and the recorder and jobs that use them.
 * Each part owns its module; these types are what the others may rely on.
 */
import type { Observable } from 'rxjs';
import type { JobResult } from '../../projections/jobs.js';
import type { DeployOptions, EnvironmentId, Trigger } from '../../streams/stacks.js';

export interface Environment {
  id: number;
  name: string;
  dockerHost?: string;
  /** What non-admin users' compose files may do there (compose/security.ts); absent: the defaults. */
  security?: ComposeSecurity;
}

/** An environment's security settings for non-admin users' compose files (docs/security.md). */
export interface ComposeSecurity {
  /** `stack`: every path stays in the stack's folder or git tree; `unrestricted`: anywhere but the data folder. */
  composePaths: 'stack' | 'unrestricted';
  /** false: no bind mount outside the stack's folder; a list: only under these host folders. */
  bindMounts: false | readonly string[];
  privileged: boolean;
  hostNamespaces: boolean;
  devices: boolean;
  capAdd: boolean;
  sysctls: boolean;
}

/** A grant's environments: ids (null = local) or every environment. */
export type GrantEnvironments = ReadonlyArray<number | null> | '*';

export interface Grant {
  resource: string;
  actions: readonly string[];
  /** Absent = the global permission only: no environment-scoped one. */
  environments?: GrantEnvironments;
}

export interface User {
  name: string;
  token: string;
  admin: boolean;
  grants: readonly Grant[];
  environmentAccess: ReadonlyArray<number> | '*';
  /**
   * How the local environment (null) is checked for this user, from the config's top-level
   * `localEnvironment`: absent, the spec's rule (the global check: any grant of the action reaches it);
   * `explicit`, only a grant listing `null` (or `"*"`) does (docs/security.md#the-local-environment).
   */
  localEnvironment?: 'explicit';
}

/** A configured secret provider (secret-providers.ts). */
export interface SecretProviderConfig {
  /** The program (a relative path already resolved against the config file's folder) and its arguments. */
  command: readonly string[];
  /**
   * The environments whose stacks may bind it and get its values (docs/security.md#secret-providers); absent:
   * none, only stacks wholly written by admins.
   */
  environments?: GrantEnvironments;
}

/** The config file (`--config`) with its defaults filled in. */
export interface StacksConfig {
  environments: readonly Environment[];
  /** The local environment's security settings (config `localEnvironmentSecurity`); absent: the defaults. */
  localSecurity?: ComposeSecurity;
  users: readonly User[];
  /** null: not configured, found at start (`docker compose`, else `docker-compose`: compose/program.ts). */
  compose: { command: readonly string[] | null };
  /** By name: a Map, so a stack's provider named `constructor` is found only when configured. */
  secretProviders: ReadonlyMap<string, SecretProviderConfig>;
  deployLogs: { budgetBytes: number; remeasureBytes: number };
  /** `maxConcurrent`: compose jobs that run at once; later ones wait `queued` (jobs/queue.ts). */
  jobs: { timeoutSeconds: number; retentionHours: number; maxConcurrent: number };
  /** The scheduled image update check (engine/image-updates.ts); 0 minutes: only on demand. */
  imageUpdates: { checkEveryMinutes: number };
  /** Deploy-run retention per environment (null = local; docs/stacks.md#deploy-run-retention). Absent: none. */
  retention?: ReadonlyMap<number | null, { keepRuns: number | null; keepDays: number | null }>;
  /** Notification channels (docs/stacks.md#notifications). Absent: none. */
  notifications?: readonly NotificationChannel[];
}

export interface NotificationChannel {
  name: string;
  type: 'webhook' | 'ntfy' | 'gotify' | 'slack';
  url: string;
  /** Gotify's application token; ntfy's access token (Bearer). */
  token?: string;
  events: readonly string[];
  /** Only these stacks / environments (null = local); absent = all. */
  stacks?: readonly string[];
  environments?: ReadonlyArray<number | null>;
  /** Attempts in all (default 6), and the first retry's delay, doubled each time (default 2,000 ms). */
  maxAttempts: number;
  retryBaseMs: number;
}

export type StackAction = 'view' | 'edit';

/** A stack variable; secret or not, its value is redacted from output (spec: Output redaction 1). */
export interface StackVariable {
  name: string;
  value: string;
  secret: boolean;
}

/** One line of a child's output, as split from its stdout or stderr. */
export interface OutputLine {
  stream: 'stdout' | 'stderr';
  line: string;
  /**
   * Set when the line was longer than the limit: `line` is its start, running past the cut (see
   * LineSplitter); it is shown up to `keep` code units, then `marker` (`Redactor.cut`).
   */
  cut?: { keep: number; marker: string };
}

export interface ComposeExit {
  /** The process's exit code; null when it was killed (time-out, cancel) or died of a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  cancelled: boolean;
  /** Set when the program could not be started at all (ENOENT, EACCES...). */
  spawnError?: string;
}

/** A running compose process: its lines (complete when the process has ended) and its end. */
export interface ComposeProcess {
  readonly lines: Observable<OutputLine>;
  readonly exit: Promise<ComposeExit>;
  /** Kills the process tree; `exit` then resolves with `cancelled: true`. */
  cancel(): void;
  /** The child's pid, which is also its process group's id; undefined when it could not be started. */
  readonly pid: number | undefined;
  /**
   * Stops reading the child's output until `resume()`: a consumer that cannot keep up holds the child
   * back (it blocks on a full pipe) rather than letting the output pile up in memory.
   */
  pause?(): void;
  resume?(): void;
}

export interface ComposeInvocation {
  /** The compose command (config `compose.command`) followed by its arguments; never run by a shell. */
  argv: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
}

/**
 * Redaction over a fixed list of values: a value of more than 5 characters becomes `***`;
 * a line holding a value of 5 characters or fewer is withheld. One pass per line for all values.
 */
export interface Redactor {
  /** The redacted line, or null when the line must be withheld. */
  line(text: string): string | null;
  /**
   * A line cut at `keep` code units: `text` redacted as a whole, then shown up to the cut and followed by
   * `marker`. A long value crossing the cut is masked whole; a short one overlapping the shown part
   * withholds the line. `text` must run past the cut by `longestBytes` (LineSplitter's overlap), so
   * that every value crossing the cut is in it.
   */
  cut(text: string, keep: number, marker: string): string | null;
  /** UTF-8 length of the longest value (with slack for a value ending inside a character); 0 without values. */
  readonly longestBytes: number;
  /** A multi-line text (an error message): each line redacted, withheld lines left out. */
  text(text: string): string;
  /** A redactor over these values plus `more` (secrets a provider resolved later). */
  with(more: readonly string[]): Redactor;
}

export interface StackRef {
  name: string;
  environmentId: EnvironmentId;
}

/** A started job: the answer of the streaming path, and the result the JSON path waits for. */
export interface StartedJob {
  jobId: string;
  runId: number | null;
  /** The job's result once recorded (never rejects: a failure to record becomes a failed result). */
  result: Promise<JobResult>;
}

/** What a deploy's `resolve` step (DeployVariant) may do from inside its job. */
export interface DeploySource {
  /** Reports a stage as a job status, redacted like every status. */
  status(text: string): void;
  /** Adds details to the run at once (RunSourceResolved): a git deploy's commit as soon as it is fetched. */
  details(extra: Record<string, string | number | boolean | null>): Promise<void>;
  /** More values to redact from here on (credentials of settings that changed after the start). */
  redact(values: readonly string[]): void;
}

/**
 * How a kind of deploy differs from the plain one (a git stack's: spec, Events — it reports its own
 * stages and its compose lines go to the run log only).
 */
export interface DeployVariant {
  /** Details the run records from its start beside the common ones (a git stack's repository, branch). */
  extra?: Record<string, string | number | boolean | null>;
  /** Status messages the job reports first: stages done while preparing, before the job started. */
  stages?: readonly string[];
  /**
   * Runs inside the job before compose, with the stack still claimed, so the streaming answer does not
   * wait for it (spec, Endpoints rule 4): a git deploy fetches its commit and writes compose.yaml here.
   * The stack is read again after it. When it throws, compose does not run: the job fails and the run
   * closes `failed` with the redacted message.
   */
  resolve?: (source: DeploySource) => Promise<void>;
  /** false: compose lines go to the run log only, never to the job. Default true. */
  forwardLines?: boolean;
  /** More values to redact beside the stack's variables (a repository's credentials). */
  redact?: readonly string[];
  /**
   * The compose text compose is given instead of the stack's file, which the run records: a redeploy's,
   * its images pinned (history/images.ts). Written beside it (same folder, so relative paths hold).
   */
  pinnedCompose?: string;
}

/**
 * Where compose runs for a stack: a plain stack in its folder, on its `compose.yaml`; a git
 * stack in its checked-out tree, on the file at `composePath` there, whose folder is the working and
 * project directory (so `env_file`, the project's `.env` and build contexts resolve in the tree).
 */
export interface ComposePlace {
  /** The folder the paths a compose file names must stay in: the stack's folder or the git tree. */
  root: string;
  /** The working directory: the compose file's folder. */
  cwd: string;
  /** The compose file compose is given. */
  file: string;
  /** Override files compose is given after it, in order (a git stack's `files`). */
  overrides: string[];
}

/** Gives a git stack its checked-out tree (git-stacks.ts); undefined for a stack that is no git stack. */
export interface ComposeTrees {
  /**
   * The place of the stack, its tree at `commit` (a redeploy of a recorded run), else as last checked
   * out; the tree's compose file made the stack's compose text.
   */
  place(stack: StackRef & { compose: string }, commit: string | undefined): Promise<ComposePlace | undefined>;
}

/** What a prepared deploy's preparation (run with the stack claimed) decided. */
export interface PreparedDeploy {
  kind: 'deploy' | 'create';
  options: DeployOptions;
  trigger: Trigger;
  userId: string | null;
  variant: DeployVariant;
}
