/**
 * Git stacks (docs/stacks.md#git-stacks): a stack whose compose file is the file at `composePath` of a branch of a
 * git repository. It is a stack like the others (`<data>/stacks/<env>/<name>/`, compose.yaml = that
 * file at the deployed commit) plus `git.json` with the git settings, credentials and webhook secret
 * (mode 0600, never answered). Its settings are recorded as `GitStackConfigured` events without them.
 *
 * Input checks and `git.json` are in git/settings.ts.
 *
 * Every deploy fetches the branch into a bare cache repository (`<data>/git-cache/<env>/<name>/`),
 * writes the compose file when it changed, and runs a recorded deploy whose details carry the
 * repository (without credentials), branch, compose path and commit. A deploy (manual, settings with
 * redeploy, webhook, cron) starts its job and run first and fetches inside the job, with the stack
 * claimed, so the streaming answer comes at once (spec, Endpoints rule 4); the commit reaches the run's
 * details by RunSourceResolved as soon as it is fetched. The job reports the stages as statuses and, as
 * the spec wants of a git-stack deploy, none of compose's lines (they go to the run log only). A fetch
 * that fails there fails the job and the run, and compose.yaml stays as it was.
 *
 * Create-and-deploy is the exception: it fetches before it answers, because a create whose repository
 * gives no compose file must leave nothing behind (no stack folder, no event, no cache, no run) and
 * answer 422; its run records the commit from its start.
 *
 * Failures of the repository (unreachable, no such branch, no compose file there, not YAML) are 422
 * where they come before the answer; bad input is 400.
 */
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Subscription } from 'rxjs';
import {
  type GitStack,
  type GitStacksState,
  gitStackKey,
  gitStacks,
} from '../../../projections/git-stacks.js';
import { ProjectionRunner } from '../../../projections/runtime.js';
import {
  type EnvironmentId,
  type GitWebhookOutcome,
  gitWebhookStream,
  type StacksEventMap,
  stackStream,
  stacksEvent,
  type Trigger,
} from '../../../streams/stacks.js';
import { composeEnv } from '../compose/args.js';
import type { ComposePlace, ComposeTrees, StackRef } from '../contracts.js';
import { isStacksError, StacksError } from '../errors.js';
import { envFolder } from '../names.js';
import { createRedactor } from '../output/redaction.js';
// The largest compose (or override) file read from a repository: a saved compose file's limit.
import { MAX_COMPOSE_BYTES } from '../stack/input-limits.js';
import {
  COMPOSE_FILE,
  createStack,
  deleteStack,
  getStack,
  saveCompose,
  setVariables,
  stackDir,
  stackExists,
  validateCompose,
  writeAtomic,
} from '../stack/store.js';
import type {
  DeploySource,
  DeployVariant,
  PreparedDeploy,
  StacksService,
  StartedJob,
} from '../stacks-service.js';
import { AutoDeploySchedules } from './auto-deploy.js';
import {
  checkLinks,
  checkoutTree,
  credentialValues,
  fetchBranch,
  fetchCommit,
  GitError,
  gitRemote,
  hasControlCharacter,
  readFileAt,
  remoteCommit,
  stripCredentials,
} from './command.js';
import {
  checkFiles,
  GIT_FILE,
  type GitSettings,
  type GitStackChanges,
  type NewGitStack,
  readGitSettings,
  settingsText,
} from './settings.js';
import { DELIVERY_HEADER, EVENT_HEADER, isBranchRef, MAX_DELIVERY_ID_LENGTH, pushedRef } from './webhook.js';

/** A git step never takes longer than this, nor than the job time-out. */
const MAX_GIT_MS = 5 * 60_000;

/** A git stack as the routes answer it: no credentials, no secret. */
type GitStackView = Omit<GitStack, 'deliveries'>;

/** What the webhook did: ignored the delivery (why), or started a deploy. */
type WebhookOutcome = { ignored: true; reason: string } | { ignored: false; started: StartedJob };

const viewOf = ({ deliveries: _, ...view }: GitStack): GitStackView => view;

