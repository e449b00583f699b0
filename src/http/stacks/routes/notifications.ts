import type { FastifyInstance } from 'fastify';
import type { Occurrence } from '../../../../projections/notifications.js';
import { StacksError } from '../../../stacks/errors.js';
import { pagingParam } from '../../../stacks/schedules/executions-list.js';
import type { StacksService } from '../../../stacks/stacks-service.js';
import { historySchemas } from '../api/history-routes.js';
import { userOf } from '../request.js';

/**
 * Notifications (docs/stacks.md#notifications), admins only: the channels, a test message to one, and the deliveries with
 * every attempt, newest first (`limit` 1-500, default 50; `offset`), with where each channel started (a
 * channel that first appeared is given no notification of what happened before).
 */
export function notificationRoutes(app: FastifyInstance, service: StacksService): void {
  const admin = (request: Parameters<typeof userOf>[0]) => {
    if (!userOf(request).admin) throw new StacksError('forbidden', 'Only an admin may manage notifications');
  };

  app.get(
    historySchemas.listNotificationChannels.url,
    historySchemas.listNotificationChannels,
    async (request) => {
      admin(request);
      return { channels: service.notifications.list() };
    },
  );

  app.post(historySchemas.testNotification.url, historySchemas.testNotification, async (request) => {
    admin(request);
    return service.notifications.test((request.params as { name: string }).name);
  });

  app.get(historySchemas.listDeliveries.url, historySchemas.listDeliveries, async (request) => {
    admin(request);
    const query = request.query as Record<string, unknown>;
    const limit = pagingParam(query.limit, 'limit', 50, 1, 500);
    const offset = pagingParam(query.offset, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
    await service.notifications.model.waitFor(await service.store.headPosition());
    const state = service.notifications.model.state;
    const all = [...state.deliveries.values()].reverse();
    const deliveries = all.slice(offset, offset + limit).map((d) => {
      const o = occurrenceAt(state.occurrences, d.occurrence);
      return {
        ...d,
        stack: o?.stack ?? null,
        environmentId: o?.environmentId ?? null,
        runId: o?.runId ?? null,
      };
    });
    return { deliveries, total: all.length, starts: service.notifications.starts() };
  });
}

/** The occurrence at a log position: they are kept in log order, so a binary search finds it. */
function occurrenceAt(occurrences: readonly Occurrence[], position: number): Occurrence | undefined {
  let low = 0;
  let high = occurrences.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const at = occurrences[middle] as Occurrence;
    if (at.position === position) return at;
    if (at.position < position) low = middle + 1;
    else high = middle - 1;
  }
  return undefined;
}
