/**
 * The size limits of a stack (docs/security.md#limits-and-their-defaults) are ones a real deploy takes, on a real
 * engine with each Compose generation: a compose file of 1 MiB whose service gets all 1,000 variables
 * (128 KiB of names and values) in its environment deploys, its run records what it deployed, and the
 * container holds every value.
 */
import { expect, it } from 'vitest';
import {
  MAX_COMPOSE_BYTES,
  MAX_VARIABLES,
  MAX_VARIABLES_BYTES,
} from '../../../src/stacks/stack/input-limits.js';
import {
  type ComposeUnderTest,
  DockerRun,
  describeCompose,
  engine,
  TEST_IMAGE,
} from '../../docker-helpers.js';
import { createStackDone, expectStatus, objectOf, serveEngineStacks, type VariableJson } from './helpers.js';

const SLEEP = `["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"]`;

describeCompose('size limits on a real engine', (compose: ComposeUnderTest) => {
  const docker = new DockerRun(`lim${compose.generation}`);
  const suite = serveEngineStacks(compose.command, () => docker.cleanUp());

  it('a 1 MiB compose file with 1,000 variables of 128 KiB in all deploys, every value in the container', async () => {
    const names = Array.from({ length: MAX_VARIABLES }, (_, i) => `V${String(i).padStart(4, '0')}`);
    const each = Math.floor((MAX_VARIABLES_BYTES - names.join('').length) / MAX_VARIABLES);
    const variables: VariableJson[] = names.map((name, i) => ({
      name,
      value: `${name}-value-`.padEnd(each, String(i % 10)),
      secret: i % 2 === 0,
    }));
    const head = [
      'services:',
      '  app:',
      `    image: ${TEST_IMAGE}`,
      `    command: ${SLEEP}`,
      '    environment:',
      ...names.map((n) => `      ${n}: \${${n}}`),
      '# ',
    ].join('\n');
    const text = `${head}${'f'.repeat(MAX_COMPOSE_BYTES - Buffer.byteLength(head) - 1)}\n`;
    expect(Buffer.byteLength(text)).toBe(MAX_COMPOSE_BYTES);

    const name = docker.stack('big');
    const done = await createStackDone(suite.admin, name, null, { compose: text, variables });
    expect(done.job.result, JSON.stringify(done.job.result)).toMatchObject({ success: true });
    const recorded = await suite.admin.get(`/api/stacks/${name}/deploys/${done.runId}/compose`);
    expectStatus(recorded, 200, 'recorded compose');
    expect(objectOf(recorded).compose).toBe(text);

    const [container] = await docker.containers(name);
    if (container === undefined) throw new Error(`no container of ${name}`);
    const env = (await engine.getContainer(container.Id).inspect()).Config.Env ?? [];
    const values = new Map(env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
    for (const v of variables) expect(values.get(v.name), v.name).toBe(v.value);
  }, 300_000);
});
