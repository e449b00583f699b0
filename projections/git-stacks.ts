import { type DeliveryIds, deliveryIdsOf, deliveryList, rememberDelivery } from '../src/stacks/webhook.js';
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
  autoDeployCron: string | null;
  webhookSecretSet: boolean;
  /** Commit of the newest git run of this stack, whatever its status; null before the first. */
  lastCommit: string | null;
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
        autoDeployCron: d.auto_deploy_cron,
        webhookSecretSet: d.webhook_secret_set,
        lastCommit: before?.lastCommit ?? null,
        lastRunId: before?.lastRunId ?? null,
        deliveries: before?.deliveries ?? deliveryIdsOf([]),
      });
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
      const commit = d.extra?.commit;
      if (d.extra?.source !== 'git' || typeof commit !== 'string') return state;
      const stack = state.stacks.get(gitStackKey(d.environment_id, d.stack));
      if (stack) {
        stack.lastCommit = commit;
        stack.lastRunId = d.run_id;
      }
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
  version: 1,
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
            { ...s, deliveries: deliveryIdsOf(s.deliveries) },
          ]),
        ),
      };
    },
  },
};
