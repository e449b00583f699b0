/**
 * Jobs (spec: Endpoints rule 4, Events; docs/stacks.md#jobs-runs-and-how-compose-runs): the two answer paths, the job
 * poll, server-sent events for several subscribers, the run log followed live, the time-out, and line
 * splitting seen from the outside.
 */
import { describe, expect, it } from 'vitest';
import {
  composeText,
  createStackDone,
  dataOf,
  deploy,
  describeStacks,
  ended,
  type Json,
  logLines,
  objectOf,
  openSse,
  saveCompose,
  serveStacks,
  sleep,
  stacksConfig,
  TOKENS,
  waitJob,
  waitRun,
} from './helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const stacks = serveStacks();

const lineMessages = (messages: Json[]) => messages.filter((m) => m.type === 'line').map((m) => m.line);

describeStacks('jobs', () => {
  describe('the two answer paths (rule 4)', () => {
    it('the streaming path answers 202 with the job id at once; the job goes on', async () => {
      await createStackDone(stacks.admin, 'streamed', 1, { compose: composeText({}) });
      await saveCompose(stacks.admin, 'streamed', 1, composeText({ lines: ['a'], sleepMs: 2500 }));
      const reply = await stacks.admin.post('/api/stacks/streamed/deploy?env=1', {});
      expect(reply.status).toBe(202);
      const ack = objectOf(reply);
      expect(Object.keys(ack).sort()).toEqual(['jobId', 'runId']);
      expect(ack.jobId).toMatch(UUID);
      expect(typeof ack.runId).toBe('number');
      // Answered before the job ended: the poll after the 202 still finds it running.
      const poll = objectOf(await stacks.admin.get(`/api/jobs/${ack.jobId}`));
      expect(poll).toMatchObject({ id: ack.jobId, status: 'running', result: null });
      const job = await waitJob(stacks.admin, ack.jobId as string);
      expect(job.result).toMatchObject({ type: 'result', success: true, exitCode: 0, output: ['a'] });
    });

    it('Accept: application/json answers after the end: 200 on success', async () => {
      await createStackDone(stacks.admin, 'answered', 1, { compose: composeText({}) });
      await saveCompose(
        stacks.admin,
        'answered',
        1,
        composeText({ lines: ['first', 'second'], sleepMs: 1200 }),
      );
      const reply = await stacks.admin.postJson('/api/stacks/answered/deploy?env=1');
      expect(reply.status).toBe(200);
      const body = objectOf(reply);
      expect(body).toEqual({
        jobId: body.jobId,
        runId: body.runId,
        success: true,
        exitCode: 0,
        output: ['first', 'second'],
      });
      expect(body.jobId).toMatch(UUID);
      // Answered after the end: the job is done by the time the answer is read.
      expect(objectOf(await stacks.admin.get(`/api/jobs/${body.jobId}`)).status).toBe('done');
      const run = objectOf(await stacks.admin.get(`/api/stacks/answered/deploys/${body.runId}`));
      expect(run).toMatchObject({ status: 'success', jobId: body.jobId, details: { exitCode: 0 } });
    });

    it('Accept: application/json answers 500 with the redacted error on failure', async () => {
      await createStackDone(stacks.admin, 'broken', null, { compose: composeText({}) });
      await saveCompose(
        stacks.admin,
        'broken',
        null,
        composeText({ lines: ['out'], stderr: ['no such image'], perLineMs: 50, exit: 3 }),
      );
      const reply = await stacks.admin.postJson('/api/stacks/broken/deploy');
      expect(reply.status).toBe(500);
      const body = objectOf(reply);
      expect(body).toEqual({
        error: body.error,
        jobId: body.jobId,
        runId: body.runId,
        success: false,
        exitCode: 3,
        output: ['out', 'no such image'],
      });
      expect(typeof body.error).toBe('string');
      const run = objectOf(await stacks.admin.get(`/api/stacks/broken/deploys/${body.runId}`));
      expect(run).toMatchObject({ status: 'failed', details: { exitCode: 3 } });
      expect(typeof run.errorMessage).toBe('string');
    });

    it('start/stop/restart/down on the JSON path: 200 with runId null', async () => {
      await createStackDone(stacks.admin, 'lifecycle', 2, { compose: composeText(undefined, ['web']) });
      const reply = await stacks.admin.postJson('/api/stacks/lifecycle/stop?env=2');
      expect(reply.status).toBe(200);
      const body = objectOf(reply);
      expect(body).toEqual({
        jobId: body.jobId,
        runId: null,
        success: true,
        exitCode: 0,
        output: [' Container lifecycle-web-1  Stopping', ' Container lifecycle-web-1  Stopped'],
      });
    });
  });

  describe('GET /api/jobs/{id}', () => {
    it('holds every message in order, the result last and again as `result`', async () => {
      await createStackDone(stacks.admin, 'polled', 1, { compose: composeText({}) });
      await saveCompose(stacks.admin, 'polled', 1, composeText({ lines: ['l1', 'l2', 'l3'] }));
      const { jobId } = await deploy(stacks.admin, 'polled', 1);
      const job = await waitJob(stacks.admin, jobId);
      // A page of the messages: here all of them, from the first.
      expect(Object.keys(job).sort()).toEqual(['from', 'id', 'messages', 'more', 'next', 'result', 'status']);
      expect(job).toMatchObject({ from: 0, more: false, next: job.messages.length - 1 });
      expect(job.id).toBe(jobId);
      expect(lineMessages(job.messages)).toEqual(['l1', 'l2', 'l3']);
      const last = job.messages[job.messages.length - 1];
      expect(last).toEqual(job.result);
      expect(job.result).toEqual({ type: 'result', success: true, exitCode: 0, output: ['l1', 'l2', 'l3'] });
      // Status messages are `{status}` in the spec and `{type: 'status', status}` in streams/stacks.ts.
      for (const m of job.messages)
        if (m.type === undefined || m.type === 'status') expect(typeof m.status).toBe('string');
        else expect(['line', 'result']).toContain(m.type);
    });

    it('an unknown job is 404 Job not found', async () => {
      const reply = await stacks.admin.get('/api/jobs/00000000-0000-4000-8000-000000000000');
      expect([reply.status, reply.value]).toEqual([404, { error: 'Job not found' }]);
    });
  });

  describe('GET /api/jobs/{id}/events', () => {
    it('three subscribers (before, during, after) see the same messages: catch-up then live, ending after the result', async () => {
      await createStackDone(stacks.admin, 'watched', 1, { compose: composeText({}) });
      const lines = ['w1', 'w2', 'w3', 'w4', 'w5'];
      await saveCompose(stacks.admin, 'watched', 1, composeText({ lines, perLineMs: 400 }));
      const { jobId } = await deploy(stacks.admin, 'watched', 1);
      const path = `/api/jobs/${jobId}/events`;
      const early = await openSse(stacks.server.port, path, TOKENS.admin);
      await sleep(900);
      const middle = await openSse(stacks.server.port, path, TOKENS.viewer);
      await Promise.all([ended(early), ended(middle)]);
      const late = await openSse(stacks.server.port, path, TOKENS.editor1);
      await ended(late);
      const job = await waitJob(stacks.admin, jobId);
      for (const stream of [early, middle, late]) {
        expect(stream.status).toBe(200);
        expect(stream.contentType?.startsWith('text/event-stream')).toBe(true);
        expect(dataOf(stream)).toEqual(job.messages);
        expect(stream.events.map((e) => e.id)).toEqual(job.messages.map((_, i) => String(i)));
        expect(dataOf(stream).at(-1)).toEqual(job.result);
      }
      expect(lineMessages(dataOf(early))).toEqual(lines);
    });

    it('Last-Event-ID resumes after that index', async () => {
      await createStackDone(stacks.admin, 'resumed', 1, {
        compose: composeText({ lines: ['r1', 'r2', 'r3'] }),
      });
      const { jobId } = await deploy(stacks.admin, 'resumed', 1);
      const job = await waitJob(stacks.admin, jobId);
      const stream = await openSse(stacks.server.port, `/api/jobs/${jobId}/events`, TOKENS.admin, {
        lastEventId: '1',
      });
      await ended(stream);
      expect(dataOf(stream)).toEqual(job.messages.slice(2));
    });

    it('nothing follows a failed result', async () => {
      await createStackDone(stacks.admin, 'failing-events', 2, { compose: composeText({}) });
      await saveCompose(
        stacks.admin,
        'failing-events',
        2,
        composeText({ lines: ['f1'], stderr: ['fatal'], exit: 1 }),
      );
      const { jobId } = await deploy(stacks.admin, 'failing-events', 2);
      const stream = await openSse(stacks.server.port, `/api/jobs/${jobId}/events`, TOKENS.admin);
      await ended(stream);
      const messages = dataOf(stream);
      const results = messages.filter((m) => m.type === 'result');
      expect(results).toHaveLength(1);
      expect(messages.at(-1)).toMatchObject({ type: 'result', success: false, exitCode: 1 });
      await sleep(300);
      expect((await waitJob(stacks.admin, jobId)).messages).toEqual(messages);
    });

    it('an unknown job’s events are 404 Job not found', async () => {
      const stream = await openSse(
        stacks.server.port,
        '/api/jobs/00000000-0000-4000-8000-000000000000/events',
        TOKENS.admin,
      );
      await ended(stream);
      expect(stream.status).toBe(404);
      expect(JSON.parse(stream.text())).toEqual({ error: 'Job not found' });
    });
  });

  describe('GET .../deploys/{runId}/log?follow=true', () => {
    it('streams every line from the first, live, then the end with the final status', async () => {
      await createStackDone(stacks.admin, 'followed', 1, { compose: composeText({}) });
      await saveCompose(
        stacks.admin,
        'followed',
        1,
        composeText({ lines: ['a1', 'a2', 'a3', 'a4'], perLineMs: 500 }),
      );
      const { runId } = await deploy(stacks.admin, 'followed', 1);
      await sleep(700);
      const live = await openSse(
        stacks.server.port,
        `/api/stacks/followed/deploys/${runId}/log?follow=true`,
        TOKENS.viewer,
      );
      expect(live.status).toBe(200);
      expect(live.contentType?.startsWith('text/event-stream')).toBe(true);
      await ended(live);
      const expected = [
        { type: 'line', line: 'a1' },
        { type: 'line', line: 'a2' },
        { type: 'line', line: 'a3' },
        { type: 'line', line: 'a4' },
        { type: 'end', status: 'success' },
      ];
      expect(dataOf(live)).toEqual(expected);
      const after = await openSse(
        stacks.server.port,
        `/api/stacks/followed/deploys/${runId}/log?follow=true`,
        TOKENS.admin,
      );
      await ended(after);
      expect(dataOf(after)).toEqual(expected);
    });

    it('a failed run ends with status failed', async () => {
      await createStackDone(stacks.admin, 'followed-fail', null, { compose: composeText({}) });
      await saveCompose(stacks.admin, 'followed-fail', null, composeText({ lines: ['b1'], exit: 2 }));
      const { runId } = await deploy(stacks.admin, 'followed-fail', null);
      const stream = await openSse(
        stacks.server.port,
        `/api/stacks/followed-fail/deploys/${runId}/log?follow=true`,
        TOKENS.admin,
      );
      await ended(stream);
      expect(dataOf(stream)).toEqual([
        { type: 'line', line: 'b1' },
        { type: 'end', status: 'failed' },
      ]);
    });
  });

  describe('line splitting, end to end', () => {
    it('CRLF line ends are not part of the lines', async () => {
      await createStackDone(stacks.admin, 'crlf', 1, { compose: composeText({}) });
      await saveCompose(stacks.admin, 'crlf', 1, composeText({ lines: ['c1', 'c2'], crlf: true }));
      const { runId, jobId } = await deploy(stacks.admin, 'crlf', 1);
      const job = await waitJob(stacks.admin, jobId);
      expect(lineMessages(job.messages)).toEqual(['c1', 'c2']);
      await waitRun(stacks.admin, 'crlf', runId as number);
      expect(await logLines(stacks.server.dataDir, 1, runId as number)).toEqual(['c1', 'c2']);
    });

    it('a 100 KiB line is cut at 64 KiB with a marker; the next line is intact', async () => {
      await createStackDone(stacks.admin, 'long', 1, { compose: composeText({}) });
      await saveCompose(stacks.admin, 'long', 1, composeText({ longLine: 100 * 1024, stderr: ['after'] }));
      const { runId, jobId } = await deploy(stacks.admin, 'long', 1);
      const job = await waitJob(stacks.admin, jobId);
      const lines = lineMessages(job.messages) as string[];
      expect(lines).toHaveLength(2);
      const cut = lines.find((l) => l.startsWith('x')) ?? '';
      expect(cut.startsWith('x'.repeat(60 * 1024))).toBe(true);
      expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(64 * 1024 + 200);
      expect(/^x+$/.test(cut)).toBe(false);
      expect(lines).toContain('after');
      await waitRun(stacks.admin, 'long', runId as number);
      const logged = (await logLines(stacks.server.dataDir, 1, runId as number)) ?? [];
      expect(logged.sort()).toEqual([...lines].sort());
    });
  });
});

