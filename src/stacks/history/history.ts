import { randomUUID } from 'node:crypto';
import {
  contentKey,
  type DeployHistoryState,
  deployHistory,
  type StackHistorySettings,
  type StoredContent,
  settingsOf,
  unreferencedContents,
} from '../../../projections/deploy-history.js';
import { type DeployRun, isGoodRunStatus } from '../../../projections/deploy-runs.js';
import { ProjectionRunner } from '../../../projections/runtime.js';
import {
  contentKeyScope,
  contentStream,
  type RecordedVariable,
  type RunImage,
  stackStream,
  stacksEvent,
} from '../../../streams/stacks.js';
import { StreamDeletedError } from '../../store/errors.js';
import type { EventStore } from '../../store/types.js';
import type { Environment, PreparedDeploy, StackRef, StartedJob } from '../contracts.js';
import { StacksError } from '../errors.js';
import { OutputKeys } from '../output/keys.js';
import type { RunRecorder } from '../runs/run-recorder.js';
import { StackStatusReader } from '../stack/status.js';
import { composeHash, getStack, loadHashKey, type Stack, saveCompose, setVariables } from '../stack/store.js';
import { recordVariables, variablesForRedeploy } from './content.js';
import { diffRuns, type RunDiff, type RunSide } from './diff.js';
import { describePins, pinImages, runImagesOf, serviceImages } from './images.js';

/** What the history needs of the service: its runs and a deploy whose preparation holds the stack. */
interface HistoryHost {
  readonly store: EventStore;
  readonly dataDir: string;
  runs: {
    get(runId: number): DeployRun | undefined;
    list(stack: string, env: DeployRun['environmentId']): DeployRun[];
  };
  preparedDeploy(ref: StackRef, prepare: () => Promise<PreparedDeploy>): Promise<StartedJob>;
  /** The environment of an id (null: local). */
  environment(env: StackRef['environmentId']): Environment | null;
}

/** How a redeploy came about: asked for (`redeployOf`), or the auto-rollback of a failed run. */
type RedeployOrigin = { kind: 'redeploy' } | { kind: 'rollback'; failed: DeployRun };

const NO_CONTENT_MESSAGE =
  'This run has no recorded content (it was deployed before deploy history was kept, or failed before compose ran)';
/** How often, and how long apart, an auto-rollback tries to claim a stack its failed deploy just let go. */
const ROLLBACK_CLAIM_ATTEMPTS = 40;
const ROLLBACK_CLAIM_PAUSE_MS = 250;

/**
 * Deploy history (docs/stacks.md#deploy-history-what-each-run-deployed-diff-redeploy-rollback): what each run deployed (compose text, variables without secret values,
 * options, commit, the images its services ran), the difference of two runs, redeploying a recorded
 * run, and the auto-rollback of a failed deploy. The contents are events (streams/stacks.ts, DeployComposeStored...), the index of which
 * run deployed what a projection (projections/deploy-history.ts).
 */
export class DeployHistory {
  private readonly keys: OutputKeys;
  /** The engines asked for the images a run's services run (bounded like a stack's status). */
  private readonly engines = new StackStatusReader();
  private queue: Promise<void> = Promise.resolve();

  private constructor(
    private readonly host: HistoryHost,
    readonly model: ProjectionRunner<DeployHistoryState>,
    private readonly key: Buffer,
  ) {
    this.keys = new OutputKeys(host.store);
  }

  static async open(host: HistoryHost): Promise<DeployHistory> {
    const key = await loadHashKey(host.dataDir);
    const model = new ProjectionRunner(host.store, deployHistory);
    await model.start();
    return new DeployHistory(host, model, key);
  }

  close(): Promise<void> {
    return this.model.stop();
  }

  /** Runs `task` after every earlier one: storing contents and deleting unreferenced ones never interleave. */
  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * Records what a run deploys, just before compose runs: each content once (a live stored one of the
   * same hash is referred to), then RunContentRecorded in the run's stream, in order with its events.
   */
  record(recorder: Pick<RunRecorder, 'runId' | 'note'>, stack: Stack): Promise<void> {
    return this.exclusive(async () => {
      const compose = await this.stored('compose', composeHash(stack.compose), stack.compose);
      const recorded = recordVariables(this.key, stack.variables);
      const variables = await this.stored('variables', recorded.hash, JSON.stringify(recorded.variables));
      const position = await recorder.note(
        stacksEvent('RunContentRecorded', {
          run_id: recorder.runId,
          compose_id: compose,
          compose_hash: composeHash(stack.compose),
          variables_id: variables,
          variables_hash: recorded.hash,
          secret_provider: stack.secretProvider,
        }),
      );
      await this.model.waitFor(position);
    });
  }

