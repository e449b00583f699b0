/**
 * Big outputs cost a bounded amount of memory (docs/stacks.md#reading-output-polls-event-streams-and-memory), over the real CLI: one deploy
 * of a 51 MB log of 3,200,000 short lines (the fake compose program's `count`), then
 * - the followed log (`log?follow=true`) streams from the file as clients take it: six clients that
 *   never read (and six on the job's event stream) raise the server's peak memory by a few MiB, not by
 *   the log's size; a seventh gets every line in order, each with its byte offset as id, then the end;
 *   a client cut off resumes with Last-Event-ID (or `?offset=`) after its last line;
 * - the plain log read streams the file (from `offset`), and the job poll answers bounded pages
 *   (`after`/`limit`);
 * - a job event client that stops reading while the job runs is dropped with a reason once it is past
 *   the bound and has taken nothing for a while, and resumes with Last-Event-ID.
 * Memory is the server's own (VmRSS and VmHWM of /proc/<pid>/status, the peak reset before each case).
 */
import type { Socket } from 'node:net';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { composeText, createStack, describeStacks, objectOf, serveStacks, waitRun } from './helpers.js';
import { countGet, mib, peakOf, readSse, resetPeak, rssOf, stalledGet } from './stream-helpers.js';

vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });

const MiB = 1024 * 1024;
const LINES = 3_200_000;
const WIDTH = 15;
/** Each line is its number padded with dots to 15 bytes, and its line break: 16 bytes. */
const LINE_BYTES = WIDTH + 1;
const LOG_BYTES = LINES * LINE_BYTES;
const lineAt = (i: number) => String(i).padEnd(WIDTH, '.');
/**
 * What following, reading or polling may add to the server's peak memory. Holding a copy of the log, or
 * framing it whole, costs hundreds of MiB (an earlier build measured 1.6 GB for six stalled followers). What
 * each client holds is about a MiB; most of the rise is garbage the kernel's socket buffers let the
 * clients make before they block (a few MB of frames each), not yet collected at the peak.
 */
const FOLLOW_BOUND = 128 * MiB;

/**
 * A job event client past the drop bound is dropped once it has taken nothing for `stalledClientMs`
 * (10 s by default); the 1,200,000-line job below runs for seconds past the bound, so half a second is
 * reached whatever the machine's load, and the test need not wait out the default.
 */
const stacks = serveStacks({
  env: { CHRONICLE_TEST_STACKS_HTTP_LIMITS: JSON.stringify({ stalledClientMs: 500 }) },
});
let jobId: string;
let runId: number;
const sockets: Socket[] = [];

const logUrl = () => `/api/stacks/big/deploys/${runId}/log`;

/** The peak the server reached while `work` ran, over its resident memory before it. */
async function peakDuring(work: () => Promise<void>): Promise<{ base: number; rise: number }> {
  resetPeak(stacks.server.pid);
  const base = rssOf(stacks.server.pid);
  await work();
  return { base, rise: peakOf(stacks.server.pid) - base };
}

