import {
  type DeliveryIds,
  deliveryIdsOf,
  deliveryList,
  rememberDelivery,
} from '../src/stacks/git/webhook.js';
import type { Json, RecordedEvent } from '../src/store/types.js';
import type { EnvironmentId, StacksEventMap } from '../streams/stacks.js';
import type { Projection } from './projection.js';

/**
 * The git stacks, as their events made them: settings without credentials or secret (the stack's
 * `git.json` holds those), the commit of the latest git run since the stack was created (what the
 * auto-deploy compares the remote with), and the webhook delivery ids already handled.
 */
export interface GitStack {
  name: string;
  environmentId: EnvironmentId;
  repository: string;
  branch: string;
  composePath: string;
  /** The override files compose gets after `composePath`, in order. */
  files: string[];
  autoDeployCron: string | null;
  webhookSecretSet: boolean;
  /**
   * Commit of the newest git run of this stack that got as far as fetching one, whatever its status;
   * null before the first. A run whose fetch failed leaves the commit before it.
   */
  lastCommit: string | null;
  /** The newest git run of this stack, from its start (before its commit is known). */
  lastRunId: number | null;
  deliveries: DeliveryIds;
}

export interface GitStacksState {
  stacks: Map<string, GitStack>;
}

export const gitStackKey = (environmentId: EnvironmentId, name: string) =>
  `${environmentId === null ? 'local' : environmentId}/${name}`;

type Data<T extends keyof StacksEventMap> = StacksEventMap[T];

function evolve(state: GitStacksState, event: RecordedEvent): GitStacksState {
  switch (event.type) {
    case 'GitStackConfigured': {
      const d = event.data as unknown as Data<'GitStackConfigured'>;
      const key = gitStackKey(d.environment_id, d.stack);
      const before = state.stacks.get(key);
      state.stacks.set(key, {
        name: d.stack,
        environmentId: d.environment_id,
        repository: d.repository,
        branch: d.branch,
        composePath: d.compose_path,
        files: before?.files ?? [],
        autoDeployCron: d.auto_deploy_cron,
        webhookSecretSet: d.webhook_secret_set,
        lastCommit: before?.lastCommit ?? null,
        lastRunId: before?.lastRunId ?? null,
        deliveries: before?.deliveries ?? deliveryIdsOf([]),
      });
      return state;
    }
    case 'GitStackFilesSet': {
      const d = event.data as unknown as Data<'GitStackFilesSet'>;
      const stack = state.stacks.get(gitStackKey(d.environment_id, d.stack));
      if (stack) stack.files = [...d.files];
      return state;
    }
    case 'StackDeleted': {
      const d = event.data as unknown as Data<'StackDeleted'>;
      // A stack made again under the name starts afresh: no last commit, no remembered deliveries.
      state.stacks.delete(gitStackKey(d.environment_id, d.stack));
      return state;
    }
    case 'RunStarted': {
      const d = event.data as unknown as Data<'RunStarted'>;
      if (d.extra?.source !== 'git') return state;
      const stack = state.stacks.get(gitStackKey(d.environment_id, d.stack));
      if (stack) {
        stack.lastRunId = d.run_id;
        // A create-and-deploy knows its commit at the start; a deploy learns it in RunSourceResolved.
        if (typeof d.extra.commit === 'string') stack.lastCommit = d.extra.commit;
      }
      return state;
    }
    case 'RunSourceResolved': {
      const d = event.data as unknown as Data<'RunSourceResolved'>;
      const commit = d.extra?.commit;
      if (typeof commit !== 'string') return state;
      // Runs of one stack never overlap (one job per stack), so the run is its stack's latest.
      for (const stack of state.stacks.values()) if (stack.lastRunId === d.run_id) stack.lastCommit = commit;
      return state;
    }
    case 'GitWebhookDeliveryHandled': {
      const d = event.data as unknown as Data<'GitWebhookDeliveryHandled'>;
      const stack = state.stacks.get(gitStackKey(d.environment_id, d.stack));
      if (stack) rememberDelivery(stack.deliveries, d.delivery_id);
      return state;
    }
    default:
      return state;
  }
}

type SavedStack = Omit<GitStack, 'deliveries'> & { deliveries: string[] };

export const gitStacks: Projection<GitStacksState> = {
  name: 'git-stacks',
  // 2: the last run is taken from RunStarted, its commit from RunSourceResolved as well. 3: files.
  version: 3,
  initial: () => ({ stacks: new Map() }),
  evolve,
  snapshot: {
    save: (state) =>
      [...state.stacks.values()].map(
        (s): SavedStack => ({ ...s, deliveries: deliveryList(s.deliveries) }),
      ) as unknown as Json,
    load: (json) => {
      const saved = json as unknown as SavedStack[];
      return {
        stacks: new Map(
          saved.map((s) => [
            gitStackKey(s.environmentId, s.name),
            { ...s, files: s.files ?? [], deliveries: deliveryIdsOf(s.deliveries) },
          ]),
        ),
      };
    },
  },
};
