import { KEY_STREAM_PREFIX } from './system.js';

/**
 * The stacks service's event catalog. Stream categories:
 * - `stack-job-<jobId>`: one job (deploy, create-and-start, compose save with restart, start, stop,
 *   restart, down): what it printed and how it ended. Deleted after `jobs.retentionHours`, and
 *   with the run it belongs to, so no copy of a deleted run's output stays.
 * - `stack-operation-<jobId>`: one stack operation (start, stop, restart, down) as its stack's Activity
 *   keeps it (OperationRecorded): who, what, when, how it ended and the tail of its output. Kept after its
 *   job is swept; the newest `ACTIVITY_KEPT` of a stack stay, older ones are deleted with their key.
 * - `deploy-run-<runId>`: one recorded deploy run (a `stack_deploy` schedule execution row). Created with
 *   expectedRevision `no_stream`, which is what makes run ids unique (also across instances).
 * - `stack-<env id or "local">-<name>`: a stack's mutations (see `stackStream`), git settings included.
 * - `git-webhook-<env id or "local">-<name>`: the webhook deliveries a git stack acted on.
 * - `schedule-execution-<id>`: one run of the `deploy_log_reconcile` schedule (its own id sequence).
 * - `stacks-settings`: the general settings.
 * - `key-run-<runId>`, `key-job-<jobId>`, `key-operation-<jobId>`: the key a run's output (its job's included), or a job's
 *   without a run, is sealed with (OutputKeyCreated). Deleting the run (or sweeping the job) deletes it:
 *   what was sealed with it can no longer be read, in this log or in any copy of it (crypto-shredding).
 * Output lines reach events only after redaction, and (since the `…Sealed` events) only sealed with
 * their key: AES-256-GCM, the key's scope as additional data. Texts that are not output (statuses of a
 * run, exit codes, counts, hashes, options, the server's own messages) stay in clear, so lists, reads,
 * the reconcile and rebuilds need no key. Logs written before hold the clear-text events
 * (JobOutput, JobStatusReported, JobFinished, RunCompleted), which every reader still takes.
 */
export const JOB_STREAM_PREFIX = 'stack-job-';

/** Lines withheld one after the other in a run's output: after which log line, and how many. */
export interface WithheldPlace {
  after_line: number;
  lines: number;
}
/** Places RunLinesWithheld lists at most (the event stays small whatever the log's length). */
export const MAX_WITHHELD_PLACES = 1_000;
export const RUN_STREAM_PREFIX = 'deploy-run-';
export const jobStream = (jobId: string) => `${JOB_STREAM_PREFIX}${jobId}`;
export const OPERATION_STREAM_PREFIX = 'stack-operation-';
export const operationStream = (jobId: string) => `${OPERATION_STREAM_PREFIX}${jobId}`;
/** Operations a stack's Activity keeps, the newest; an older one's stream and key are deleted. */
export const ACTIVITY_KEPT = 100;
export const runStream = (runId: number) => `${RUN_STREAM_PREFIX}${runId}`;

/** The scope a key seals: one run (its job included) or one job without a run. */
export type KeyScope = `run-${number}` | `job-${string}` | `content-${string}` | `operation-${string}`;
export const runKeyScope = (runId: number): KeyScope => `run-${runId}`;
export const jobKeyScope = (jobId: string): KeyScope => `job-${jobId}`;
/** The scope of one kept stack operation's output (its Activity entry): outlives the job's own key. */
export const operationKeyScope = (jobId: string): KeyScope => `operation-${jobId}`;
/** The scope of one stored deploy content (deploy history): deleted with the last run that refers to it. */
export const contentKeyScope = (contentId: string): KeyScope => `content-${contentId}`;
/** The scope of a job's output: its run's when it records one. */
export const jobOutputScope = (jobId: string, runId: number | null): KeyScope =>
  runId === null ? jobKeyScope(jobId) : runKeyScope(runId);
export const keyStream = (scope: KeyScope) => `${KEY_STREAM_PREFIX}${scope}`;
/** What a sealed text reads as once its key is deleted (a run whose delete stopped half way, say). */
export const OUTPUT_SHREDDED = '[output deleted]';

export const EXECUTION_STREAM_PREFIX = 'schedule-execution-';
export const executionStream = (executionId: number) => `${EXECUTION_STREAM_PREFIX}${executionId}`;
/** General settings of the stacks service (`GET`/`POST /api/settings/general`). */
export const SETTINGS_STREAM = 'stacks-settings';