  /**
   * Records the image each service of the stack runs, just after a successful `up` (RunImagesRecorded):
   * nothing when the engine has no container of the project (a fake compose) or does not answer. A
   * failure to record is written on standard error: compose succeeded, and so does the run.
   */
  async recordImages(
    recorder: Pick<RunRecorder, 'runId' | 'note'>,
    environment: Environment | null,
    project: string,
  ): Promise<void> {
    const status = (await this.engines.statuses(environment, [{ name: project }])).get(project);
    const images = runImagesOf(status?.containers ?? []);
    if (images.length === 0) return;
    try {
      const position = await recorder.note(
        stacksEvent('RunImagesRecorded', { run_id: recorder.runId, images }),
      );
      await this.model.waitFor(position);
    } catch (error) {
      process.stderr.write(
        `stacks: the images of run ${recorder.runId} could not be recorded: ${(error as Error).message}\n`,
      );
    }
  }

  /** The id of the live stored content of this kind and hash, stored (sealed, with a new key) when none is. */
  private async stored(kind: StoredContent['kind'], hash: string, text: string): Promise<string> {
    const live = this.model.state.byHash.get(contentKey(kind, hash));
    if (live !== undefined) return live;
    const id = randomUUID();
    const sealer = await this.keys.ensure(contentKeyScope(id));
    const { position } = await this.host.store.append(
      contentStream(id),
      [stacksEvent('DeployContentStored', { content_id: id, kind, hash, sealed: sealer.seal(text) })],
      { expectedRevision: 'no_stream' },
    );
    await this.model.waitFor(position);
    return id;
  }

  /** The stored text, opened; 500 when it is gone (a run whose content was deleted half way). */
  private async text(id: string): Promise<string> {
    const opener = await this.keys.opener(contentKeyScope(id));
    for await (const event of this.host.store.readStream(contentStream(id), { maxCount: 1 })) {
      const opened = opener.open((event.data as { sealed: string }).sealed);
      if (opened !== undefined) return opened;
    }
    throw new StacksError('data_damaged', 'The recorded content of this run is missing from the log');
  }

  /**
   * Deletes the stored contents no run refers to any more (after a run's delete, `position` its
   * RunDeleted): the key first, which makes every copy of the sealed text unreadable, then the stream.
   */
  collect(position: number): Promise<void> {
    return this.exclusive(async () => {
      await this.model.waitFor(position);
      for (const content of unreferencedContents(this.model.state)) {
        await this.keys.shred(contentKeyScope(content.id));
        try {
          await this.host.store.deleteStream(contentStream(content.id));
        } catch (error) {
          if (!(error instanceof StreamDeletedError)) throw error;
        }
      }
    });
  }

  /** Whether the run's content was recorded. */
  hasContent(runId: number): boolean {
    return this.model.state.runs.has(runId);
  }

  /** Everything the run's record says it deployed; 404 when nothing was recorded for it. */
  async side(run: DeployRun): Promise<RunSide> {
    const content = this.model.state.runs.get(run.id);
    if (!content) throw new StacksError('run_content_not_found', NO_CONTENT_MESSAGE);
    const compose = await this.text(content.composeId);
    const variables = JSON.parse(await this.text(content.variablesId)) as RecordedVariable[];
    const commit = run.extra.commit;
    return {
      runId: run.id,
      compose,
      composeHash: content.composeHash,
      variables,
      secretProvider: content.secretProvider,
      options: { ...run.options },
      commit: typeof commit === 'string' ? commit : null,
      images: content.images.map((i) => ({ ...i })),
    };
  }

  /** The images the run's services ran (empty when the engine reported none); 404 without a record. */
  images(run: DeployRun): RunImage[] {
    const content = this.model.state.runs.get(run.id);
    if (!content) throw new StacksError('run_content_not_found', NO_CONTENT_MESSAGE);
    return content.images.map((i) => ({ ...i }));
  }

  async diff(from: DeployRun, to: DeployRun): Promise<RunDiff> {
    return diffRuns(await this.side(from), await this.side(to));
  }

