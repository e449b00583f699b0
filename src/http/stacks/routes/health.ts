import { statusOf, storeFailed } from '../../../stacks/errors.js';
import type { EventStore } from '../../../store/types.js';
import { stacksRoutes as routes } from '../api/routes.js';
import type { StacksFastify } from '../openapi.js';

/**
 * `GET /api/health`: 200 while the event store takes writes, 503 while it is failed
 * (docs/operations.md#when-the-store-fails). No token needed, so a supervisor can ask; the store's own words (they may name the
 * data folder's paths) only to a caller with one.
 */
export function healthRoutes(app: StacksFastify, store: EventStore): void {
  app.route({
    ...routes.health,
    handler: async (request, reply) => {
      const failure = store.failure;
      if (failure === undefined) return { status: 'ok' as const };
      const { message, fields } = storeFailed(failure);
      const { reason, ...said } = fields ?? {};
      return reply.code(statusOf('store_failed')).send({
        error: message,
        ...said,
        message: `${said.message ?? ''} Failed since ${failure.since}.`.trim(),
        ...(request.stacksUser !== undefined && reason !== undefined ? { reason } : {}),
      });
    },
  });
}