/** An environment id; null is the local environment. */
export type EnvironmentId = number | null;
export type Trigger = 'manual' | 'webhook' | 'cron';
export type ReconcileTrigger = 'manual' | 'cron';
export type JobKind = 'deploy' | 'create' | 'compose_save' | 'start' | 'stop' | 'restart' | 'down';
/** The jobs that are a stack operation of their own, recording no run: audited and kept in Activity. */
export type StackOperation = 'start' | 'stop' | 'restart' | 'down';
const STACK_OPERATIONS: readonly StackOperation[] = ['start', 'stop', 'restart', 'down'];
export const isStackOperation = (kind: JobKind): kind is StackOperation =>
  (STACK_OPERATIONS as readonly JobKind[]).includes(kind);
/** How a kept stack operation ended. */
export type OperationStatus = 'success' | 'failed' | 'cancelled';

export interface DeployOptions {
  pull: boolean;
  build: boolean;
  forceRecreate: boolean;
}

/**
 * A compose process group (the runner starts compose detached, as the leader of a group of its own), and
 * what tells it apart from a later process or group that reuses its id: the leader's start time, and the
 * host and boot it ran in. Only an instance on that host can look at it; after a reboot it is gone.
 */
export interface ComposeGroup {
  /** The group's id: the leader's pid. */
  pgid: number;
  /** The leader's start time, in clock ticks after boot (`/proc/<pid>/stat`, field 22). */
  start_ticks: number;
  /** `/proc/sys/kernel/random/boot_id` when it started. */
  boot_id: string;
  hostname: string;
}

/**
 * Counts parsed from compose output (v1 or v2); absent from a run that printed no line (unknown, not
 * zero). A count is only what was seen: each group of keys is present only when compose printed a line
 * of that group (a container event; a pull; a build), so a 0 is a seen 0, never a line left
 * unrecognised. Runs recorded by older builds hold all six counts always (and no `buildStepsCached`).
 */
export interface DeploySummary {
  containersCreated?: number;
  containersStarted?: number;
  containersRecreated?: number;
  containersRemoved?: number;
  imagesPulled?: number;
  imagesBuilt?: number;
  /** Build steps answered from the build cache (BuildKit's `#N CACHED`, the classic `---> Using cache`). */
  buildStepsCached?: number;
}

/** A job's messages as `GET /api/jobs/{id}` and its event stream give them (spec, Events). */
export type JobMessage =
  | { type: 'line'; line: string }
  | { type: 'status'; status: string }
  | { type: 'result'; success: boolean; error?: string; exitCode?: number; output: string[] };

/** How a run of this service ends (RunCompleted). */
type RunOutcome = 'success' | 'failed' | 'adopted' | 'cancelled';

/** Run statuses; anything else counts as non-terminal for deletion. */
export const TERMINAL_RUN_STATUSES = [
  'success',
  'adopted',
  'failed',
  'skipped',
  'warning',
  'error',
  'cancelled',
  'stale',
] as const;

