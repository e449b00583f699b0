import { audit } from './audit.js';
import { deployHistory } from './deploy-history.js';
import { deployRuns } from './deploy-runs.js';
import { editorModels } from './editor-models.js';
import { editorSessions } from './editor-sessions.js';
import { reconcileExecutions } from './executions.js';
import { gitStacks } from './git-stacks.js';
import { jobs } from './jobs.js';
import { notifications } from './notifications.js';
import type { AnyProjection } from './projection.js';
import { retentionExecutions } from './retention-executions.js';
import { generalSettings } from './settings.js';
import { stackActivity } from './stack-activity.js';
import { streamCatalog } from './stream-catalog.js';

/**
 * Every read model chronicle keeps, by name: what `chronicle rebuild` rebuilds (all of them, or those
 * named) and what a running server's control endpoint rebuilds blue-green. Registering one here is all
 * it takes.
 */
export const projections: readonly AnyProjection[] = [
  streamCatalog,
  editorSessions,
  editorModels,
  deployRuns,
  deployHistory,
  audit,
  stackActivity,
  retentionExecutions,
  notifications,
  jobs,
  gitStacks,
  reconcileExecutions,
  generalSettings,
] as AnyProjection[];

export const projectionNames = () => projections.map((p) => p.name);
export const findProjection = (name: string) => projections.find((p) => p.name === name);