describeStacks('a job time-out (jobs.timeoutSeconds)', () => {
  const slow = serveStacks({ config: stacksConfig({ jobs: { timeoutSeconds: 1 } }) });

  it('kills compose: failed, no exit code in the result, the run stored consistent with failure', async () => {
    const client = slow.admin;
    await createStackDone(client, 'sleepy', 1, { compose: composeText({}) });
    await saveCompose(client, 'sleepy', 1, composeText({ lines: ['waiting'], sleepMs: 20_000 }));
    // Compose would sleep 20 s; the 1 s time-out ends it first: only its first line is in the answer.
    const reply = await client.postJson('/api/stacks/sleepy/deploy?env=1');
    expect(reply.status).toBe(500);
    const body = objectOf(reply);
    expect('exitCode' in body).toBe(false);
    expect(body).toMatchObject({ success: false, output: ['waiting'] });
    const job = await waitJob(client, body.jobId as string);
    expect(job.result).toMatchObject({ type: 'result', success: false });
    expect('exitCode' in (job.result ?? {})).toBe(false);
    const run = await waitRun(client, 'sleepy', body.runId as number);
    expect(run.status).toBe('failed');
    expect(typeof run.errorMessage).toBe('string');
    expect(run.details).toMatchObject({ exitCode: 1 });
  });
});
