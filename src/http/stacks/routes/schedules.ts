import { RECONCILE_SCHEDULE_TYPE, toExecutionJson } from '../../../../projections/executions.js';
import { hasGlobal } from '../../../stacks/access/auth.js';
import { StacksError } from '../../../stacks/errors.js';
import { parseSettingsPatch } from '../../../stacks/schedules/settings.js';
import type { StacksService } from '../../../stacks/stacks-service.js';
import { stacksRoutes as routes } from '../api/routes.js';
import type { StacksFastify } from '../openapi.js';
import { userOf } from '../request.js';
import { retentionRows } from './retention.js';

/**
 * Schedule types the toggle knows; both are refused, as neither has a per-item schedule to pause. A Map:
 * the type comes from the path, and `constructor` must be as unknown as any other word.
 */
const TOGGLE_REFUSALS: ReadonlyMap<string, string> = new Map([
  [
    RECONCILE_SCHEDULE_TYPE,
    'deploy_log_reconcile cannot be paused or resumed per item; set deployLogReconcileEnabled in /api/settings/general',
  ],
  ['stack_deploy', 'stack_deploy has no schedule of its own to pause or resume'],
]);

/**
 * Settings, the reconcile's manual run, the per-item toggle and the execution history
 * (docs/stacks.md#limits-reconcile-settings-and-schedules).
 */
export function scheduleRoutes(app: StacksFastify, service: StacksService): void {
  const schedules = service.schedules;

  app.route({ ...routes.getSettings, handler: async () => schedules.settings.get() });

  app.route({
    ...routes.changeSettings,
    handler: async (request) => {
      const user = userOf(request);
      if (!user.admin) throw new StacksError('forbidden', 'forbidden: changing settings needs an admin');
      // The schema checked the keys and types; node-cron checks the expression.
      return schedules.settings.change(parseSettingsPatch(request.body), user.name);
    },
  });

  app.route({
    ...routes.runSchedule,
    handler: async (request) => {
      const { type } = request.params;
      const user = userOf(request);
      if (type !== RECONCILE_SCHEDULE_TYPE)
        throw new StacksError('schedule_not_found', `No schedule type ${JSON.stringify(type)} to run`);
      if (!user.admin && !hasGlobal(user, 'edit'))
        throw new StacksError(
          'forbidden',
          'forbidden: running deploy_log_reconcile needs an admin or the stacks edit permission',
        );
      // Runs whether or not the schedule is enabled; answered once it has ended.
      return toExecutionJson(await schedules.reconciler.run('manual', user.name));
    },
  });

  app.route({
    ...routes.toggleSchedule,
    handler: async (request) => {
      const { type, id } = request.params;
      const refusal = TOGGLE_REFUSALS.get(type);
      if (refusal === undefined)
        throw new StacksError('schedule_not_found', `No schedule type ${JSON.stringify(type)}`);
      if (!/^(0|[1-9][0-9]*)$/.test(id))
        throw new StacksError('invalid_id', `Invalid schedule id ${JSON.stringify(id)}`);
      throw new StacksError('invalid_settings', refusal);
    },
  });

  app.route({
    ...routes.listExecutions,
    handler: async (request) =>
      schedules.executions(
        userOf(request),
        request.query,
        (run) => service.runs.errorOf(run),
        retentionRows(service, userOf(request)),
      ),
  });
}
