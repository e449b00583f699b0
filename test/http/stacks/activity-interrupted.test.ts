/**
 * A stack operation whose server was killed (kill -9) while compose ran still leaves its Activity entry:
 * the restart on the same data directory closes the job, and with it records the operation `failed`,
 * saying why, with the lines its compose printed before the kill and who asked for it.
 */
import { afterEach, expect, it } from 'vitest';
import {
  ackOf,
  composeText,
  createStackDone,
  describeStacks,
  eventually,
  type Json,
  objectOf,
  type StacksServer,
  startStacks,
  waitJob,
} from './helpers.js';

const servers: StacksServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

describeStacks('an operation interrupted by a killed server', () => {
  it('is kept in the Activity after the restart: failed, saying the server stopped, with its lines', async () => {
    const first = await startStacks();
    servers.push(first);
    const admin = first.as('admin');
    // Stop prints two lines, then compose runs on (it sleeps) until the server is killed.
    await createStackDone(admin, 'cut', null, {
      compose: composeText({ stop: { lines: ['Stopping cut-web-1', 'still stopping'], sleepMs: 120_000 } }),
    });
    const { jobId } = ackOf(await admin.post('/api/stacks/cut/stop?env=null', {}));
    await eventually(async () => {
      const job = objectOf(await admin.get(`/api/jobs/${jobId}`));
      const lines = (job.messages as Json[]).filter((m) => m.type === 'line');
      return lines.length === 2 ? true : undefined;
    }, 'the stop job to record its two lines');
    // Nothing is in the Activity while it runs.
    expect(objectOf(await admin.get('/api/stacks/cut/activity?env=null')).operations).toEqual([]);
    await first.kill9();

    const second = await startStacks({ dataDir: first.dataDir });
    servers.push(second);
    const again = second.as('admin');
    const closed = await waitJob(again, jobId);
    expect(closed.result).toMatchObject({ success: false });
    const reason = String((closed.result as Json).error);
    expect(reason).toContain('The server stopped before this job finished');

    const operations = objectOf(await again.get('/api/stacks/cut/activity?env=null')).operations as Json[];
    expect(operations).toHaveLength(1);
    expect(operations[0]).toMatchObject({
      jobId,
      operation: 'stop',
      userId: 'admin',
      status: 'failed',
      exitCode: null,
      error: reason,
      lines: 2,
      keptLines: 2,
    });
    const read = objectOf(await again.get(`/api/stacks/cut/activity/${jobId}?env=null`));
    expect(read.output).toEqual(['Stopping cut-web-1', 'still stopping']);

    // Recorded once: a later look for interrupted work (or a third start) adds nothing.
    await second.stop();
    servers.splice(servers.indexOf(second), 1);
    const third = await startStacks({ dataDir: first.dataDir });
    servers.push(third);
    const listed = objectOf(await third.as('admin').get('/api/stacks/cut/activity?env=null'))
      .operations as Json[];
    expect(listed.map((o) => o.jobId)).toEqual([jobId]);
  }, 120_000);
});