export interface StacksEventMap {
  JobStarted: {
    job_id: string;
    kind: JobKind;
    stack: string;
    environment_id: EnvironmentId;
    user_id: string | null;
    /** The run this job records, or null for jobs that record none (start, stop, compose save...). */
    run_id: number | null;
  };
  /** Redacted output lines in arrival order, batched (one event per flush, not per line). */
  JobOutput: { job_id: string; lines: string[] };
  JobStatusReported: { job_id: string; status: string };
  /**
   * Compose started for a job that records no run (start, stop, restart, down), leading its own process
   * group: see RunComposeStarted, which a recorded deploy has instead. Stands for no message of the job.
   */
  JobComposeStarted: { job_id: string; group: ComposeGroup };
  /**
   * The job waits for a compose slot (config `jobs.maxConcurrent`): `ahead` jobs waited before it when
   * it asked. Appended with JobStarted; JobDequeued follows once it holds a slot (src/stacks/jobs/queue.ts).
   * Neither stands for a message of the job.
   */
  JobQueued: { job_id: string; ahead: number; limit: number };
  JobDequeued: { job_id: string };
  /**
   * Someone asked to cancel the running job (`POST /api/jobs/{id}/cancel`): its compose process group is
   * stopped and the job (and its run) end `cancelled`. In order with its messages; stands for none.
   */
  JobCancelRequested: { job_id: string; user_id: string | null };
  /** The job's result; nothing follows it. `output` is the tail of the redacted output. */
  JobFinished: {
    job_id: string;
    success: boolean;
    error?: string;
    exitCode?: number;
    output: string[];
  };
  /**
   * The key a scope's output is sealed with (stream `key-<scope>`, created with `no_stream`): 32 random
   * bytes, base64. Deleting the stream shreds everything sealed with it.
   */
  OutputKeyCreated: { scope: KeyScope; key: string };
  /** JobOutput, sealed: `sealed` holds the JSON array of the lines; `count` (in clear) is how many. */
  JobOutputSealed: { job_id: string; count: number; sealed: string };
  /** JobStatusReported, sealed: `sealed` holds the status text. */
  JobStatusSealed: { job_id: string; sealed: string };
  /** JobFinished, sealed: `sealed` holds the JSON of `{error?, output}`; success and exit code in clear. */
  JobFinishedSealed: { job_id: string; success: boolean; exitCode?: number; sealed: string };
  RunStarted: {
    run_id: number;
    job_id: string;
    stack: string;
    environment_id: EnvironmentId;
    trigger: Trigger;
    user_id: string | null;
    options: DeployOptions;
    compose_hash: string;
    env_hash: string;
    /** The log file's name (`<runId>.log`), under `<data>/deploy-logs/<env id or "null">/`. */
    log_file: string;
    /** Extra details a kind of deploy adds (a git stack's commit, say). */
    extra?: Record<string, string | number | boolean | null>;
  };
  /**
   * What a deploy learned about its source after the run started (a git deploy fetches inside its job,
   * so the answer does not wait for the remote): `extra` is merged into the run's details (later keys
   * win); the hashes, when present, replace the ones RunStarted recorded, because the deploy rewrote the
   * compose file (or the variables) it runs. A run may have several: a git deploy records its commit as
   * soon as it is fetched, then the hashes once compose.yaml is written from it.
   */
  RunSourceResolved: {
    run_id: number;
    extra?: Record<string, string | number | boolean | null>;
    compose_hash?: string;
    env_hash?: string;
  };
  /**
   * Compose started for this run, leading its own process group (RunStarted comes before, RunCompleted
   * after): a server that dies during the deploy leaves the group running, and the next start on this
   * host stops it before the stack is free again (src/stacks/instances/interrupted-work.ts).
   */
  RunComposeStarted: { run_id: number; group: ComposeGroup };
  /**
   * The run's job waits for a compose slot (config `jobs.maxConcurrent`; `ahead` jobs waited before it):
   * appended with RunStarted, so the run is `queued` from its first answer; RunDequeued (`running`)
   * follows once the job holds a slot. A run closed while queued has no RunDequeued.
   */
  RunQueued: { run_id: number; ahead: number; limit: number };
  RunDequeued: { run_id: number };
  /**
   * Before an `up` of the run, containers an interrupted compose left under its temporary name
   * (`<12 hex>_<name>`) were removed (src/stacks/compose/renamed-containers.ts); their names, redacted.
   */
  RunLeftoversRemoved: { run_id: number; containers: string[] };
  /**
   * Output lines redaction withheld (each held a value too short to replace with `***`), recorded as
   * they come and once more before the completion when something changed: `lines` withheld so far in
   * all, and where, as runs of lines withheld one after the other (`after_line`: the log line they
   * followed, 0 before the first; the log file itself keeps only the lines shown). `from`: the index of
   * the run's first place `at` holds, the places before it being those of the earlier RunLinesWithheld
   * (absent: 0, `at` is every place). At most MAX_WITHHELD_PLACES places; withheld lines past the last
   * are in `lines` only. Counts and places only, never text: in clear like the run's other counts.
   */
  RunLinesWithheld: { run_id: number; lines: number; from?: number; at: WithheldPlace[] };
  /** The environment's log budget was reached: later lines were dropped and one notice line written. */
  RunTruncated: { run_id: number; budget_bytes: number; used_bytes: number };
  RunCompleted: {
    run_id: number;
    /**
     * `adopted`: the run of a stack adopted from a compose project the engine ran before chronicle
     * managed it (src/stacks/stack/adoption.ts): compose did not run; the run records what was running.
     */
    status: RunOutcome;
    /** From the process when known; otherwise 0 for success and 1 for failure (spec: consistent). */
    exit_code: number;
    exit_code_known: boolean;
    /** Redacted; a generic placeholder when redaction withholds all of it; null on success. */
    error_message: string | null;
    summary?: DeploySummary;
    /** Of a `cancelled` run: who cancelled it (null: a user without an id). */
    cancelled_by?: string | null;
  };
  /**
   * RunCompleted with its error message sealed with the run's key (`error_sealed`, null on success);
   * everything else in clear. RunCompleted itself is still written for a message that is the server's
   * own (a run closed after its server stopped), not output.
   */
  RunCompletedSealed: {
    run_id: number;
    status: RunOutcome;
    exit_code: number;
    exit_code_known: boolean;
    error_sealed: string | null;
    summary?: DeploySummary;
    /** Of a `cancelled` run: who cancelled it. */
    cancelled_by?: string | null;
  };
  RunDeleted: { run_id: number; user_id: string | null };
  /**
   * A stack operation ended (stream `stack-operation-<jobId>`, created with `no_stream`), appended before
   * its job's result, so whoever sees the job done finds it in the Activity. Sealed with the scope
   * `operation-<jobId>`: `sealed`, the JSON of the job's output tail (its result's `output`: the last 200
   * lines, at most 128 KiB), and `sealed_error`, the redacted error of one that did not succeed — apart,
   * so that a list of operations opens only their errors. Clear: everything else.
   */
  OperationRecorded: {
    job_id: string;
    operation: StackOperation;
    stack: string;
    environment_id: EnvironmentId;
    user_id: string | null;
    /** When the job started (its JobStarted); the event's own time is when it ended. */
    started_at: string;
    status: OperationStatus;
    exit_code?: number;
    /** Of a `cancelled` one: who cancelled it. */
    cancelled_by?: string | null;
    /** Output lines it printed (after redaction), and how many of them `sealed` keeps (the last ones). */
    lines: number;
    kept_lines: number;
    sealed: string;
    sealed_error?: string;
  };
  /**
   * Stack mutations, in stream `stack-<env id or "local">-<name>` (see `stackStream`). They name variables
   * and secret flags, never values; the files under `<data>/stacks/` hold the stack itself.
   */
  StackCreated: {
    stack: string;
    environment_id: EnvironmentId;
    compose_hash: string;
    env_hash: string;
    variables: StackVariableFlags[];
    secret_provider: string | null;
    user_id: string | null;
  };
  StackComposeSaved: {
    stack: string;
    environment_id: EnvironmentId;
    compose_hash: string;
    user_id: string | null;
  };
  StackVariablesSet: {
    stack: string;
    environment_id: EnvironmentId;
    env_hash: string;
    variables: StackVariableFlags[];
    user_id: string | null;
  };
  StackDeleted: { stack: string; environment_id: EnvironmentId; user_id: string | null };
  /**
   * A git stack's settings (stack stream), on create and on every settings change. The repository is
   * recorded without credentials; the webhook secret only as whether one is set. The settings with
   * credentials and secret live in the stack's `git.json`, as variable values live in its `.env`.
   */
  GitStackConfigured: {
    stack: string;
    environment_id: EnvironmentId;
    repository: string;
    branch: string;
    compose_path: string;
    auto_deploy_cron: string | null;
    webhook_secret_set: boolean;
    user_id: string | null;
  };
  /**
   * The override files of a git stack (stack stream): the compose files given after `compose_path`, in
   * order, paths in the repository. Recorded beside GitStackConfigured when they change (none: none).
   */
  GitStackFilesSet: {
    stack: string;
    environment_id: EnvironmentId;
    files: string[];
    user_id: string | null;
  };
  /**
   * A console (an exec with a terminal) was opened in one of a stack's containers (stack stream): who,
   * which container, the command it runs. What is typed in it and what it prints are never recorded.
   */
  ContainerConsoleOpened: {
    stack: string;
    environment_id: EnvironmentId;
    /** The container's name. */
    container: string;
    command: string[];
    /** Names this console in its ContainerConsoleClosed. */
    console_id: string;
    user_id: string | null;
  };
  /** The console ended: its command exited (`exit_code`), or its page left (null). */
  ContainerConsoleClosed: {
    stack: string;
    environment_id: EnvironmentId;
    container: string;
    console_id: string;
    exit_code: number | null;
    user_id: string | null;
  };
  /**
   * A signed webhook delivery a git stack acted on (stream `git-webhook-<env id or "local">-<name>`):
   * its id is remembered, so a replay of it is ignored, also after a restart.
   */
  GitWebhookDeliveryHandled: {
    stack: string;
    environment_id: EnvironmentId;
    delivery_id: string;
    outcome: GitWebhookOutcome;
    /** The run it started (`deployed`), else null. */
    run_id: number | null;
  };
  /**
   * The deploy-log reconcile found no log file for this finished run (spec, Reconcile rules 3): the run
   * is flagged `details.logMissing`, never deleted. In the reconcile's execution stream, not the run's:
   * flags are appended there many per append, where one append per run stream made flagging 50,000 runs
   * take seconds (bench/reconcile.ts).
   */
  RunLogMissing: { run_id: number; environment_id: EnvironmentId; log_file: string; execution_id: number };
  /**
   * One run of the `deploy_log_reconcile` schedule, in stream `schedule-execution-<id>` (created with
   * `no_stream`, which makes execution ids unique). Started, then what it did element by element
   * (batched: several events per append), then how it closed.
   */
  ReconcileStarted: { execution_id: number; trigger: ReconcileTrigger; user_id: string | null };
  /** A run-log file without a record, older than the grace, was deleted (spec, Reconcile rules 2). */
  OrphanLogDeleted: {
    execution_id: number;
    environment_id: EnvironmentId;
    /** The file's name (`<runId>.log`) in `<data>/deploy-logs/<env id or "null">/`. */
    file: string;
    modified_at: string;
  };
  /** One element could not be handled (a file that may not be deleted, a record that could not be flagged). */
  ReconcileElementFailed: {
    execution_id: number;
    environment_id: EnvironmentId;
    /** The file, relative to the data folder (`deploy-logs/<env>/<name>`), when the element is a file. */
    path?: string;
    /** The run, when the element is a record. */
    run_id?: number;
    error: string;
  };
  ReconcileCompleted: {
    execution_id: number;
    /** `warning`: some element failed; `failed`: the run itself threw (or the server stopped during it). */
    status: 'success' | 'warning' | 'failed';
    error_message: string | null;
    deleted_files: number;
    marked_records: number;
    failed: number;
    /** Orphan files kept because they were modified within the grace. */
    kept_fresh: number;
    /** Entries of the log folders that are not named like run logs; never touched. */
    ignored_files: number;
    environments: EnvironmentId[];
  };
  /**
   * Deploy history (docs/stacks.md#deploy-history-what-each-run-deployed-diff-redeploy-rollback): a compose text or a variable set some run deployed, stored once per
   * distinct content (the projection finds a live one by `kind` and `hash`) in stream
   * `deploy-content-<content_id>`, sealed with its own key (`key-content-<content_id>`), because a compose
   * text can hold what its output prints. When the last run referring to it is deleted, its key and its
   * stream are deleted (crypto-shredding as for run output). `hash`: sha256 of the compose text, or of
   * the JSON of the RecordedVariable list (sorted by name; a secret only as an HMAC keyed by the
   * install's hash key, never its value).
   */
  DeployContentStored: {
    content_id: string;
    kind: 'compose' | 'variables';
    hash: string;
    /** The compose text, or the JSON of the RecordedVariable list, sealed. */
    sealed: string;
  };
  /**
   * What a run deployed (run stream, just before compose ran): the stored compose text and variables by
   * their hashes, and the secret provider the stack named. Options are the run's (RunStarted), a git
   * stack's commit its details (RunSourceResolved).
   */
  RunContentRecorded: {
    run_id: number;
    compose_id: string;
    compose_hash: string;
    variables_id: string;
    variables_hash: string;
    secret_provider: string | null;
  };
  /**
   * The image each service ran after a successful `up`, as the engine reported it (run stream, before
   * RunCompleted; none when the engine has no container of the project, as with a fake compose, or
   * cannot be reached). A redeploy of the run pins each service to it.
   */
  RunImagesRecorded: { run_id: number; images: RunImage[] };
  /**
   * A stack's history settings (stack stream): `auto_rollback` redeploys the last successful run once
   * when a deploy fails; `keep_runs`/`keep_days` bound the runs the retention keeps (null: no bound of
   * the stack's own; the environment's applies).
   */
  StackHistorySettingsSet: {
    stack: string;
    environment_id: EnvironmentId;
    auto_rollback: boolean;
    keep_runs: number | null;
    keep_days: number | null;
    user_id: string | null;
  };
  /**
   * One run of the `deploy_run_retention` schedule (docs/stacks.md#deploy-run-retention), in stream
   * `retention-execution-<id>` (created with `no_stream`: ids are unique). The runs it deletes go
   * through the normal delete (RunDeleted in their own streams); these events say what it did.
   */
  RetentionStarted: { execution_id: number; trigger: ReconcileTrigger; user_id: string | null };
  RetentionCompleted: {
    execution_id: number;
    /** `warning`: some run could not be deleted; `failed`: the run itself threw. */
    status: 'success' | 'warning' | 'failed';
    error_message: string | null;
    deleted_runs: number[];
    /** Runs a policy would have deleted but that are kept: the last successful run of their stack. */
    kept_last_good: number[];
    failures: Array<{ run_id: number; error: string }>;
    /**
     * The environment of every run named above, so the row shows a caller only the runs of the
     * environments it may view (absent in events written before it was recorded).
     */
    run_environments?: Array<{ run_id: number; environment_id: EnvironmentId }>;
  };
  /**
   * Notifications (docs/stacks.md#notifications), stream `notifications`: one delivery attempt to a channel. `key`
   * (the idempotency key, sent with every attempt) is `<channel>:<position of the event notified>:<event>`, or
   * `<channel>:test:<uuid>` for a test message. Text holds no secret: statuses, names, ids only.
   */
  NotificationAttempted: {
    key: string;
    channel: string;
    event: string;
    /** The log position of the event notified (0 for a test message). */
    occurrence: number;
    attempt: number;
    ok: boolean;
    status: number | null;
    error: string | null;
    /** True: the channel's last attempt (given up, or delivered). */
    final: boolean;
  };
  /** Every notifiable event up to `position` has its deliveries started (the dispatcher's checkpoint). */
  NotificationsCheckpointed: { position: number };
  /**
   * A channel of the config that no event named before appeared (a config change and a restart): it is
   * given the occurrences after this event's own position only, never the history before it.
   */
  NotificationChannelStarted: { channel: string };
  /**
   * General settings, in stream `stacks-settings`: only the keys a change set (a partial body); the read
   * model lays them over the defaults.
   */
  SettingsChanged: {
    deploy_log_reconcile_cron?: string;
    deploy_log_reconcile_enabled?: boolean;
    deploy_run_retention_cron?: string;
    deploy_run_retention_enabled?: boolean;
    user_id: string | null;
  };
}

