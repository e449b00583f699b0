import type { FastifyInstance } from 'fastify';
import { StacksError } from '../stacks/errors.js';
import { pagingParam } from '../stacks/executions-list.js';
import type { StacksService } from '../stacks/service.js';
import { historySchemas } from './stacks-api/history-routes.js';
import { userOf } from './stacks-request.js';

/**
 * Notifications (issue 19 point 4), admins only: the channels, a test message to one, and the deliveries with
 * every attempt, newest first (`limit` 1-500, default 50; `offset`).
 */
export function notificationRoutes(app: FastifyInstance, service: StacksService): void {
  const admin = (request: Parameters<typeof userOf>[0]) => {
    if (!userOf(request).admin) throw new StacksError(403, 'Only an admin may manage notifications');
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
    const all = [...service.notifications.model.state.deliveries.values()].reverse();
    return { deliveries: all.slice(offset, offset + limit), total: all.length };
  });
}
