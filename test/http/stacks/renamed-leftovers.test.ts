/**
 * The look for containers an interrupted compose left renamed, before every `up`, when the stack's
 * engine cannot be asked (the real removals: docker-interrupted-recreate.test.ts). It is a status of the
 * job, and the `up` runs on (the fake compose here needs no engine): compose says what is wrong with an
 * engine in its own words.
 */
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { tempDir } from '../../cli/helpers.js';
import {
  createStack,
  describeStacks,
  type StacksServer,
  stacksConfig,
  startStacks,
  waitJob,
  waitRun,
} from './helpers.js';

const servers: StacksServer[] = [];
afterAll(() => Promise.all(servers.map((server) => server.stop())));

describeStacks('the look for renamed leftovers before an up', () => {
  it('an engine that cannot be asked is a status saying why, and the deploy goes on', async () => {
    const socket = join(await tempDir(), 'no-engine.sock');
    const server = await startStacks({
      config: stacksConfig({ environments: [{ id: 1, name: 'gone', dockerHost: `unix://${socket}` }] }),
    });
    servers.push(server);
    const admin = server.as('admin');
    const { jobId, runId } = await createStack(admin, 'web', 1);
    const job = await waitJob(admin, jobId);
    expect(job.result).toMatchObject({ success: true });
    const statuses = job.messages.flatMap((m) => (m.type === 'status' ? [m.status as string] : []));
    const look = statuses.filter((s) =>
      s.startsWith('Containers left by an interrupted compose were not looked for: '),
    );
    expect(look, JSON.stringify(statuses)).toHaveLength(1);
    expect(look[0]).toContain(`The Docker engine (unix://${socket}) cannot be reached`);
    // Before compose ran.
    expect(statuses.indexOf(look[0] as string)).toBeLessThan(statuses.indexOf('Running compose up'));
    const run = await waitRun(admin, 'web', runId as number);
    expect(run).toMatchObject({ status: 'success' });
    expect('leftoversRemoved' in (run.details as object)).toBe(false);
  });
});
