import type { Json, RecordedEvent } from '../src/store/types.js';
import {
  CONTENT_STREAM_PREFIX,
  type EnvironmentId,
  RUN_STREAM_PREFIX,
  type RunImage,
  type StacksEventMap,
} from '../streams/stacks.js';
import { STREAM_DELETED, type StreamDeletedData, SYSTEM_STREAM } from '../streams/system.js';
import { runIdOfStream } from './deploy-runs.js';
import type { Projection } from './projection.js';

/** What one run deployed, by reference: the texts themselves live in their content streams. */
interface RunContent {
  runId: number;
  composeId: string;
  composeHash: string;
  variablesId: string;
  variablesHash: string;
  secretProvider: string | null;
  images: RunImage[];
}

/** A stack's history settings; the defaults when it never set any. */
export interface StackHistorySettings {
  autoRollback: boolean;
  keepRuns: number | null;
  keepDays: number | null;
}

const DEFAULT_HISTORY_SETTINGS: StackHistorySettings = {
  autoRollback: false,
  keepRuns: null,
  keepDays: null,
};

/** One stored content (DeployContentStored) and the runs that refer to it. */
export interface StoredContent {
  id: string;
  kind: 'compose' | 'variables';
  hash: string;
  runs: number[];
}

export interface DeployHistoryState {
  runs: Map<number, RunContent>;
  contents: Map<string, StoredContent>;
  /** The live content of each `kind:hash`, which a new run of the same content refers to. */
  byHash: Map<string, string>;
  /** By `stackKey`. */
  settings: Map<string, StackHistorySettings>;
}

const stackKey = (environmentId: EnvironmentId, name: string) => `${environmentId ?? 'local'}/${name}`;

export const contentKey = (kind: StoredContent['kind'], hash: string) => `${kind}:${hash}`;

function forgetRun(state: DeployHistoryState, runId: number): void {
  const run = state.runs.get(runId);
  if (!run) return;
  state.runs.delete(runId);
  for (const id of [run.composeId, run.variablesId]) {
    const content = state.contents.get(id);
    if (content) content.runs = content.runs.filter((r) => r !== runId);
  }
}

/** Stored contents no run refers to any more: what the history deletes (key and stream). */
export const unreferencedContents = (state: DeployHistoryState): StoredContent[] =>
  [...state.contents.values()].filter((content) => content.runs.length === 0);

type Data<T extends keyof StacksEventMap> = StacksEventMap[T];

/** The read model of deploy history: each run's recorded content, each stack's settings. */
export const deployHistory: Projection<DeployHistoryState> = {
  name: 'deploy-history',
  version: 1,
  initial: () => ({ runs: new Map(), contents: new Map(), byHash: new Map(), settings: new Map() }),
  evolve(state, event: RecordedEvent) {
    switch (event.type) {
      case 'DeployContentStored': {
        const d = event.data as Data<'DeployContentStored'>;
        state.contents.set(d.content_id, { id: d.content_id, kind: d.kind, hash: d.hash, runs: [] });
        state.byHash.set(contentKey(d.kind, d.hash), d.content_id);
        return state;
      }
      case 'RunContentRecorded': {
        if (!event.stream.startsWith(RUN_STREAM_PREFIX)) return state;
        const d = event.data as Data<'RunContentRecorded'>;
        for (const id of [d.compose_id, d.variables_id]) state.contents.get(id)?.runs.push(d.run_id);
        state.runs.set(d.run_id, {
          runId: d.run_id,
          composeId: d.compose_id,
          composeHash: d.compose_hash,
          variablesId: d.variables_id,
          variablesHash: d.variables_hash,
          secretProvider: d.secret_provider,
          images: state.runs.get(d.run_id)?.images ?? [],
        });
        return state;
      }
      case 'RunImagesRecorded': {
        const d = event.data as Data<'RunImagesRecorded'>;
        const run = state.runs.get(d.run_id);
        if (run) run.images = d.images.map((image) => ({ ...image }));
        return state;
      }
      case 'RunDeleted':
        forgetRun(state, (event.data as Data<'RunDeleted'>).run_id);
        return state;
      case 'StackHistorySettingsSet': {
        const d = event.data as Data<'StackHistorySettingsSet'>;
        state.settings.set(stackKey(d.environment_id, d.stack), {
          autoRollback: d.auto_rollback,
          keepRuns: d.keep_runs,
          keepDays: d.keep_days,
        });
        return state;
      }
      case 'StackDeleted': {
        const d = event.data as Data<'StackDeleted'>;
        state.settings.delete(stackKey(d.environment_id, d.stack));
        return state;
      }
      case STREAM_DELETED: {
        if (event.stream !== SYSTEM_STREAM) return state;
        const stream = (event.data as StreamDeletedData).stream;
        const runId = runIdOfStream(stream);
        if (runId !== undefined) forgetRun(state, runId);
        if (stream.startsWith(CONTENT_STREAM_PREFIX)) {
          const content = state.contents.get(stream.slice(CONTENT_STREAM_PREFIX.length));
          if (content) {
            state.contents.delete(content.id);
            const key = contentKey(content.kind, content.hash);
            if (state.byHash.get(key) === content.id) state.byHash.delete(key);
          }
        }
        return state;
      }
      default:
        return state;
    }
  },
  snapshot: {
    save: (state) => ({
      runs: [...state.runs.values()] as unknown as Json,
      contents: [...state.contents.values()] as unknown as Json,
      byHash: [...state.byHash.entries()],
      settings: [...state.settings.entries()] as unknown as Json,
    }),
    load: (json) => {
      const saved = json as unknown as {
        runs: RunContent[];
        contents: StoredContent[];
        byHash: Array<[string, string]>;
        settings: Array<[string, StackHistorySettings]>;
      };
      return {
        runs: new Map(saved.runs.map((run) => [run.runId, run])),
        contents: new Map(saved.contents.map((content) => [content.id, content])),
        byHash: new Map(saved.byHash),
        settings: new Map(saved.settings),
      };
    },
  },
};

export const settingsOf = (
  state: DeployHistoryState,
  environmentId: EnvironmentId,
  name: string,
): StackHistorySettings => state.settings.get(stackKey(environmentId, name)) ?? DEFAULT_HISTORY_SETTINGS;
