import type { FastifyInstance } from 'fastify';
import {
  RETENTION_SCHEDULE_TYPE,
  type RetentionExecution,
  toRetentionJson,
} from '../../../../projections/retention-executions.js';
import { checkRunAccess, hasGlobal } from '../../../stacks/access/auth.js';
import type { User } from '../../../stacks/contracts.js';
import { StacksError } from '../../../stacks/errors.js';
import type { ExtraExecution } from '../../../stacks/schedules/executions-list.js';
import type { StacksService } from '../../../stacks/stacks-service.js';
import { historySchemas } from '../api/history-routes.js';
import { userOf } from '../request.js';

/**
 * Which run ids of an execution the user may see: those of environments it may view. A run's
 * environment is the one the execution recorded, else the live run's; a run known by neither (deleted
 * before executions recorded environments) only admins see.
 */
function runsShownTo(
  user: User,
  service: StacksService,
  execution: RetentionExecution,
): (runId: number) => boolean {
  if (user.admin) return () => true;
  const recorded = new Map(execution.runEnvironments.map((r) => [r.runId, r.environmentId]));
  return (runId) => {
    const env = recorded.has(runId) ? recorded.get(runId) : service.runs.get(runId)?.environmentId;
    return env !== undefined && checkRunAccess(user, 'view', env).ok;
  };
}

/** The retention's execution rows, for `GET /api/schedules/executions`, as the user may see them. */
export const retentionRows = (service: StacksService, user: User): ExtraExecution[] =>
  [...service.retention.model.state.executions.values()].map((e) => ({
    startedAt: e.startedAt,
    id: e.id,
    type: RETENTION_SCHEDULE_TYPE,
    row: toRetentionJson(e, runsShownTo(user, service, e)),
  }));

/**
 * `POST /api/schedules/deploy_run_retention/run` (docs/stacks.md#deploy-run-retention): runs the retention now, whether or
 * not its schedule is enabled, and answers the closed execution row (409 while one runs). A static
 * route: it wins over the schedules' `/:type/run`.
 */
export function retentionRoutes(app: FastifyInstance, service: StacksService): void {
  app.post(historySchemas.runRetention.url, historySchemas.runRetention, async (request) => {
    const user = userOf(request);
    if (!user.admin && !hasGlobal(user, 'edit'))
      throw new StacksError(
        'forbidden',
        'forbidden: running deploy_run_retention needs an admin or the stacks edit permission',
      );
    const execution = await service.retention.run('manual', user.name);
    return toRetentionJson(execution, runsShownTo(user, service, execution));
  });
}
