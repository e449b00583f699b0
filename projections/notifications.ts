import type { Json, RecordedEvent } from '../src/store/types.js';
import {
  type EnvironmentId,
  EXECUTION_STREAM_PREFIX,
  NOTIFICATIONS_STREAM,
  RUN_STREAM_PREFIX,
  type StacksEventMap,
} from '../streams/stacks.js';
import type { Projection } from './projection.js';

/**
 * Notifications (docs/stacks.md#notifications): what is worth a notification (occurrences, from run and reconcile
 * events; config-free, so it rebuilds like any read model), and what was delivered (attempts). The
 * dispatcher (src/stacks/notifications/) matches occurrences to the configured channels.
 */
type NotificationEvent =
  | 'run.failed'
  | 'run.succeeded'
  | 'run.rolled_back'
  | 'reconcile.warning'
  | 'reconcile.failed'
  | 'test';

export interface Occurrence {
  position: number;
  event: NotificationEvent;
  stack: string | null;
  environmentId: EnvironmentId;
  runId: number | null;
  /** The message: names, ids and statuses only, never output (which could hold a secret). */
  text: string;
  at: string;
}

interface Delivery {
  key: string;
  channel: string;
  event: string;
  occurrence: number;
  attempts: Array<{ attempt: number; at: string; ok: boolean; status: number | null; error: string | null }>;
  state: 'pending' | 'delivered' | 'failed';
}

/**
 * Where a channel starts: it is given the occurrences after `position` only. `at` is when it first
 * appeared; null for a channel known only from its deliveries (written before starts were recorded),
 * which starts at 0 and keeps the checkpoint.
 */
export interface ChannelStart {
  position: number;
  at: string | null;
}

export interface NotificationsState {
  occurrences: Occurrence[];
  deliveries: Map<string, Delivery>;
  checkpoint: number;
  /** Every channel that ever appeared, by name (a channel is known once it is here). */
  channels: Map<string, ChannelStart>;
  runs: Map<number, { stack: string; environmentId: EnvironmentId; rollbackOf: number | null }>;
}

type Data<T extends keyof StacksEventMap> = StacksEventMap[T];

function occurrencesOf(
  state: NotificationsState,
  event: RecordedEvent,
): Omit<Occurrence, 'position' | 'at'>[] {
  if (event.stream.startsWith(RUN_STREAM_PREFIX)) {
    if (event.type === 'RunStarted') {
      const d = event.data as Data<'RunStarted'>;
      const rollbackOf = d.extra?.rollbackOf;
      state.runs.set(d.run_id, {
        stack: d.stack,
        environmentId: d.environment_id,
        rollbackOf: typeof rollbackOf === 'number' ? rollbackOf : null,
      });
      return [];
    }
    if (event.type === 'RunCompleted' || event.type === 'RunCompletedSealed') {
      const d = event.data as Data<'RunCompletedSealed'>;
      const run = state.runs.get(d.run_id);
      state.runs.delete(d.run_id);
      if (!run) return [];
      const base = { stack: run.stack, environmentId: run.environmentId, runId: d.run_id };
      const where = `${run.stack} (environment ${run.environmentId ?? 'local'})`;
      if (d.status === 'failed')
        return [
          {
            ...base,
            event: 'run.failed',
            text: `Deploy run ${d.run_id} of ${where} failed (exit code ${d.exit_code})`,
          },
        ];
      // Someone cancelled it: they know, and it neither failed nor succeeded.
      if (d.status === 'cancelled') return [];
      // An adopted project's run deployed nothing: there is nothing to tell.
      if (d.status === 'adopted') return [];
      const done: Omit<Occurrence, 'position' | 'at'>[] = [
        { ...base, event: 'run.succeeded', text: `Deploy run ${d.run_id} of ${where} succeeded` },
      ];
      if (run.rollbackOf !== null)
        done.push({
          ...base,
          event: 'run.rolled_back',
          text: `${where} was rolled back after failed run ${run.rollbackOf} (run ${d.run_id})`,
        });
      return done;
    }
    return [];
  }
  if (event.stream.startsWith(EXECUTION_STREAM_PREFIX) && event.type === 'ReconcileCompleted') {
    const d = event.data as Data<'ReconcileCompleted'>;
    if (d.status === 'success') return [];
    const base = { stack: null, environmentId: null, runId: null };
    return [
      d.status === 'warning'
        ? {
            ...base,
            event: 'reconcile.warning',
            text: `Deploy-log reconcile ${d.execution_id}: ${d.failed} element(s) failed`,
          }
        : { ...base, event: 'reconcile.failed', text: `Deploy-log reconcile ${d.execution_id} failed` },
    ];
  }
  return [];
}

export const notifications: Projection<NotificationsState> = {
  name: 'notifications',
  version: 2,
  initial: () => ({
    occurrences: [],
    deliveries: new Map(),
    checkpoint: 0,
    channels: new Map(),
    runs: new Map(),
  }),
  evolve(state, event) {
    if (event.stream === NOTIFICATIONS_STREAM) {
      if (event.type === 'NotificationsCheckpointed')
        state.checkpoint = Math.max(
          state.checkpoint,
          (event.data as Data<'NotificationsCheckpointed'>).position,
        );
      // A channel starts at the log's head when it first appears: the position of this event.
      if (event.type === 'NotificationChannelStarted') {
        const { channel } = event.data as Data<'NotificationChannelStarted'>;
        if (!state.channels.has(channel))
          state.channels.set(channel, { position: event.position, at: event.metadata.at });
      }
      if (event.type === 'NotificationAttempted') {
        const d = event.data as Data<'NotificationAttempted'>;
        if (!state.channels.has(d.channel)) state.channels.set(d.channel, { position: 0, at: null });
        const delivery = state.deliveries.get(d.key) ?? {
          key: d.key,
          channel: d.channel,
          event: d.event,
          occurrence: d.occurrence,
          attempts: [],
          state: 'pending' as const,
        };
        delivery.attempts.push({
          attempt: d.attempt,
          at: event.metadata.at,
          ok: d.ok,
          status: d.status,
          error: d.error,
        });
        delivery.state = d.ok ? 'delivered' : d.final ? 'failed' : 'pending';
        state.deliveries.set(d.key, delivery);
      }
      return state;
    }
    for (const o of occurrencesOf(state, event))
      state.occurrences.push({ ...o, position: event.position, at: event.metadata.at });
    return state;
  },
  snapshot: {
    save: (state) => ({
      occurrences: state.occurrences as unknown as Json,
      deliveries: [...state.deliveries.values()] as unknown as Json,
      checkpoint: state.checkpoint,
      channels: [...state.channels.entries()] as unknown as Json,
      runs: [...state.runs.entries()] as unknown as Json,
    }),
    load: (json) => {
      const saved = json as unknown as {
        occurrences: Occurrence[];
        deliveries: Delivery[];
        checkpoint: number;
        channels: Array<[string, ChannelStart]>;
        runs: Array<[number, { stack: string; environmentId: EnvironmentId; rollbackOf: number | null }]>;
      };
      return {
        occurrences: saved.occurrences,
        deliveries: new Map(saved.deliveries.map((d) => [d.key, d])),
        checkpoint: saved.checkpoint,
        channels: new Map(saved.channels),
        runs: new Map(saved.runs),
      };
    },
  },
};
