import { deployRuns } from './deploy-runs.js';
import { reconcileExecutions } from './executions.js';
import { gitStacks } from './git-stacks.js';
import { jobs } from './jobs.js';
import type { AnyProjection } from './projection.js';
import { generalSettings } from './settings.js';
import { streamCatalog } from './stream-catalog.js';

/** Every read model chronicle keeps, by name: what `chronicle rebuild` and the servers run. */
export const projections: readonly AnyProjection[] = [
  streamCatalog,
  deployRuns,
  jobs,
  gitStacks,
  reconcileExecutions,
  generalSettings,
] as AnyProjection[];

export const projectionNames = () => projections.map((p) => p.name);
export const findProjection = (name: string) => projections.find((p) => p.name === name);
