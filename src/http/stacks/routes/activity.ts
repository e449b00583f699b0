import type { StacksService } from '../../../stacks/stacks-service.js';
import { activitySchemas as routes } from '../api/activity-routes.js';
import type { StacksFastify } from '../openapi.js';
import { viewedEnvironment } from '../request.js';

/**
 * A stack's Activity (src/stacks/stack/activity.ts): its start, stop, restart and down operations, and one's
 * kept output. `view` on the stack's environment, as its runs.
 */
export function activityRoutes(app: StacksFastify, service: StacksService): void {
  app.route({
    ...routes.listActivity,
    handler: async (request) => {
      const env = viewedEnvironment(request, service);
      return { operations: await service.activity.list(env, request.params.name) };
    },
  });
  app.route({
    ...routes.getActivity,
    handler: async (request) => {
      const env = viewedEnvironment(request, service);
      return service.activity.read(env, request.params.name, request.params.jobId);
    },
  });
}
