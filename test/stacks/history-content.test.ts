import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DeployRun } from '../../projections/deploy-runs.js';
import { recordVariables, variablesForRedeploy } from '../../src/stacks/history/content.js';
import { diffRuns, type RunSide } from '../../src/stacks/history/diff.js';
import { planRetention } from '../../src/stacks/runs/retention.js';

const key = randomBytes(32);
const side = (over: Partial<RunSide>): RunSide => ({
  runId: 1,
  compose: 'services: {}\n',
  composeHash: 'h1',
  variables: [],
  secretProvider: null,
  options: { pull: false, build: false, forceRecreate: false },
  commit: null,
  images: [],
  ...over,
});

describe('recorded variables', () => {
  it('keep a secret as a keyed HMAC only, sorted by name, and hash equal sets equally', () => {
    const a = recordVariables(key, [
      { name: 'B', value: 'plain', secret: false },
      { name: 'A', value: 'hunter22', secret: true },
    ]);
    expect(a.variables.map((v) => v.name)).toEqual(['A', 'B']);
    expect(JSON.stringify(a)).not.toContain('hunter22');
    const b = recordVariables(key, [
      { name: 'A', value: 'hunter22', secret: true },
      { name: 'B', value: 'plain', secret: false },
    ]);
    expect(b.hash).toBe(a.hash);
    expect(recordVariables(randomBytes(32), [{ name: 'A', value: 'hunter22', secret: true }]).hash).not.toBe(
      recordVariables(key, [{ name: 'A', value: 'hunter22', secret: true }]).hash,
    );
  });

  it('redeploy with recorded plain values and today secret values; missing secrets named', () => {
    const recorded = recordVariables(key, [
      { name: 'S', value: 'old-secret', secret: true },
      { name: 'T', value: 'gone-secret', secret: true },
      { name: 'P', value: 'then', secret: false },
    ]).variables;
    const out = variablesForRedeploy(recorded, [
      { name: 'S', value: 'new-secret', secret: true },
      { name: 'P', value: 'now', secret: false },
    ]);
    expect(out.missing).toEqual(['T']);
    expect(out.variables).toEqual([
      { name: 'P', value: 'then', secret: false },
      { name: 'S', value: 'new-secret', secret: true },
    ]);
  });
});

describe('diffRuns', () => {
  it('reports a secret that changed or flipped its flag without a value, and image and commit changes', () => {
    const from = side({
      variables: recordVariables(key, [
        { name: 'S', value: 'one-value', secret: true },
        { name: 'F', value: 'flag-flip', secret: false },
      ]).variables,
      commit: 'aaa',
      images: [{ service: 'web', image: 'nginx', imageId: 'sha256:1', repoDigest: null }],
    });
    const to = side({
      runId: 2,
      variables: recordVariables(key, [
        { name: 'S', value: 'two-value', secret: true },
        { name: 'F', value: 'flag-flip', secret: true },
      ]).variables,
      commit: 'bbb',
      images: [{ service: 'web', image: 'nginx', imageId: 'sha256:2', repoDigest: null }],
    });
    const diff = diffRuns(from, to);
    expect(diff.variables.changed).toEqual([
      { name: 'F', secret: true, secretChanged: true },
      { name: 'S', secret: true },
    ]);
    expect(JSON.stringify(diff)).not.toMatch(/one-value|two-value|flag-flip/);
    expect(diff.commit).toEqual({ from: 'aaa', to: 'bbb' });
    expect(diff.images).toEqual([{ service: 'web', from: from.images[0], to: to.images[0] }]);
    expect(diff.compose).toEqual({ changed: false, patch: '' });
  });
});

describe('planRetention', () => {
  const DAY = 86_400_000;
  const now = Date.parse('2026-11-26T00:00:00Z');
  const run = (id: number, status: string, daysAgo: number, stack = 's'): DeployRun =>
    ({
      id,
      stack,
      environmentId: null,
      status,
      startedAt: new Date(now - daysAgo * DAY).toISOString(),
      finishedAt: status === 'running' ? null : new Date(now - daysAgo * DAY).toISOString(),
    }) as DeployRun;

  it('removes runs older than keepDays, never the last successful nor a running one', () => {
    const runs = [run(1, 'success', 30), run(2, 'failed', 20), run(3, 'running', 40), run(4, 'failed', 1)];
    const plan = planRetention(runs, () => ({ keepRuns: null, keepDays: 7 }), now);
    expect(plan).toEqual({ remove: [2], keptLastGood: [1] });
  });

  it('applies keepRuns per stack and nothing without a policy', () => {
    const runs = [
      run(1, 'failed', 3),
      run(2, 'success', 2),
      run(3, 'success', 1),
      run(4, 'failed', 1, 'other'),
    ];
    expect(
      planRetention(runs, (r) => ({ keepRuns: r.stack === 's' ? 1 : null, keepDays: null }), now),
    ).toEqual({
      remove: [1, 2],
      keptLastGood: [],
    });
  });
});
