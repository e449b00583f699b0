/**
 * Cancel and Start after Down on a real Docker engine, on both Compose generations, black-box over the
 * CLI. A deploy whose service stays `starting` (v2's `up --wait` waits for it; v1's `up` has returned and
 * chronicle watches the engine) is cancelled: the job and its run end `cancelled`, with who, and the
 * stack takes the next deploy. After Down (no container left), Start creates and starts the containers.
 */
import { expect, it } from 'vitest';
import { type ComposeUnderTest, DockerRun, describeCompose, TEST_IMAGE } from '../../docker-helpers.js';
import {
  createStack,
  createStackDone,
  eventually,
  type Json,
  objectOf,
  saveCompose,
  serveEngineStacks,
  waitJob,
  waitRun,
} from './helpers.js';

const service = (...extra: string[]) =>
  [
    'services:',
    '  web:',
    `    image: ${TEST_IMAGE}`,
    `    command: ["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"]`,
    ...extra.map((line) => `    ${line}`),
    '',
  ].join('\n');

describeCompose('cancel and start after down on a real Docker engine', (compose: ComposeUnderTest) => {
  const docker = new DockerRun(`cxl${compose.generation}`);
  const suite = serveEngineStacks(compose.command, () => docker.cleanUp());

  it('a deploy waiting for its service is cancelled: run cancelled, with who; the next deploy runs', async () => {
    const name = docker.stack('slow');
    const slow = service('healthcheck:', '  test: ["CMD", "true"]', '  interval: 1h', '  start_period: 1h');
    const { jobId, runId } = await createStack(suite.admin, name, null, { compose: slow });
    // The container exists and is `starting`: the job waits for it.
    await eventually(
      async () => {
        const states = (await docker.containers(name)).map((c) => c.Status);
        return states.some((s) => /health: starting/.test(s)) ? true : undefined;
      },
      'the container starting',
      120_000,
    );
    expect(objectOf(await suite.admin.get(`/api/stacks/${name}`)).job).toMatchObject({ id: jobId, runId });
    const reply = await suite.admin.post(`/api/jobs/${jobId}/cancel`);
    expect([reply.status, reply.value]).toEqual([202, { jobId, runId, cancelledBy: 'admin' }]);
    const job = await waitJob(suite.admin, jobId, 120_000);
    expect(job.result).toMatchObject({ success: false, error: 'Cancelled by admin; compose was stopped' });
    const run = await waitRun(suite.admin, name, runId as number);
    expect(run, JSON.stringify(run)).toMatchObject({
      status: 'cancelled',
      details: { cancelledBy: 'admin' },
    });
    // No automatic rollback or anything else runs after it: the stack is free for the next deploy.
    expect(objectOf(await suite.admin.get(`/api/stacks/${name}`)).job).toBeNull();
    await saveCompose(suite.admin, name, null, service());
    const next = objectOf(await suite.admin.postJson(`/api/stacks/${name}/deploy`, {})) as Json;
    expect(next).toMatchObject({ success: true });
    expect((await docker.containers(name)).map((c) => c.State)).toEqual(['running']);
  }, 300_000);

  it('Start after Down creates and starts the containers', async () => {
    const name = docker.stack('downed');
    await createStackDone(suite.admin, name, null, { compose: service() });
    const down = objectOf(await suite.admin.postJson(`/api/stacks/${name}/down`));
    expect(down).toMatchObject({ success: true });
    expect(await docker.containers(name)).toEqual([]);
    const start = objectOf(await suite.admin.postJson(`/api/stacks/${name}/start`));
    expect(start, JSON.stringify(start)).toMatchObject({ success: true, runId: null });
    const job = await waitJob(suite.admin, start.jobId as string);
    expect(job.messages).toContainEqual({
      type: 'status',
      status:
        'The stack has no containers to start (after a down): running compose up to create and start them',
    });
    expect((await docker.containers(name)).map((c) => c.State)).toEqual(['running']);
    expect(objectOf(await suite.admin.get(`/api/stacks/${name}`))).toMatchObject({ state: 'running' });
  }, 300_000);
});