/** What every git run records of its source (credentials stripped); the commit is added once known. */
const sourceDetails = (settings: Pick<GitSettings, 'repository' | 'branch' | 'composePath'>) => ({
  source: 'git',
  repository: stripCredentials(settings.repository),
  branch: settings.branch,
  composePath: settings.composePath,
});

// ------------------------------------------------------------------------------------------------
// The service
// ------------------------------------------------------------------------------------------------

/** A git stack's checked-out tree in its folder: the tree, its git index, and the commit it holds. */
const TREE_DIR = 'tree';
const TREE_INDEX = 'tree.index';
const TREE_COMMIT = 'tree.commit';

const treePaths = (stackFolder: string) => ({
  tree: join(stackFolder, TREE_DIR),
  index: join(stackFolder, TREE_INDEX),
  commit: join(stackFolder, TREE_COMMIT),
});

/** The commit the tree holds, or undefined (none checked out yet). */
const treeCommit = async (file: string): Promise<string | undefined> => {
  const text = await readFile(file, 'utf8').catch(() => '');
  const sha = text.trim();
  return /^[0-9a-f]{40,64}$/.test(sha) ? sha : undefined;
};

export class GitStacks implements ComposeTrees {
  private readonly service: StacksService;
  private readonly model: ProjectionRunner<GitStacksState>;
  private readonly schedules: AutoDeploySchedules;
  private readonly locks = new Map<string, Promise<unknown>>();
  private subscription: Subscription | undefined;
  /** The last failure a stack's scheduled deploy reported, so a failing tick each second says it once. */
  private readonly lastTickFailure = new Map<string, string>();
  private known = new Set<string>();
  /** Aborted on close: git commands still running are killed. */
  private readonly stopping = new AbortController();

  private constructor(service: StacksService, model: ProjectionRunner<GitStacksState>) {
    this.service = service;
    this.model = model;
    this.schedules = new AutoDeploySchedules((key) => this.tick(key));
  }

  /** Catches the read model up, removes caches of stacks gone, and schedules the auto-deploys. */
  static async open(service: StacksService): Promise<GitStacks> {
    const model = new ProjectionRunner(service.store, gitStacks);
    await model.start();
    const git = new GitStacks(service, model);
    try {
      await git.pruneCaches();
    } catch (error) {
      process.stderr.write(`stacks: git caches could not be pruned: ${(error as Error).message}\n`);
    }
    git.subscription = model.updates.subscribe(({ state }) => git.follow(state));
    service.trees = git;
    return git;
  }

  private get dataDir(): string {
    return this.service.dataDir;
  }

  private cacheRoot(): string {
    return join(resolve(this.dataDir), 'git-cache');
  }

  private cacheDir(ref: StackRef): string {
    // stackDir validates the name; the cache mirrors the stacks' layout.
    stackDir(this.dataDir, ref);
    return join(this.cacheRoot(), envFolder(ref.environmentId), ref.name);
  }

  private gitTimeoutMs(): number {
    return Math.min(this.service.config.jobs.timeoutSeconds * 1000, MAX_GIT_MS);
  }

