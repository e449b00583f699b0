import type { FastifyInstance } from 'fastify';
import { RETENTION_SCHEDULE_TYPE, toRetentionJson } from '../../projections/retention-executions.js';
import { hasGlobal } from '../stacks/auth.js';
import { StacksError } from '../stacks/errors.js';
import type { ExtraExecution } from '../stacks/executions-list.js';
import type { StacksService } from '../stacks/service.js';
import { historySchemas } from './stacks-api/history-routes.js';
import { userOf } from './stacks-request.js';

/** The retention's execution rows, for `GET /api/schedules/executions`. */
export const retentionRows = (service: StacksService): ExtraExecution[] =>
  [...service.retention.model.state.executions.values()].map((e) => ({
    startedAt: e.startedAt,
    id: e.id,
    type: RETENTION_SCHEDULE_TYPE,
    row: toRetentionJson(e),
  }));

/**
 * `POST /api/schedules/deploy_run_retention/run` (issue 19 point 5): runs the retention now, whether or
 * not its schedule is enabled, and answers the closed execution row (409 while one runs). A static
 * route: it wins over the schedules' `/:type/run`.
 */
export function retentionRoutes(app: FastifyInstance, service: StacksService): void {
  app.post(historySchemas.runRetention.url, historySchemas.runRetention, async (request) => {
    const user = userOf(request);
    if (!user.admin && !hasGlobal(user, 'edit'))
      throw new StacksError(
        403,
        'forbidden: running deploy_run_retention needs an admin or the stacks edit permission',
      );
    return toRetentionJson(await service.retention.run('manual', user.name));
  });
}