/** A variable as a run's record holds it: a secret one by an HMAC of its value only. */
export type RecordedVariable =
  | { name: string; secret: false; value: string }
  | { name: string; secret: true; hmac: string };

/** One service's image after `up`, as its container shows it. */
export interface RunImage {
  service: string;
  /** The reference the container was created from (`nginx:1.27`, or a pinned `sha256:…`). */
  image: string;
  /** The image's id (`sha256:…`, the digest of its configuration): names it on this engine. */
  imageId: string;
  /** A registry digest (`nginx@sha256:…`); null for an image no registry gave (built, imported). */
  repoDigest: string | null;
}

export const RETENTION_STREAM_PREFIX = 'retention-execution-';
export const retentionStream = (executionId: number) => `${RETENTION_STREAM_PREFIX}${executionId}`;
export const NOTIFICATIONS_STREAM = 'notifications';
export const CONTENT_STREAM_PREFIX = 'deploy-content-';
export const contentStream = (contentId: string) => `${CONTENT_STREAM_PREFIX}${contentId}`;

/** What a git stack's webhook did with a delivery: deployed, or ignored a push to another branch or a ping. */
export type GitWebhookOutcome = 'deployed' | 'other_branch' | 'ping';

const GIT_WEBHOOK_STREAM_PREFIX = 'git-webhook-';
export const gitWebhookStream = (environmentId: EnvironmentId, name: string) =>
  `${GIT_WEBHOOK_STREAM_PREFIX}${environmentId === null ? 'local' : environmentId}-${name}`;

/** A variable as stack events record it: its name and whether it is secret, never its value. */
export interface StackVariableFlags {
  name: string;
  secret: boolean;
}

/** A stack's stream; the environment part is a number or `local`, so it never reads as `stack-job-`. */
export const stackStream = (environmentId: EnvironmentId, name: string) =>
  `stack-${environmentId === null ? 'local' : environmentId}-${name}`;

type StacksEventType = keyof StacksEventMap;

export type NewStacksEvent = {
  [T in StacksEventType]: { type: T; data: StacksEventMap[T] };
}[StacksEventType];

export const stacksEvent = <T extends StacksEventType>(type: T, data: StacksEventMap[T]) =>
  ({ type, data }) as NewStacksEvent;
