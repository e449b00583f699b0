import { createTwoFilesPatch } from 'diff';
import type { DeployOptions, RecordedVariable, RunImage } from '../../../streams/stacks.js';
import { type ShownVariable, showVariable } from './content.js';
import { imageChanged } from './images.js';

/** Everything a run's record says it deployed, with the texts read from their content streams. */
export interface RunSide {
  runId: number;
  compose: string;
  composeHash: string;
  variables: RecordedVariable[];
  secretProvider: string | null;
  options: DeployOptions;
  /** A git stack's commit (its run's `details.commit`), else null. */
  commit: string | null;
  images: RunImage[];
}

interface VariableChange {
  name: string;
  /** Whether it is secret on either side: then no value is shown, only that it changed. */
  secret: boolean;
  from?: string;
  to?: string;
  /** Set when it went from secret to not secret or back. */
  secretChanged?: boolean;
}

export interface RunDiff {
  from: number;
  to: number;
  compose: { changed: boolean; patch: string };
  variables: { added: ShownVariable[]; removed: ShownVariable[]; changed: VariableChange[] };
  secretProvider: { from: string | null; to: string | null } | null;
  options: Array<{ name: keyof DeployOptions; from: boolean; to: boolean }>;
  images: Array<{ service: string; from: RunImage | null; to: RunImage | null }>;
  commit: { from: string | null; to: string | null } | null;
}

/** How a variable's recorded value compares: an HMAC for a secret, the value otherwise. */
const fingerprint = (v: RecordedVariable) => (v.secret ? `s:${v.hmac}` : `v:${v.value}`);

function variableChanges(from: readonly RecordedVariable[], to: readonly RecordedVariable[]) {
  const before = new Map(from.map((v) => [v.name, v]));
  const after = new Map(to.map((v) => [v.name, v]));
  const added = to.filter((v) => !before.has(v.name)).map(showVariable);
  const removed = from.filter((v) => !after.has(v.name)).map(showVariable);
  const changed: VariableChange[] = [];
  for (const a of from) {
    const b = after.get(a.name);
    if (b === undefined || (a.secret === b.secret && fingerprint(a) === fingerprint(b))) continue;
    if (!a.secret && !b.secret) {
      changed.push({ name: a.name, secret: false, from: a.value, to: b.value });
      continue;
    }
    // A secret's HMAC is keyed by its name and value only: equal HMACs are equal values, flag aside.
    changed.push({
      name: a.name,
      secret: true,
      ...(a.secret !== b.secret ? { secretChanged: true } : {}),
    });
  }
  return { added, removed, changed };
}

/** The difference of two recorded runs: what deploying `to` after `from` changed. Pure. */
export function diffRuns(from: RunSide, to: RunSide): RunDiff {
  const composeChanged = from.composeHash !== to.composeHash;
  const patch = composeChanged
    ? createTwoFilesPatch(
        `run-${from.runId}/compose.yaml`,
        `run-${to.runId}/compose.yaml`,
        from.compose,
        to.compose,
        undefined,
        undefined,
        { context: 3 },
      )
    : '';
  const options = (['pull', 'build', 'forceRecreate'] as const)
    .filter((name) => from.options[name] !== to.options[name])
    .map((name) => ({ name, from: from.options[name], to: to.options[name] }));
  const services = [...new Set([...from.images, ...to.images].map((i) => i.service))].sort();
  const images = services
    .map((service) => ({
      service,
      from: from.images.find((i) => i.service === service) ?? null,
      to: to.images.find((i) => i.service === service) ?? null,
    }))
    .filter((d) => imageChanged(d.from, d.to));
  return {
    from: from.runId,
    to: to.runId,
    compose: { changed: composeChanged, patch },
    variables: variableChanges(from.variables, to.variables),
    secretProvider:
      from.secretProvider === to.secretProvider ? null : { from: from.secretProvider, to: to.secretProvider },
    options,
    images,
    commit: from.commit === to.commit ? null : { from: from.commit, to: to.commit },
  };
}
