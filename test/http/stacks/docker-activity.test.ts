/**
 * A stack's Activity on a real Docker engine, on both Compose generations, black-box over the CLI: Stop
 * then Start appear newest first, by who, succeeded, each with the lines compose printed for them.
 */
import { expect, it } from 'vitest';
import { type ComposeUnderTest, DockerRun, describeCompose, TEST_IMAGE } from '../../docker-helpers.js';
import { createStackDone, type Json, objectOf, serveEngineStacks } from './helpers.js';

const compose = [
  'services:',
  '  web:',
  `    image: ${TEST_IMAGE}`,
  `    command: ["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"]`,
  '',
].join('\n');

describeCompose('stack activity on a real Docker engine', (under: ComposeUnderTest) => {
  const docker = new DockerRun(`act${under.generation}`);
  const suite = serveEngineStacks(under.command, () => docker.cleanUp());

  it('Stop then Start are in the Activity with their output', async () => {
    const name = docker.stack('act');
    await createStackDone(suite.admin, name, null, { compose });
    const stop = objectOf(await suite.admin.postJson(`/api/stacks/${name}/stop`));
    expect(stop, JSON.stringify(stop)).toMatchObject({ success: true });
    expect((await docker.containers(name)).map((c) => c.State)).toEqual(['exited']);
    const start = objectOf(await suite.admin.postJson(`/api/stacks/${name}/start`));
    expect(start, JSON.stringify(start)).toMatchObject({ success: true });

    const listed = objectOf(await suite.admin.get(`/api/stacks/${name}/activity`)).operations as Json[];
    expect(listed.map((o) => [o.operation, o.status, o.userId, o.jobId])).toEqual([
      ['start', 'success', 'admin', start.jobId],
      ['stop', 'success', 'admin', stop.jobId],
    ]);
    for (const [id, word] of [
      [stop.jobId, /stop/i],
      [start.jobId, /start/i],
    ] as const) {
      const read = objectOf(await suite.admin.get(`/api/stacks/${name}/activity/${id}`));
      const output = read.output as string[];
      expect(output.length, JSON.stringify(read)).toBeGreaterThan(0);
      expect(
        output.some((line) => word.test(line) && line.includes('web')),
        JSON.stringify(output),
      ).toBe(true);
    }
  }, 300_000);
});
