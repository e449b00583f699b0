import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { StackHistorySettings } from '../../../../projections/deploy-history.js';
import type { DeployRun } from '../../../../projections/deploy-runs.js';
import { checkEnvAccess, checkGlobal, checkRunAccess } from '../../../stacks/access/auth.js';
import type { StackAction } from '../../../stacks/contracts.js';
import { StacksError } from '../../../stacks/errors.js';
import { showVariable } from '../../../stacks/history/content.js';
import { parseEnvParam, parseRunId, parseStackName } from '../../../stacks/names.js';
import type { StacksService } from '../../../stacks/stacks-service.js';
import { historySchemas } from '../api/history-routes.js';
import { allow, answerJob, userOf } from '../request.js';

/** The `env` query (the history routes read it themselves: they have no schema yet). */
const envOf = (request: FastifyRequest) => {
  const raw = (request.query as Record<string, unknown>).env;
  const one = Array.isArray(raw) ? raw[0] : raw;
  return parseEnvParam(typeof one === 'string' ? one : undefined);
};

const bodyOf = (request: FastifyRequest): Record<string, unknown> => {
  const body = request.body;
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw new StacksError('invalid_body', 'The body must be a JSON object');
  return body as Record<string, unknown>;
};

/** Bounds of the retention settings a stack may set (a run id fits far more; these keep input sane). */
const MAX_KEEP_RUNS = 1_000_000;
const MAX_KEEP_DAYS = 36_500;

/**
 * Deploy history routes (docs/stacks.md#deploy-history-what-each-run-deployed-diff-redeploy-rollback): what a run deployed, the diff of two runs, redeploying a run, and a
 * stack's history settings (auto-rollback, retention). Run routes check like the spec's single-run
 * endpoints: the global permission, the run being of the stack in the path (404), then the run's own
 * environment.
 */
export function historyRoutes(app: FastifyInstance, service: StacksService): void {
  const runOf = (request: FastifyRequest, action: StackAction, runId?: string): DeployRun => {
    const { name, runId: own } = request.params as { name: string; runId: string };
    const user = userOf(request);
    const stack = parseStackName(name);
    const id = parseRunId(runId ?? own);
    allow(checkGlobal(user, action));
    const run = service.runs.get(id);
    if (!run || run.stack !== stack) throw new StacksError('run_not_found', 'Run not found');
    allow(checkRunAccess(user, action, run.environmentId));
    return run;
  };

  app.get(historySchemas.getRunCompose.url, historySchemas.getRunCompose, async (request) => {
    const run = runOf(request, 'view');
    const side = await service.history.side(run);
    return { runId: run.id, composeHash: side.composeHash, compose: side.compose };
  });

  app.get(historySchemas.getRunVariables.url, historySchemas.getRunVariables, async (request) => {
    const run = runOf(request, 'view');
    const side = await service.history.side(run);
    return {
      runId: run.id,
      secretProvider: side.secretProvider,
      variables: side.variables.map(showVariable),
    };
  });

  app.get(historySchemas.getRunImages.url, historySchemas.getRunImages, async (request) => {
    const run = runOf(request, 'view');
    return { runId: run.id, images: service.history.images(run) };
  });

  app.get(historySchemas.getRunDiff.url, historySchemas.getRunDiff, async (request) => {
    const from = runOf(request, 'view');
    const to = (request.query as Record<string, unknown>).to;
    if (typeof to !== 'string')
      throw new StacksError('invalid_query', 'to must name the run to compare with (?to=<runId>)');
    return service.history.diff(from, runOf(request, 'view', to));
  });

  app.post(historySchemas.redeployRun.url, historySchemas.redeployRun, async (request, reply) => {
    const run = runOf(request, 'edit');
    service.environment(run.environmentId);
    return answerJob(request, reply, await service.history.redeploy(run, userOf(request).name));
  });

  const stackOf = (request: FastifyRequest, action: StackAction) => {
    const env = envOf(request);
    const user = userOf(request);
    allow(checkEnvAccess(user, action, env));
    service.environment(env);
    return {
      user,
      ref: { name: parseStackName((request.params as { name: string }).name), environmentId: env },
    };
  };

  app.get(historySchemas.getHistorySettings.url, historySchemas.getHistorySettings, async (request) => {
    const { ref } = stackOf(request, 'view');
    await service.getStack(ref);
    return service.history.settings(ref);
  });

  app.put(historySchemas.setHistorySettings.url, historySchemas.setHistorySettings, async (request) => {
    const { ref, user } = stackOf(request, 'edit');
    return service.history.setSettings(ref, settingsChange(bodyOf(request)), user.name);
  });
}

/** A partial settings body: `autoRollback` a boolean, `keepRuns`/`keepDays` a positive integer or null. */
function settingsChange(body: Record<string, unknown>): Partial<StackHistorySettings> {
  const change: Partial<StackHistorySettings> = {};
  for (const key of Object.keys(body)) {
    const value = body[key];
    if (key === 'autoRollback') {
      if (typeof value !== 'boolean')
        throw new StacksError('invalid_settings', 'autoRollback must be a boolean');
      change.autoRollback = value;
    } else if (key === 'keepRuns' || key === 'keepDays') {
      const max = key === 'keepRuns' ? MAX_KEEP_RUNS : MAX_KEEP_DAYS;
      if (
        value !== null &&
        !(Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= max)
      )
        throw new StacksError('invalid_settings', `${key} must be an integer from 1 to ${max}, or null`);
      change[key] = value as number | null;
    } else
      throw new StacksError(
        'invalid_settings',
        `Unknown field ${JSON.stringify(key)} (autoRollback, keepRuns, keepDays)`,
      );
  }
  return change;
}