describeStacks('big outputs', () => {
  beforeAll(async () => {
    const ack = await createStack(stacks.admin, 'big', null, {
      compose: composeText({ count: { lines: LINES, width: WIDTH } }),
    });
    jobId = ack.jobId;
    runId = ack.runId as number;
    const run = await waitRun(stacks.admin, 'big', runId, 240_000);
    expect(run.status).toBe('success');
  });
  afterAll(async () => {
    // Before the server stops (the shared server's afterAll runs after this one).
    for (const socket of sockets) socket.destroy();
  });

  it('six clients that never read a followed 51 MB log (and six of its job events) add a few MiB; a seventh gets every line', async () => {
    let reader: Awaited<ReturnType<typeof readSse>> | undefined;
    const { base, rise } = await peakDuring(async () => {
      for (let i = 0; i < 6; i++) {
        sockets.push(await stalledGet(stacks.server.port, `${logUrl()}?follow=true`));
        sockets.push(await stalledGet(stacks.server.port, `/api/jobs/${jobId}/events`));
      }
      reader = await readSse(stacks.server.port, `${logUrl()}?follow=true`, { expectLine: lineAt });
    });
    console.log(`following the log: server at ${mib(base)}, peak rose by ${mib(rise)}`);
    expect(reader).toMatchObject({ status: 200, lines: LINES, wrong: 0, lastId: String(LOG_BYTES) });
    expect(reader?.others).toEqual([{ type: 'end', status: 'success' }]);
    expect(rise).toBeLessThan(FOLLOW_BOUND);
    for (const socket of sockets.splice(0)) socket.destroy();
  });

  it('a follower cut off resumes after its last line with Last-Event-ID, or from ?offset=; a mid-line offset is 400', async () => {
    const first = await readSse(stacks.server.port, `${logUrl()}?follow=true`, {
      expectLine: lineAt,
      stopAfter: 1_000_000,
    });
    expect(first).toMatchObject({ lines: 1_000_000, wrong: 0, lastId: String(1_000_000 * LINE_BYTES) });
    const resumed = await readSse(stacks.server.port, `${logUrl()}?follow=true`, {
      lastEventId: first.lastId,
      expectLine: (i) => lineAt(1_000_000 + i),
    });
    expect(resumed).toMatchObject({ lines: LINES - 1_000_000, wrong: 0, lastId: String(LOG_BYTES) });
    expect(resumed.others).toEqual([{ type: 'end', status: 'success' }]);

    const fromOffset = await readSse(
      stacks.server.port,
      `${logUrl()}?follow=true&offset=${2_500_000 * LINE_BYTES}`,
      {
        expectLine: (i) => lineAt(2_500_000 + i),
      },
    );
    expect(fromOffset).toMatchObject({ lines: LINES - 2_500_000, wrong: 0 });

    const midLine = await stacks.admin.get(`${logUrl()}?follow=true&offset=${LINE_BYTES + 3}`);
    expect([midLine.status, midLine.value]).toEqual([
      400,
      { error: `offset ${LINE_BYTES + 3} is not the start of a line of this log` },
    ]);
    const badId = await stacks.admin.get(`${logUrl()}?follow=true`, { headers: { 'Last-Event-ID': 'x' } });
    expect(badId.status).toBe(400);
  });

  it('the plain log read streams the file: six reads of the whole 51 MB log at once add a few MiB; `offset` starts at a line', async () => {
    let bodies: Awaited<ReturnType<typeof countGet>>[] = [];
    const { rise } = await peakDuring(async () => {
      bodies = await Promise.all(Array.from({ length: 6 }, () => countGet(stacks.server.port, logUrl())));
    });
    console.log(`six reads of the whole log at once: peak rose by ${mib(rise)}`);
    for (const body of bodies) {
      expect(body).toMatchObject({ status: 200, bytes: LOG_BYTES, lines: LINES });
      expect(body.headers['x-log-size']).toBe(String(LOG_BYTES));
      expect(body.head.startsWith(`${lineAt(0)}\n${lineAt(1)}\n`)).toBe(true);
      expect(body.tail.endsWith(`${lineAt(LINES - 1)}\n`)).toBe(true);
    }
    expect(rise).toBeLessThan(FOLLOW_BOUND);

    const from = await countGet(stacks.server.port, `${logUrl()}?offset=${2_000_000 * LINE_BYTES}`);
    expect(from).toMatchObject({
      status: 200,
      bytes: LOG_BYTES - 2_000_000 * LINE_BYTES,
      lines: LINES - 2_000_000,
    });
    expect(from.head.startsWith(`${lineAt(2_000_000)}\n`)).toBe(true);
    const end = await stacks.admin.get(`${logUrl()}?offset=${LOG_BYTES}`);
    expect([end.status, end.text]).toEqual([200, '']);
    const midLine = await stacks.admin.get(`${logUrl()}?offset=${LINE_BYTES + 3}`);
    expect([midLine.status, midLine.value]).toEqual([
      400,
      { error: `offset ${LINE_BYTES + 3} is not the start of a line of this log` },
    ]);
    for (const query of ['offset=-1', 'offset=x'])
      expect((await stacks.admin.get(`${logUrl()}?${query}`)).status, query).toBe(400);
  });

  it('GET /api/jobs/{id} answers a page: 1,000 messages by default, then the next by `after`, within `limit`', async () => {
    const { rise } = await peakDuring(async () => {
      const polls = await Promise.all(
        Array.from({ length: 6 }, () => stacks.admin.get(`/api/jobs/${jobId}`)),
      );
      for (const poll of polls) {
        expect(poll.status).toBe(200);
        expect(objectOf(poll)).toMatchObject({ status: 'done', from: 0, more: true, next: 999 });
        expect((poll.value as { messages: unknown[] }).messages).toHaveLength(1_000);
      }
    });
    console.log(`six polls of the job at once: peak rose by ${mib(rise)}`);
    expect(rise).toBeLessThan(FOLLOW_BOUND);

    const first = objectOf(await stacks.admin.get(`/api/jobs/${jobId}`));
    const messages = first.messages as Array<{ type: string; line?: string }>;
    // Its statuses first, then the lines from 0.
    const firstLine = messages.findIndex((m) => m.type === 'line');
    expect(messages[firstLine]).toEqual({ type: 'line', line: lineAt(0) });
    const total = firstLine + LINES + 1;
    expect(first.result).toMatchObject({ type: 'result', success: true });
    expect((first.result as { output: string[] }).output.at(-1)).toBe(lineAt(LINES - 1));

    const second = objectOf(await stacks.admin.get(`/api/jobs/${jobId}?after=999&limit=10000`));
    expect(second).toMatchObject({ from: 1_000, more: true, next: 10_999 });
    expect((second.messages as unknown[])[0]).toEqual({ type: 'line', line: lineAt(1_000 - firstLine) });

    const tail = objectOf(await stacks.admin.get(`/api/jobs/${jobId}?after=${total - 4}`));
    expect(tail).toMatchObject({ from: total - 3, more: false, next: total - 1, status: 'done' });
    expect(tail.messages).toEqual([
      { type: 'line', line: lineAt(LINES - 2) },
      { type: 'line', line: lineAt(LINES - 1) },
      tail.result,
    ]);
    const past = objectOf(await stacks.admin.get(`/api/jobs/${jobId}?after=${total + 10}`));
    expect(past).toMatchObject({ messages: [], more: false, status: 'done', next: total + 10 });
    expect(past.result).toEqual(tail.result);
    for (const query of ['after=-1', 'after=x', 'limit=0', 'limit=10001'])
      expect((await stacks.admin.get(`/api/jobs/${jobId}?${query}`)).status, query).toBe(400);
  });

  it('a job event client that stops reading during the job is dropped with a reason, and resumes with Last-Event-ID', async () => {
    const lines = 1_200_000;
    const ack = await createStack(stacks.admin, 'stalls', null, {
      compose: composeText({ count: { lines, width: WIDTH } }),
    });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Takes nothing until the job is over: meanwhile the job's output waits for it, past the bound.
    const stalled = readSse(stacks.server.port, `/api/jobs/${ack.jobId}/events`, { pauseUntil: released });
    const run = await waitRun(stacks.admin, 'stalls', ack.runId as number, 240_000);
    expect(run.status).toBe('success');
    release();
    const cut = await stalled;
    expect(cut.lines).toBeLessThan(lines);
    expect(cut.others.at(-1)).toEqual({
      type: 'dropped',
      reason: expect.stringMatching(
        /^too slow: this client fell more than 16777216 bytes behind the job's output; resume after message \d+$/,
      ),
      lastEventId: cut.lastId,
    });
    const rest = await readSse(stacks.server.port, `/api/jobs/${ack.jobId}/events`, {
      lastEventId: cut.lastId,
    });
    expect(cut.lines + rest.lines).toBe(lines);
    expect(rest.others.at(-1)).toMatchObject({ type: 'result', success: true });
  });
});