  /**
   * Deploys exactly what `run` deployed: its compose text and non-secret values, today's values of its
   * secrets (400 naming those the stack no longer has), its options; the stack's files become that
   * (recorded like any save). A new run, `details.redeployOf` (and `rollbackOf` for an auto-rollback).
   * The images it recorded that the tags no longer name are pinned (`imagesToPin`) in the text compose
   * is given, not in the stack's file, so the next plain deploy takes the tags' images again;
   * `details.pinnedImages` says which.
   */
  async redeploy(
    run: DeployRun,
    userId: string | null,
    origin: RedeployOrigin = { kind: 'redeploy' },
  ): Promise<StartedJob> {
    const side = await this.side(run);
    const ref: StackRef = { name: run.stack, environmentId: run.environmentId };
    const recording = { events: this.host.store, userId };
    return this.host.preparedDeploy(ref, async () => {
      const stack = await getStack(this.host.dataDir, ref);
      const { variables, missing } = variablesForRedeploy(side.variables, stack.variables);
      if (missing.length > 0)
        throw new StacksError(
          'secrets_missing',
          `Run ${run.id} used secret variable${missing.length > 1 ? 's' : ''} the stack no longer has: ${missing.join(', ')}`,
        );
      if (stack.compose !== side.compose) await saveCompose(this.host.dataDir, ref, side.compose, recording);
      if (recordVariables(this.key, stack.variables).hash !== recordVariables(this.key, variables).hash)
        await setVariables(this.host.dataDir, ref, variables, recording);
      const extra: Record<string, string | number | boolean | null> = { redeployOf: run.id };
      if (side.commit !== null) extra.commit = side.commit;
      if (origin.kind === 'rollback') extra.rollbackOf = origin.failed.id;
      const pins = pinImages(side.compose, await this.imagesToPin(ref, side.compose, side.images));
      if (pins.pinned.length > 0) extra.pinnedImages = describePins(pins.pinned);
      return {
        kind: 'deploy',
        options: { ...side.options },
        trigger: origin.kind === 'rollback' ? origin.failed.trigger : 'manual',
        userId,
        variant: { extra, ...(pins.pinned.length > 0 ? { pinnedCompose: pins.compose } : {}) },
      };
    });
  }

  /**
   * The recorded images a redeploy must pin: those whose service's `image:` no longer names the recorded
   * image on the engine (a tag moved on). A pin of an image the tag still names would change the
   * reference compose compares (tag → id) and recreate a container that runs it already; left unpinned,
   * compose sees nothing changed (a rollback to what runs recreates nothing), and neither does the next
   * plain deploy. An engine that cannot be asked: every image is pinned, which is always right.
   */
  private async imagesToPin(
    ref: StackRef,
    compose: string,
    images: readonly RunImage[],
  ): Promise<RunImage[]> {
    if (images.length === 0) return [];
    const client = this.engines.client(this.host.environment(ref.environmentId));
    if ('error' in client) return [...images];
    const named = serviceImages(compose);
    const pinned = await Promise.all(
      images.map(async (image) => {
        const reference = named.get(image.service);
        if (reference === undefined) return image;
        const id = await client.docker
          .getImage(reference)
          .inspect()
          .then(
            (found) => found.Id,
            () => undefined,
          );
        return id === image.imageId ? undefined : image;
      }),
    );
    return pinned.filter((image): image is RunImage => image !== undefined);
  }

  /** The stack's last successful run with recorded content, if any (what a rollback goes back to). */
  lastGood(ref: StackRef, before?: number): DeployRun | undefined {
    return this.host.runs
      .list(ref.name, ref.environmentId)
      .find(
        (r) => isGoodRunStatus(r.status) && (before === undefined || r.id < before) && this.hasContent(r.id),
      );
  }

  /**
   * After a failed deploy: with `autoRollback` on, redeploys the last successful run once. A rollback
   * that fails is not rolled back in turn. The failed deploy has just let the stack go, which another
   * instance's lease may take a moment to show: a busy stack is tried again for a while.
   */
  async afterFailure(failed: DeployRun): Promise<StartedJob | undefined> {
    const ref: StackRef = { name: failed.stack, environmentId: failed.environmentId };
    if (!settingsOf(this.model.state, ref.environmentId, ref.name).autoRollback) return undefined;
    if (failed.extra.rollbackOf !== undefined) return undefined;
    const good = this.lastGood(ref, failed.id);
    if (!good) return undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.redeploy(good, failed.userId, { kind: 'rollback', failed });
      } catch (error) {
        const busy = error instanceof StacksError && error.status === 409;
        if (!busy || attempt >= ROLLBACK_CLAIM_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, ROLLBACK_CLAIM_PAUSE_MS));
      }
    }
  }

  settings(ref: StackRef): StackHistorySettings {
    return settingsOf(this.model.state, ref.environmentId, ref.name);
  }

  /** Records a stack's history settings (the stack must exist); answers them. */
  async setSettings(
    ref: StackRef,
    change: Partial<StackHistorySettings>,
    userId: string | null,
  ): Promise<StackHistorySettings> {
    await getStack(this.host.dataDir, ref);
    const next = { ...this.settings(ref), ...change };
    const { position } = await this.host.store.append(stackStream(ref.environmentId, ref.name), [
      stacksEvent('StackHistorySettingsSet', {
        stack: ref.name,
        environment_id: ref.environmentId,
        auto_rollback: next.autoRollback,
        keep_runs: next.keepRuns,
        keep_days: next.keepDays,
        user_id: userId,
      }),
    ]);
    await this.model.waitFor(position);
    return this.settings(ref);
  }
}
