/**
 * Size limits of what a stack is made of (docs/security.md#limits-and-their-defaults), checked when it arrives,
 * over the real CLI: a compose file over 1 MiB, a value over 64 KiB, variables over 128 KiB in all (413)
 * or over 1,000 (400) are refused at create, compose save, variables save and git create, naming the
 * limit, and nothing is kept. A stack at every limit at once deploys: the store takes what the run
 * records, and compose gets every variable in its environment.
 */
import { expect, it } from 'vitest';
import {
  MAX_COMPOSE_BYTES,
  MAX_VARIABLE_VALUE_BYTES,
  MAX_VARIABLES,
  MAX_VARIABLES_BYTES,
} from '../../../src/stacks/stack/input-limits.js';
import { tempDir } from '../../cli/helpers.js';
import { makeRepo } from '../../stacks/git-repo.js';
import {
  composeText,
  createStackDone,
  describeStacks,
  expectStatus,
  objectOf,
  q,
  serveStacks,
  type VariableJson,
  waitJob,
} from './helpers.js';

/** A compose file of exactly `bytes` bytes (UTF-8): the fake's text, then a comment to fill it. */
function composeOfSize(bytes: number, lines: string[] = ['at the limit']): string {
  const head = `${composeText({ lines })}# `;
  const fill = bytes - Buffer.byteLength(head) - 1;
  // Two-byte characters, so the limit is one of bytes, not of characters.
  return `${head}${'é'.repeat(Math.floor(fill / 2))}${fill % 2 === 1 ? 'x' : ''}\n`;
}

/** `count` variables whose names and values take `bytes` bytes in all, every fourth one secret. */
function variablesOfSize(count: number, bytes: number): VariableJson[] {
  const names = Array.from({ length: count }, (_, i) => `V${String(i).padStart(4, '0')}`);
  const nameBytes = names.join('').length;
  const each = Math.floor((bytes - nameBytes) / count);
  const rest = bytes - nameBytes - each * count;
  return names.map((name, i) => ({
    name,
    value: `${i}-`.padEnd(each + (i === 0 ? rest : 0), 'v'),
    secret: i % 4 === 0,
  }));
}

const total = (variables: VariableJson[]) =>
  variables.reduce((n, v) => n + Buffer.byteLength(v.name) + Buffer.byteLength(v.value), 0);

describeStacks('size limits of compose files and variables', () => {
  const stacks = serveStacks();

  it('a stack at every limit at once is taken and deploys; its run records what it deployed', async () => {
    const compose = composeOfSize(MAX_COMPOSE_BYTES);
    const variables = variablesOfSize(MAX_VARIABLES, MAX_VARIABLES_BYTES);
    expect(Buffer.byteLength(compose)).toBe(MAX_COMPOSE_BYTES);
    expect(total(variables)).toBe(MAX_VARIABLES_BYTES);
    const done = await createStackDone(stacks.admin, 'at-limits', 1, { compose, variables });
    expect(done.job.result, JSON.stringify(done.job.result)).toMatchObject({ success: true });
    const recorded = await stacks.admin.get(`/api/stacks/at-limits/deploys/${done.runId}/variables`);
    expectStatus(recorded, 200, 'recorded variables');
    expect((objectOf(recorded).variables as unknown[]).length).toBe(MAX_VARIABLES);
    const deployed = await stacks.admin.post('/api/stacks/at-limits/deploy?env=1', {});
    const again = await waitJob(stacks.admin, objectOf(deployed).jobId as string);
    expect(again.result).toMatchObject({ success: true });
  }, 120_000);

  it('a compose file one byte over 1 MiB is 413 at create and at save, and nothing is kept', async () => {
    const over = composeOfSize(MAX_COMPOSE_BYTES + 1);
    const message = `Compose file is ${MAX_COMPOSE_BYTES + 1} bytes, over the limit of ${MAX_COMPOSE_BYTES} bytes (1 MiB)`;
    const created = await stacks.admin.post('/api/stacks?env=1', { name: 'too-big', compose: over });
    expect(created.status, created.text.slice(0, 300)).toBe(413);
    expect(created.value).toEqual({ error: message });
    expect((await stacks.admin.get('/api/stacks/too-big?env=1')).status).toBe(404);

    const small = composeText({ lines: ['small'] });
    await createStackDone(stacks.admin, 'grows', 1, { compose: small });
    const saved = await stacks.admin.put('/api/stacks/grows/compose?env=1', { content: over, restart: true });
    expect(saved.status).toBe(413);
    expect(saved.value).toEqual({ error: message });
    expect(objectOf(await stacks.admin.get('/api/stacks/grows?env=1')).compose).toBe(small);
  }, 60_000);

  it('variables over their count (400), one value or all of them over their size (413) are refused, and the old ones stay', async () => {
    const kept = [{ name: 'KEPT', value: 'kept-value', secret: false }];
    await createStackDone(stacks.admin, 'vars', 1, { variables: kept });
    const cases: Array<[VariableJson[], number, string]> = [
      [
        variablesOfSize(MAX_VARIABLES + 1, 20_000),
        400,
        `variables: ${MAX_VARIABLES + 1} given, over the limit of ${MAX_VARIABLES} variables`,
      ],
      [
        [{ name: 'BIG', value: 'b'.repeat(MAX_VARIABLE_VALUE_BYTES + 1), secret: true }],
        413,
        `variables[0].value (BIG) is ${MAX_VARIABLE_VALUE_BYTES + 1} bytes, over the limit of ${MAX_VARIABLE_VALUE_BYTES} bytes (64 KiB)`,
      ],
      [
        variablesOfSize(100, MAX_VARIABLES_BYTES + 1),
        413,
        `variables: names and values are ${MAX_VARIABLES_BYTES + 1} bytes, over the limit of ${MAX_VARIABLES_BYTES} bytes (128 KiB)`,
      ],
    ];
    for (const [variables, status, error] of cases) {
      const put = await stacks.admin.put(`/api/stacks/vars/variables${q(1)}`, { variables });
      expect(put.status, put.text.slice(0, 300)).toBe(status);
      expect(put.value).toEqual({ error });
      const created = await stacks.admin.post('/api/stacks?env=1', {
        name: 'vars-new',
        compose: composeText(),
        variables,
      });
      expect(created.status).toBe(status);
      expect(created.value).toEqual({ error });
    }
    const stack = objectOf(await stacks.admin.get('/api/stacks/vars?env=1'));
    expect(stack.variables).toEqual(kept);
    expect((await stacks.admin.get('/api/stacks/vars-new?env=1')).status).toBe(404);
  }, 60_000);

  it('a git stack whose compose file is over 1 MiB is refused at create (422), and none is made', async () => {
    const repo = await makeRepo(await tempDir(), {
      'compose.yaml': composeOfSize(MAX_COMPOSE_BYTES + 1),
    });
    const reply = await stacks.admin.post('/api/git-stacks?env=1', {
      name: 'git-big',
      repository: repo.bare,
      composePath: 'compose.yaml',
    });
    expect(reply.status, reply.text).toBe(422);
    expect(reply.value).toEqual({
      error: `Compose file compose.yaml is larger than ${MAX_COMPOSE_BYTES} bytes`,
    });
    expect((await stacks.admin.get('/api/stacks/git-big?env=1')).status).toBe(404);
  }, 60_000);
});