  /** Runs `work` after every earlier piece of work under the same lock name. */
  private async locked<T>(name: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(name) ?? Promise.resolve();
    const run = previous.then(work, work);
    const tail = run.catch(() => undefined);
    this.locks.set(name, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(name) === tail) this.locks.delete(name);
    }
  }

  /** Every new state: schedules follow the crons, caches of deleted stacks go. */
  private follow(state: GitStacksState): void {
    const wanted = new Map<string, string>();
    for (const [key, stack] of state.stacks)
      if (stack.autoDeployCron !== null) wanted.set(key, stack.autoDeployCron);
    this.schedules.sync(wanted);
    for (const key of this.known) {
      if (state.stacks.has(key)) continue;
      this.lastTickFailure.delete(key);
      const [env, name] = key.split('/') as [string, string];
      const ref = { name, environmentId: env === 'local' ? null : Number(env) };
      void this.removeCache(ref).catch((error: unknown) => {
        process.stderr.write(
          `stacks: git cache of ${key} could not be removed: ${(error as Error).message}\n`,
        );
      });
    }
    this.known = new Set(state.stacks.keys());
  }

  /** Removes the cache of a stack, unless it is a git stack again by the time the lock is ours. */
  private removeCache(ref: StackRef): Promise<void> {
    const key = gitStackKey(ref.environmentId, ref.name);
    return this.locked(`cache ${key}`, async () => {
      if (this.model.state.stacks.has(key)) return;
      await rm(this.cacheDir(ref), { recursive: true, force: true });
    });
  }

  /** Removes caches whose stack is no git stack (deleted while the server was down). */
  private async pruneCaches(): Promise<void> {
    const root = this.cacheRoot();
    let envs: string[];
    try {
      envs = await readdir(root);
    } catch {
      return;
    }
    for (const env of envs) {
      const environmentId = env === 'local' ? null : Number(env);
      if (environmentId !== null && !Number.isSafeInteger(environmentId)) continue;
      for (const name of await readdir(join(root, env)).catch(() => [] as string[])) {
        if (!this.model.state.stacks.has(gitStackKey(environmentId, name)))
          await rm(join(root, env, name), { recursive: true, force: true });
      }
    }
  }

  // ----------------------------------------------------------------------------------------------
  // Reading
  // ----------------------------------------------------------------------------------------------

  list(env: EnvironmentId): GitStackView[] {
    this.service.environment(env);
    return [...this.model.state.stacks.values()]
      .filter((s) => s.environmentId === env)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map(viewOf);
  }

  /** The git stack, or 404 (no such stack, or a stack that is not a git stack). */
  view(ref: StackRef): GitStackView {
    this.service.environment(ref.environmentId);
    const stack = this.model.state.stacks.get(gitStackKey(ref.environmentId, ref.name));
    if (!stack) throw new StacksError('git_stack_not_found', 'Git stack not found');
    return viewOf(stack);
  }

  private async settingsOf(ref: StackRef): Promise<GitSettings> {
    this.service.environment(ref.environmentId);
    const settings = await readGitSettings(this.dataDir, ref);
    if (!settings) throw new StacksError('git_stack_not_found', 'Git stack not found');
    return settings;
  }

  // ----------------------------------------------------------------------------------------------
  // Fetching
  // ----------------------------------------------------------------------------------------------

  /**
   * Fetches the branch and reads the compose file of its head: the commit and the compose text, or a
   * 422 naming what the repository lacks. `fetched` hears of the commit before its file is read, so a
   * commit without a usable compose file is known too. Messages never hold the repository's credentials.
   */
  private async fetchCompose(
    ref: StackRef,
    settings: Pick<GitSettings, 'repository' | 'branch' | 'composePath'> & { files?: readonly string[] },
    fetched?: (commit: string) => Promise<void>,
  ) {
    const redactor = createRedactor(credentialValues(settings.repository));
    const redact = (text: string) => redactor.text(text);
    const options = { timeoutMs: this.gitTimeoutMs(), redact, signal: this.stopping.signal };
    const key = gitStackKey(ref.environmentId, ref.name);
    try {
      return await this.locked(`cache ${key}`, async () => {
        const dir = this.cacheDir(ref);
        const commit = await fetchBranch(dir, gitRemote(settings.repository), settings.branch, options);
        await fetched?.(commit);
        const compose = await readFileAt(dir, commit, settings.composePath, {
          ...options,
          maxBytes: MAX_COMPOSE_BYTES,
        });
        // The override files must be there too (and be YAML), or compose would fail on them later.
        for (const path of settings.files ?? []) {
          const text = await readFileAt(dir, commit, path, { ...options, maxBytes: MAX_COMPOSE_BYTES });
          try {
            validateCompose(text);
          } catch (error) {
            if (isStacksError(error))
              throw new StacksError('git_failed', `${path} at ${commit.slice(0, 12)}: ${error.message}`);
            throw error;
          }
        }
        // Before anything is made of the commit: its tree is what compose will read.
        await checkLinks(dir, commit, options);
        try {
          validateCompose(compose);
        } catch (error) {
          if (isStacksError(error))
            throw new StacksError(
              'git_failed',
              `${settings.composePath} at ${commit.slice(0, 12)}: ${error.message}`,
            );
          throw error;
        }
        return { commit, compose };
      });
    } catch (error) {
      if (error instanceof GitError) throw new StacksError('git_failed', redact(error.message));
      if (isStacksError(error)) throw error;
      throw new StacksError('internal_error', redact((error as Error).message));
    }
  }

  /** The variant of create-and-deploy, which fetched before its run started. */
  private variantOf(settings: GitSettings, commit: string, stages: readonly string[]): DeployVariant {
    const repository = stripCredentials(settings.repository);
    return {
      extra: { ...sourceDetails(settings), commit },
      stages: [`Fetched ${settings.branch} from ${repository}`, `Checked out ${commit}`, ...stages],
      forwardLines: false,
      redact: credentialValues(settings.repository),
    };
  }

  /**
   * A deploy that fetches inside its job: the run starts with the source it is about to fetch, and
   * `resolve` (in the job) fetches, records the commit and writes compose.yaml.
   */
  private fetchingPlan(
    trigger: Trigger,
    userId: string | null,
    settings: GitSettings,
    resolve: (source: DeploySource) => Promise<void>,
  ): PreparedDeploy {
    return {
      kind: 'deploy',
      trigger,
      userId,
      options: { pull: false, build: false, forceRecreate: false },
      variant: {
        extra: sourceDetails(settings),
        forwardLines: false,
        redact: credentialValues(settings.repository),
        resolve,
      },
    };
  }

  /**
   * In a deploy's job: fetches the branch, reporting the stages, and adds the commit (with the source
   * it came from) to the run's details as soon as it is known.
   */
  private fetchInJob(ref: StackRef, settings: GitSettings, source: DeploySource) {
    source.status(`Fetching ${settings.branch} from ${stripCredentials(settings.repository)}`);
    return this.fetchCompose(ref, settings, async (commit) => {
      await source.details({ ...sourceDetails(settings), commit });
      source.status(`Checked out ${commit}`);
    });
  }

  /**
   * Checks the commit out into the stack's tree (git.ts `checkoutTree`), under the cache's lock; a commit
   * the cache lacks (a redeploy of an old run) is fetched by id first when `fetchMissing`. 422 when git
   * refuses (a link leading outside the repository, a commit the remote does not give).
   */
  private async checkout(
    ref: StackRef,
    settings: Pick<GitSettings, 'repository'>,
    commit: string,
    fetchMissing: boolean,
  ): Promise<void> {
    const redactor = createRedactor(credentialValues(settings.repository));
    const options = {
      timeoutMs: this.gitTimeoutMs(),
      redact: (text: string) => redactor.text(text),
      signal: this.stopping.signal,
    };
    const paths = treePaths(stackDir(this.dataDir, ref));
    const key = gitStackKey(ref.environmentId, ref.name);
    try {
      await this.locked(`cache ${key}`, async () => {
        const cache = this.cacheDir(ref);
        const check = () => checkoutTree(cache, paths.tree, paths.index, commit, options);
        try {
          await check();
        } catch (error) {
          if (!(fetchMissing && error instanceof GitError && error.kind === 'commit_missing')) throw error;
          await fetchCommit(cache, gitRemote(settings.repository), commit, options);
          await check();
        }
        await writeAtomic(paths.commit, `${commit}\n`);
      });
    } catch (error) {
      if (error instanceof GitError) throw new StacksError('git_failed', options.redact(error.message));
      throw error;
    }
  }

  /**
   * Where compose runs for a git stack (ComposeTrees): the folder of `composePath` in its tree, the
   * tree at `commit` when one is asked for (else as last checked out; a tree a server before trees
   * never made is checked out at the last deployed commit). The tree's compose file is made the
   * stack's text, which differs from the commit's after `PUT …/compose` or in a redeploy.
   */
  async place(
    stack: StackRef & { compose: string },
    commit: string | undefined,
  ): Promise<ComposePlace | undefined> {
    const ref: StackRef = { name: stack.name, environmentId: stack.environmentId };
    const settings = await readGitSettings(this.dataDir, ref);
    if (!settings) return undefined;
    const paths = treePaths(stackDir(this.dataDir, ref));
    const current = await treeCommit(paths.commit);
    const wanted =
      commit ?? current ?? this.model.state.stacks.get(gitStackKey(ref.environmentId, ref.name))?.lastCommit;
    if (wanted === undefined || wanted === null)
      throw new StacksError(
        'git_tree_missing',
        `Git stack ${ref.name} has no checked-out tree yet: deploy it from git (POST /api/git-stacks/${ref.name}/deploy)`,
      );
    const there = await readFile(join(paths.tree, settings.composePath), 'utf8').catch(() => undefined);
    if (wanted !== current || there === undefined) await this.checkout(ref, settings, wanted, true);
    const place = this.treePlace(ref, settings);
    if ((await readFile(place.file, 'utf8').catch(() => undefined)) !== stack.compose) {
      await mkdir(dirname(place.file), { recursive: true });
      await writeAtomic(place.file, stack.compose);
    }
    return place;
  }

  private async recordSettings(ref: StackRef, settings: GitSettings, userId: string | null): Promise<void> {
    const data: StacksEventMap['GitStackConfigured'] = {
      stack: ref.name,
      environment_id: ref.environmentId,
      repository: stripCredentials(settings.repository),
      branch: settings.branch,
      compose_path: settings.composePath,
      auto_deploy_cron: settings.autoDeployCron,
      webhook_secret_set: settings.webhookSecret !== null,
      user_id: userId,
    };
    const metadata = userId === null ? {} : { metadata: { userId } };
    const known = this.model.state.stacks.get(gitStackKey(ref.environmentId, ref.name))?.files ?? [];
    const filesChanged = known.join('\n') !== settings.files.join('\n');
    const files: StacksEventMap['GitStackFilesSet'] = {
      stack: ref.name,
      environment_id: ref.environmentId,
      files: settings.files,
      user_id: userId,
    };
    const { position } = await this.service.store.append(stackStream(ref.environmentId, ref.name), [
      { ...stacksEvent('GitStackConfigured', data), ...metadata },
      ...(filesChanged ? [{ ...stacksEvent('GitStackFilesSet', files), ...metadata }] : []),
    ]);
    await this.model.waitFor(position);
  }

  /** Writes git.json, then records the settings; when the event cannot be recorded, git.json is put back. */
  private async saveSettings(
    ref: StackRef,
    settings: GitSettings,
    previous: GitSettings | undefined,
    userId: string | null,
  ): Promise<void> {
    const file = join(stackDir(this.dataDir, ref), GIT_FILE);
    await writeAtomic(file, settingsText(settings));
    try {
      await this.recordSettings(ref, settings, userId);
    } catch (error) {
      if (previous) await writeAtomic(file, settingsText(previous)).catch(() => undefined);
      else await rm(file, { force: true });
      throw error;
    }
  }

  // ----------------------------------------------------------------------------------------------
  // Create, deploy, update
  // ----------------------------------------------------------------------------------------------

  /**
   * Creates the git stack from the branch's head; with `deploy`, deploys it as a recorded run (trigger
   * manual). 409 when the name is taken, 422 when the repository does not give a compose file.
   */
  async create(
    ref: StackRef,
    input: NewGitStack,
    deploy: boolean,
    userId: string | null,
  ): Promise<{ view: GitStackView; commit: string; started?: StartedJob }> {
    this.service.environment(ref.environmentId);
    if (await stackExists(this.dataDir, ref)) throw new StacksError('stack_exists', 'Stack already exists');
    const settings: GitSettings = {
      version: 1,
      repository: input.repository,
      branch: input.branch,
      composePath: input.composePath,
      files: input.files,
      webhookSecret: input.webhookSecret,
      autoDeployCron: input.autoDeployCron,
    };
    let commit = '';
    let text = '';
    const make = async () => {
      try {
        const fetched = await this.fetchCompose(ref, settings);
        commit = fetched.commit;
        text = fetched.compose;
        await createStack(
          this.dataDir,
          ref,
          { compose: fetched.compose, variables: input.variables, secretProvider: null },
          { events: this.service.store, userId },
        );
      } catch (error) {
        await this.removeCache(ref).catch(() => undefined);
        throw error;
      }
      try {
        await this.checkout(ref, settings, commit, false);
        // A non-admin's repository is held to the environment's security settings like a saved file.
        await this.service.security.checkSave(
          ref,
          text,
          this.treePlace(ref, settings),
          input.variables,
          userId,
        );
        await this.saveSettings(ref, settings, undefined, userId);
      } catch (error) {
        // The stack must not stay without its git settings: it goes (and StackDeleted says so).
        await deleteStack(this.dataDir, ref, { events: this.service.store, userId }).catch(() => undefined);
        await this.removeCache(ref).catch(() => undefined);
        throw error;
      }
    };
    if (!deploy) {
      await this.locked(`create ${gitStackKey(ref.environmentId, ref.name)}`, make);
      return { view: this.view(ref), commit };
    }
    // Unlike the other deploys, this one fetches before it answers (and before its run starts): a create
    // whose repository gives no compose file must answer 422 and leave nothing behind, no run either.
    const started = await this.service.preparedDeploy(ref, async () => {
      await make();
      return {
        kind: 'create',
        trigger: 'manual',
        userId,
        options: { pull: false, build: false, forceRecreate: false },
        variant: this.variantOf(settings, commit, [`Created the stack from ${settings.composePath}`]),
      };
    });
    return { view: this.view(ref), commit, started };
  }

  /** The place of a git stack's compose file in its tree (types.ts ComposePlace). */
  private treePlace(ref: StackRef, settings: Pick<GitSettings, 'composePath' | 'files'>): ComposePlace {
    const tree = treePaths(stackDir(this.dataDir, ref)).tree;
    const file = join(tree, settings.composePath);
    return {
      root: tree,
      cwd: dirname(file),
      file,
      overrides: settings.files.map((path) => join(tree, path)),
    };
  }

  /**
   * A git sync's commit held to the environment's security settings before it becomes the stack's
   * compose file (stack/security.ts): a commit that breaks them fails the run and changes nothing.
   */
  private async checkFetched(ref: StackRef, settings: GitSettings, compose: string): Promise<void> {
    const stack = { ...(await getStack(this.dataDir, ref)), compose };
    const env = composeEnv(process.env, stack.variables, {}, this.service.environment(ref.environmentId));
    await this.service.security.checkDeploy(stack, compose, this.treePlace(ref, settings), env, {
      fetchedFromGit: true,
    });
  }

  /** Writes compose.yaml from a fetched commit when it changed; the stage to report. */
  private async writeCompose(
    ref: StackRef,
    settings: GitSettings,
    fetched: { commit: string; compose: string },
    userId: string | null,
  ): Promise<string> {
    const stack = await getStack(this.dataDir, ref);
    if (stack.compose === fetched.compose) return `${COMPOSE_FILE} unchanged (${settings.composePath})`;
    await saveCompose(this.dataDir, ref, fetched.compose, { events: this.service.store, userId });
    return `Updated ${COMPOSE_FILE} from ${settings.composePath}`;
  }

  /**
   * Deploys as a recorded run whose job fetches the branch, updates compose.yaml from the new commit and
   * runs compose. Resolves once the job and run have started; a fetch failure fails them.
   */
  async deploy(ref: StackRef, trigger: Trigger, userId: string | null): Promise<StartedJob> {
    // Read before the claim for a plain 404, and again with the stack claimed: a settings change that
    // landed in between is what this deploy uses.
    await this.settingsOf(ref);
    return this.service.preparedDeploy(ref, async () => {
      const settings = await this.settingsOf(ref);
      return this.fetchingPlan(trigger, userId, settings, async (source) => {
        const fetched = await this.fetchInJob(ref, settings, source);
        await this.checkout(ref, settings, fetched.commit, false);
        await this.checkFetched(ref, settings, fetched.compose);
        source.status(await this.writeCompose(ref, settings, fetched, userId));
      });
    });
  }

  /**
   * Changes the settings (and variables). With `redeploy`, a recorded run (trigger manual) starts at
   * once and its job fetches the new settings first, saves them only when that works, then deploys;
   * without, they are saved as they are and used by the next deploy.
   */
  async configure(
    ref: StackRef,
    changes: GitStackChanges,
    redeploy: boolean,
    userId: string | null,
  ): Promise<{ view: GitStackView; started?: StartedJob }> {
    const key = gitStackKey(ref.environmentId, ref.name);
    const apply = async () => {
      const previous = await this.settingsOf(ref);
      const next: GitSettings = {
        version: 1,
        repository: changes.repository ?? previous.repository,
        branch: changes.branch ?? previous.branch,
        composePath: changes.composePath ?? previous.composePath,
        files: changes.files ?? previous.files,
        webhookSecret: changes.webhookSecret === undefined ? previous.webhookSecret : changes.webhookSecret,
        autoDeployCron:
          changes.autoDeployCron === undefined ? previous.autoDeployCron : changes.autoDeployCron,
      };
      // The overrides against the base they follow, whichever of the two changed.
      checkFiles(next.files, next.composePath);
      return { previous, next };
    };
    const persist = async (previous: GitSettings, next: GitSettings) => {
      await this.saveSettings(ref, next, previous, userId);
      if (changes.variables)
        await setVariables(this.dataDir, ref, changes.variables, { events: this.service.store, userId });
    };
    if (!redeploy) {
      await this.locked(`settings ${key}`, async () => {
        const { previous, next } = await apply();
        await persist(previous, next);
      });
      return { view: this.view(ref) };
    }
    await this.settingsOf(ref);
    const started = await this.service.preparedDeploy(ref, async () => {
      const planned = (await apply()).next;
      return this.fetchingPlan('manual', userId, planned, (source) =>
        this.locked(`settings ${key}`, async () => {
          // Applied again under the lock, so a settings change saved since the answer is not undone.
          const { previous, next } = await apply();
          if (next.repository !== planned.repository) source.redact(credentialValues(next.repository));
          // Fetched before anything is saved: settings that do not give a compose file are refused whole.
          const fetched = await this.fetchInJob(ref, next, source);
          await this.checkout(ref, next, fetched.commit, false);
          await persist(previous, next);
          await this.checkFetched(ref, next, fetched.compose);
          source.status(await this.writeCompose(ref, next, fetched, userId));
        }),
      );
    });
    return { view: this.view(ref), started };
  }

  // ----------------------------------------------------------------------------------------------
  // Webhook
  // ----------------------------------------------------------------------------------------------

  /**
   * The secret a stack's webhook deliveries are signed with; null when there is no such git stack (or
   * environment) or it has no secret. The route asks before it reads a delivery's body.
   */
  async webhookSecret(ref: StackRef): Promise<string | null> {
    try {
      return (await this.settingsOf(ref)).webhookSecret;
    } catch (error) {
      if (isStacksError(error) && error.status === 404) return null;
      throw error;
    }
  }

  /**
   * A webhook delivery whose signature the route has verified with `webhookSecret` while it read the
   * body (stacks/routes/git.ts). A delivery id already handled, a ping, and a push to another branch are
   * ignored; anything else deploys (trigger webhook). The ids of handled deliveries are recorded.
   */
  async webhook(
    ref: StackRef,
    body: Buffer,
    headers: Record<string, string | string[] | undefined>,
  ): Promise<WebhookOutcome> {
    const settings = await this.settingsOf(ref);
    const header = (name: string) => {
      const value = headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    const deliveryId = header(DELIVERY_HEADER)?.trim() || undefined;
    if (
      deliveryId !== undefined &&
      (deliveryId.length > MAX_DELIVERY_ID_LENGTH || hasControlCharacter(deliveryId))
    )
      throw new StacksError(
        'invalid_webhook',
        `X-GitHub-Delivery must be at most ${MAX_DELIVERY_ID_LENGTH} printable characters`,
      );
    const key = gitStackKey(ref.environmentId, ref.name);
    const branch = settings.branch;
    return this.locked(`webhook ${key}`, async (): Promise<WebhookOutcome> => {
      if (deliveryId !== undefined && this.model.state.stacks.get(key)?.deliveries.seen.has(deliveryId))
        return { ignored: true, reason: `Delivery ${deliveryId} was already handled` };
      if (header(EVENT_HEADER) === 'ping') {
        await this.recordDelivery(ref, deliveryId, 'ping', null);
        return { ignored: true, reason: 'ping' };
      }
      const pushed = pushedRef(body, header('content-type'));
      if (pushed !== undefined && !isBranchRef(pushed, branch)) {
        await this.recordDelivery(ref, deliveryId, 'other_branch', null);
        return { ignored: true, reason: `Push to ${pushed} ignored: the stack follows ${branch}` };
      }
      const started = await this.deploy(ref, 'webhook', null);
      await this.recordDelivery(ref, deliveryId, 'deployed', started.runId);
      return { ignored: false, started };
    });
  }

  private async recordDelivery(
    ref: StackRef,
    deliveryId: string | undefined,
    outcome: GitWebhookOutcome,
    runId: number | null,
  ): Promise<void> {
    // Without an id there is nothing to recognise a replay by.
    if (deliveryId === undefined) return;
    const { position } = await this.service.store.append(gitWebhookStream(ref.environmentId, ref.name), [
      stacksEvent('GitWebhookDeliveryHandled', {
        stack: ref.name,
        environment_id: ref.environmentId,
        delivery_id: deliveryId,
        outcome,
        run_id: runId,
      }),
    ]);
    await this.model.waitFor(position);
  }

  // ----------------------------------------------------------------------------------------------
  // Schedule
  // ----------------------------------------------------------------------------------------------

  /**
   * One auto-deploy tick: asks the remote for the branch's commit (no fetch) and deploys (trigger cron)
   * only when it differs from the last deployed one; that check comes before anything starts, so an
   * unchanged commit records no run. A stack with a job running skips its turn. Never rejects: a
   * failure (also a deploy that failed) is written to standard error, once until it changes.
   */
  private async tick(key: string): Promise<void> {
    const stack = this.model.state.stacks.get(key);
    if (!stack) return;
    const ref: StackRef = { name: stack.name, environmentId: stack.environmentId };
    try {
      if (this.service.isBusy(ref)) return;
      const settings = await readGitSettings(this.dataDir, ref);
      if (!settings) return;
      const redactor = createRedactor(credentialValues(settings.repository));
      const commit = await remoteCommit(gitRemote(settings.repository), settings.branch, {
        timeoutMs: this.gitTimeoutMs(),
        redact: (text) => redactor.text(text),
        signal: this.stopping.signal,
      });
      if (commit === this.model.state.stacks.get(key)?.lastCommit) return;
      const started = await this.deploy(ref, 'cron', null);
      this.lastTickFailure.delete(key);
      const result = await started.result;
      if (!result.success) throw new Error(result.error ?? 'the deploy failed');
    } catch (error) {
      // Another job took the stack between the check and the claim: the next tick tries again.
      if (isStacksError(error) && error.status === 409) return;
      const message = error instanceof Error ? error.message : String(error);
      if (this.lastTickFailure.get(key) === message) return;
      this.lastTickFailure.set(key, message);
      process.stderr.write(`stacks: auto-deploy of git stack ${key} failed: ${message}\n`);
    }
  }

  /**
   * Stops the schedules (no new ticks) and the git commands still running (a fetch of a slow remote
   * does not hold the shutdown up); call before the stacks service closes.
   */
  stopSchedules(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    this.schedules.stop();
    this.stopping.abort();
  }

  /** After the stacks service closed (running jobs ended): waits for ticks, persists the read model. */
  async close(): Promise<void> {
    this.stopSchedules();
    await this.schedules.drain();
    await this.model.stop();
  }
}
