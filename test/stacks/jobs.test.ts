import { setTimeout as delay } from 'node:timers/promises';
import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type IndexedMessage, JobSubscriberTooSlowError } from '../../src/stacks/jobs/job-book.js';
import { jobStream } from '../../streams/stacks.js';
import { openRecords, type Records, readAllEvents, storeKinds } from './records-helpers.js';

const start = (records: Records, runId: number | null = null) =>
  records.jobs.start({ kind: 'deploy', stack: 'web', environmentId: null, userId: 'alice', runId });

describe.each(storeKinds)('JobBook over the %s store', (kind) => {
  let records: Records;
  beforeEach(async () => {
    records = await openRecords(kind);
  });
  afterEach(async () => {
    await records.dispose();
  });

  it('records start, batched output, statuses and the result in order; nothing after it', async () => {
    const job = await start(records, 4);
    expect(records.jobs.info(job.id)).toMatchObject({ status: 'running', runId: 4, stack: 'web' });
    job.status('pulling');
    for (let i = 0; i < 2_500; i++) job.line(`l${i}`);
    job.status('starting');
    job.line('last');
    const result = await job.finish({ success: false, error: 'boom!', exitCode: 3 });
    expect(result.output).toHaveLength(200);
    expect(result.output.at(-1)).toBe('last');
    expect(() => job.line('late')).toThrow(/nothing may follow/);
    const events = await readAllEvents(records.store, jobStream(job.id));
    expect(events[0]?.type).toBe('JobStarted');
    // Sealed with the job's run's key (docs/security.md#deleted-runs-crypto-shredding): no text of it is readable in the store.
    expect(events.map((e) => e.type).filter((t) => t !== 'JobOutputSealed')).toEqual([
      'JobStarted',
      'JobStatusSealed',
      'JobStatusSealed',
      'JobFinishedSealed',
    ]);
    // The error holds a character base64 never does: sealed text may hold any short run of letters by
    // chance ('boom' did once; a 5-character line name is some 30 times less likely).
    expect(JSON.stringify(events)).not.toContain('l2499');
    expect(JSON.stringify(events)).not.toContain('boom!');
    // Batched: far fewer events than lines.
    expect(events.length).toBeLessThan(20);
    const poll = await records.jobs.poll(job.id, { limit: 10_000 });
    expect(poll?.status).toBe('done');
    expect(poll?.messages).toHaveLength(2_504);
    expect(poll?.messages[0]).toEqual({ type: 'status', status: 'pulling' });
    expect(poll?.messages[2_501]).toEqual({ type: 'status', status: 'starting' });
    expect(poll?.messages.slice(1, 2_501).map((m) => (m.type === 'line' ? m.line : ''))).toEqual(
      Array.from({ length: 2_500 }, (_, i) => `l${i}`),
    );
    expect(poll?.result).toEqual({
      type: 'result',
      success: false,
      error: 'boom!',
      exitCode: 3,
      output: result.output,
    });
    await records.jobsModel.waitFor(await records.store.headPosition());
    expect(records.jobs.info(job.id)).toMatchObject({ status: 'done', messages: 2_504 });
  });

  it('answers a poll of a running job with every message so far, and undefined for unknown jobs', async () => {
    const job = await start(records);
    job.line('a');
    job.line('b');
    expect(await records.jobs.poll(job.id)).toEqual({
      id: job.id,
      status: 'running',
      from: 0,
      messages: [
        { type: 'line', line: 'a' },
        { type: 'line', line: 'b' },
      ],
      more: false,
      next: 1,
      result: null,
    });
    expect(await records.jobs.poll('nope')).toBeUndefined();
    await job.finish({ success: true, exitCode: 0 });
  });

  it('streams catch-up then live with no gap or duplicate, and completes after the result', async () => {
    const job = await start(records);
    for (let i = 0; i < 3_000; i++) job.line(`a${i}`);
    await new Promise((r) => setTimeout(r, 30)); // some of it committed, some not
    for (let i = 0; i < 500; i++) job.line(`b${i}`);
    const all = lastValueFrom(records.jobs.messages(job.id).pipe(toArray()));
    const tail = lastValueFrom(records.jobs.messages(job.id, 3_400).pipe(toArray()));
    const live = (async () => {
      for (let i = 0; i < 5_000; i++) {
        job.line(`c${i}`);
        if (i % 1000 === 0) await new Promise((r) => setImmediate(r));
      }
      await job.finish({ success: true, exitCode: 0 });
    })();
    const [got, fromIndex] = await Promise.all([all, tail, live]);
    expect(got.map((m) => m.index)).toEqual(Array.from({ length: 8_501 }, (_, i) => i));
    expect(got[3_000]?.message).toEqual({ type: 'line', line: 'b0' });
    expect(got[3_500]?.message).toEqual({ type: 'line', line: 'c0' });
    expect(got.at(-1)?.message.type).toBe('result');
    expect(fromIndex[0]?.index).toBe(3_400);
    expect(fromIndex.map((m) => m.message)).toEqual(got.slice(3_400).map((m) => m.message));
  });

  it('replays a finished job from its events, also from an index, and 404s an unknown one', async () => {
    const job = await start(records);
    job.line('x');
    job.status('s');
    await job.finish({ success: true });
    const got = await lastValueFrom(records.jobs.messages(job.id).pipe(toArray()));
    expect(got.map((m) => m.message.type)).toEqual(['line', 'status', 'result']);
    expect(await lastValueFrom(records.jobs.messages(job.id, 2).pipe(toArray()))).toEqual([got[2]]);
    // Resuming after the result: nothing more, and the stream ends.
    expect(await lastValueFrom(records.jobs.messages(job.id, 3).pipe(toArray()))).toEqual([]);
    await expect(firstValueFrom(records.jobs.messages('missing'))).rejects.toMatchObject({ status: 404 });
  });

  it('subscribers joining a running job read the store, then the kept chunks, then live: no gap, no duplicate', async () => {
    const small = await openRecords(kind, { jobs: { historyBytes: 10_000, batchLines: 500 } });
    try {
      const job = await start(small);
      for (let i = 0; i < 7_000; i++) {
        job.line(`l${i}`);
        if (i % 300 === 299) await new Promise((r) => setImmediate(r));
      }
      // Let the appends land, so the oldest chunks are let go from memory (the store holds them).
      await new Promise((r) => setTimeout(r, 50));
      // And some accepted in this very turn, not handed to subscribers yet.
      for (let i = 7_000; i < 7_050; i++) job.line(`l${i}`);
      // A subscriber whose catch-up is slower than the job (a loaded machine) reads the store again: it is
      // never dropped for that, nor does it hold the live messages meanwhile.
      const chunkLists = Promise.all(
        [0, 150, 5_999, 7_020].map((from) => lastValueFrom(small.jobs.chunks(job.id, from).pipe(toArray()))),
      );
      for (let i = 7_050; i < 9_000; i++) {
        job.line(`l${i}`);
        if (i % 300 === 299) await new Promise((r) => setImmediate(r));
      }
      await job.finish({ success: true, exitCode: 0 });
      const lists = await chunkLists;
      [0, 150, 5_999, 7_020].forEach((from, s) => {
        const indexes = (lists[s] ?? []).flatMap((c) => c.messages.map((_, i) => c.from + i));
        expect(indexes).toEqual(Array.from({ length: 9_001 - from }, (_, i) => from + i));
        const lines = (lists[s] ?? []).flatMap((c) => c.messages);
        expect(lines[0]).toEqual({ type: 'line', line: `l${from}` });
        expect(lines.at(-1)?.type).toBe('result');
      });
      // Live chunks are the same objects for every subscriber that is live (framed once by consumers); one
      // still reading the store when the job ends gets the stored chunk instead.
      const lastOf = lists.map((chunks) => chunks.at(-1));
      expect(new Set(lastOf).size).toBeLessThan(lastOf.length);
    } finally {
      await small.dispose();
    }
  });

  it('a finished job keeps its latest chunks while subscribers look at them, and lets them go a second after', async () => {
    const looked = await start(records);
    const unlooked = await start(records);
    for (let i = 0; i < 100; i++) {
      looked.line(`l${i}`);
      unlooked.line(`l${i}`);
    }
    // The job's clock (the idle second and its timer), from here on in the test's hands.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      await Promise.all([looked.finish({ success: true }), unlooked.finish({ success: true })]);
      const kept = (job: typeof looked) => job.snapshot().history.length;
      vi.advanceTimersByTime(500);
      expect(kept(looked)).toBeGreaterThan(0);
      vi.advanceTimersByTime(600);
      // A second after the end: the one nobody looked at has let go; the other was looked at 600 ms ago.
      expect(kept(unlooked)).toBe(0);
      expect(kept(looked)).toBeGreaterThan(0);
      // Each look keeps them another second; a whole second without one, and they are gone.
      vi.advanceTimersByTime(999);
      expect(kept(looked)).toBeGreaterThan(0);
      vi.advanceTimersByTime(1_001);
      expect(kept(looked)).toBe(0);
      // What it let go is in the store: a late subscriber still gets every message.
      const late = await lastValueFrom(records.jobs.messages(looked.id).pipe(toArray()));
      expect(late).toHaveLength(101);
    } finally {
      vi.useRealTimers();
    }
  });

  it('never drops a subscriber far behind that keeps reading; one that stalls there is dropped', async () => {
    const job = await start(records);
    // Both take a chunk a millisecond: far slower than the job prints, so both fall past the bound.
    const slowly = { liveQueueBytes: 1_000, dropBehindBytes: 5_000, ready: () => delay(1) };
    const reading = lastValueFrom(records.jobs.messages(job.id, 0, slowly).pipe(toArray()));
    const stalling = lastValueFrom(
      records.jobs.messages(job.id, 0, { ...slowly, stalledMs: 0 }).pipe(toArray()),
    ).catch((error: unknown) => error);
    for (let i = 0; i < 20_000; i++) {
      job.line(`l${i}`);
      if (i % 1_000 === 0) await new Promise((r) => setImmediate(r));
    }
    await job.finish({ success: true, exitCode: 0 });
    // Taking a chunk now and then, it is not stalled: it reads what it is behind at its own pace.
    expect((await reading).map((m) => m.index)).toEqual(Array.from({ length: 20_001 }, (_, i) => i));
    // The same pace with no time allowed to take nothing: past the bound, it is dropped.
    expect(await stalling).toBeInstanceOf(JobSubscriberTooSlowError);
  });

  it('drops a subscriber that falls behind without slowing the job or others; it resumes from its index', async () => {
    const job = await start(records);
    let release: () => void = () => {};
    const stalled = new Promise<void>((r) => {
      release = r;
    });
    const slowSeen: IndexedMessage[] = [];
    const slowError = new Promise<unknown>((resolve) => {
      records.jobs
        .messages(job.id, 0, {
          liveQueueBytes: 1_000,
          dropBehindBytes: 5_000,
          // Dropped as soon as it is past the bound without taking anything (10 s by default).
          stalledMs: 0,
          ready: () => (slowSeen.length > 0 ? stalled : undefined),
        })
        .subscribe({ next: (m) => slowSeen.push(m), error: resolve, complete: () => resolve(undefined) });
    });
    const fast = lastValueFrom(records.jobs.messages(job.id).pipe(toArray()));
    await new Promise((r) => setTimeout(r, 5));
    job.line('l0');
    while (slowSeen.length === 0) await new Promise((r) => setImmediate(r));
    // From here on it takes nothing: the job goes on, published chunk after chunk.
    for (let i = 1; i < 20_000; i++) {
      job.line(`l${i}`);
      if (i % 1_000 === 0) await new Promise((r) => setImmediate(r));
    }
    await job.finish({ success: true, exitCode: 0 });
    // The job finished, recorded, while the slow subscriber still held its first chunk: not waited for.
    const seenAtFinish = slowSeen.length;
    const error = await slowError;
    release();
    expect(error).toBeInstanceOf(JobSubscriberTooSlowError);
    const lastIndex = (error as JobSubscriberTooSlowError).lastIndex;
    expect(lastIndex).toBe(slowSeen.at(-1)?.index ?? -1);
    expect((await fast).length).toBe(20_001);
    const rest = await lastValueFrom(records.jobs.messages(job.id, lastIndex + 1).pipe(toArray()));
    expect([...slowSeen, ...rest].map((m) => m.index)).toEqual(Array.from({ length: 20_001 }, (_, i) => i));
    expect(seenAtFinish).toBeLessThan(20_001);
  });

  /**
   * A job printing 30,000 lines as fast as it can, watched by one live subscriber and one slow one (a
   * pause after every 20 chunks, held from its 40th chunk until the job has finished): what the slow
   * one got, the chunks the live one got, and how many the slow one had taken when held.
   */
  async function fallBehind(book: Records, whenFinished: (jobId: string) => void = () => {}) {
    const job = await start(book);
    let taken = 0;
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    const slow = lastValueFrom(
      book.jobs
        .chunks(job.id, 0, {
          liveQueueBytes: 2_000,
          ready: () => {
            taken += 1;
            if (taken === 40) return held;
            return taken % 20 === 0 ? new Promise<void>((r) => setTimeout(r, 2)) : undefined;
          },
        })
        .pipe(toArray()),
    );
    const live = lastValueFrom(book.jobs.chunks(job.id, 0).pipe(toArray()));
    for (let i = 0; i < 30_000; i++) {
      job.line(`l${i}`);
      if (i % 500 === 499) await new Promise((r) => setImmediate(r));
    }
    await job.finish({ success: true, exitCode: 0 });
    whenFinished(job.id);
    release();
    const chunks = await slow;
    return { chunks, published: new Set(await live), taken };
  }

  it('a subscriber slower than the job lets its live queue go and reads the store instead: every message once, in order', async () => {
    // No kept chunks: what it fell behind on is only in the store.
    const bare = await openRecords(kind, { jobs: { historyBytes: 0 } });
    try {
      const { chunks, published } = await fallBehind(bare);
      const indexes = chunks.flatMap((c) => c.messages.map((_, i) => c.from + i));
      expect(indexes).toEqual(Array.from({ length: 30_001 }, (_, i) => i));
      // It did fall behind: some of what it got came from the store (chunks no live subscriber got).
      expect(chunks.some((c) => !published.has(c.whole ?? c))).toBe(true);
    } finally {
      await bare.dispose();
    }
  });

  it('a subscriber that falls behind catches up from the chunks the job keeps, also once it has finished: the live chunk objects, no store read', async () => {
    const { chunks, published, taken } = await fallBehind(records, (jobId) => {
      // Finished and recorded: the book runs it no more, and the store holds all of it.
      expect(records.jobs.running(jobId)).toBeUndefined();
    });
    const indexes = chunks.flatMap((c) => c.messages.map((_, i) => c.from + i));
    expect(indexes).toEqual(Array.from({ length: 30_001 }, (_, i) => i));
    expect(chunks.at(-1)?.messages.at(-1)?.type).toBe('result');
    // Every chunk it got is a live chunk, or the part of one it resumed in: none was read from the store.
    expect(chunks.filter((c) => !published.has(c.whole ?? c))).toEqual([]);
    // And it did fall behind: held at its 40th chunk until the end, with far more than its live queue
    // (2,000 bytes; a chunk of 500 lines is some 30 KB) still to come.
    expect(taken).toBeGreaterThanOrEqual(40);
    expect(chunks.length).toBeGreaterThan(41);
  });

  it('closes jobs a stopped server left running, and sweeps finished jobs after the retention', async () => {
    const job = await start(records);
    job.line('half');
    await new Promise((r) => setTimeout(r, 30));
    // A second book over the same store is "the next server": it does not run this job, and the
    // instance that did is gone (its lease let go).
    const { JobBook } = await import('../../src/stacks/jobs/job-book.js');
    const { Instance } = await import('../../src/stacks/instances/instance.js');
    const alive = new JobBook(records.store, records.jobsModel, {
      retentionHours: 24,
      instance: await Instance.join(records.store),
    });
    expect(await alive.closeInterruptedJobs()).toEqual([]);
    await records.instance.leave();
    const next = new JobBook(records.store, records.jobsModel, {
      retentionHours: 24,
      instance: await Instance.join(records.store),
    });
    expect(await next.closeInterruptedJobs()).toEqual([job.id]);
    const poll = await next.poll(job.id);
    expect(poll?.result).toEqual({
      type: 'result',
      success: false,
      error: 'The server stopped before this job finished',
      output: ['half'],
    });
    const finishedAt = new Date(records.jobs.info(job.id)?.finishedAt as string);
    expect(await next.sweep(new Date(finishedAt.getTime() + 23 * 3_600_000))).toEqual([]);
    expect(await next.sweep(new Date(finishedAt.getTime() + 25 * 3_600_000))).toEqual([job.id]);
    await records.jobsModel.waitFor(await records.store.headPosition());
    expect(records.jobs.info(job.id)).toBeUndefined();
    expect(await next.poll(job.id)).toBeUndefined();
  });
});

describe('JobBook after a restart (LevelDB)', () => {
  it('replays a finished job from the store', async () => {
    const first = await openRecords('level');
    const job = await start(first);
    job.line('kept');
    await job.finish({ success: true, exitCode: 0 });
    await first.stop();
    const again = await openRecords('level', {
      reopen: { dataDir: first.dataDir, storeUrl: first.storeUrl },
    });
    try {
      const got = await lastValueFrom(again.jobs.messages(job.id).pipe(toArray()));
      expect(got.map((m) => m.message)).toEqual([
        { type: 'line', line: 'kept' },
        { type: 'result', success: true, exitCode: 0, output: ['kept'] },
      ]);
      expect(again.jobs.info(job.id)?.status).toBe('done');
    } finally {
      await again.dispose();
    }
  });

  it('delivers 200,000 lines to a live subscriber, every one recorded in the store (speed: npm run bench -- deploys)', async () => {
    const records = await openRecords('level');
    try {
      const job = await start(records);
      const lines = 200_000;
      const received = lastValueFrom(records.jobs.messages(job.id).pipe(toArray()));
      const began = performance.now();
      for (let i = 0; i < lines; i++) {
        job.line(`Container web-${i % 50}-1  Started ${'x'.repeat(40)}`);
        // The compose child's lines arrive in chunks across turns of the event loop.
        if (i % 2_000 === 1_999) await new Promise((r) => setImmediate(r));
      }
      await job.finish({ success: true, exitCode: 0 });
      const got = await received;
      const seconds = (performance.now() - began) / 1000;
      const rate = Math.round(lines / seconds);
      console.log(
        `job output: ${lines} lines in ${seconds.toFixed(2)} s = ${rate} lines/s (LevelDB, 1 subscriber)`,
      );
      expect(got).toHaveLength(lines + 1);
      // Polled page by page: every page bounded, together every message once, in order.
      let polled = 0;
      let pages = 0;
      let after: number | undefined;
      for (;;) {
        const poll = await records.jobs.poll(job.id, {
          ...(after === undefined ? {} : { after }),
          limit: 10_000,
        });
        if (!poll) throw new Error('the job is gone');
        expect(poll.from).toBe(polled);
        expect(poll.messages.length).toBeLessThanOrEqual(10_000);
        expect(poll.status).toBe('done');
        polled += poll.messages.length;
        pages += 1;
        after = poll.next ?? undefined;
        if (!poll.more) break;
      }
      expect(polled).toBe(lines + 1);
      expect(pages).toBeGreaterThan(20);
    } finally {
      await records.dispose();
    }
  }, 60_000);

  it('delivers every line to 50 live subscribers and a sampler (speed: npm run bench -- deploys)', async () => {
    const records = await openRecords('level');
    try {
      const job = await start(records);
      const lines = 100_000;
      const sentAt = new Float64Array(lines);
      const latencies: number[] = [];
      const counts = new Array<number>(50).fill(0);
      const done = Array.from({ length: 50 }, (_, s) =>
        lastValueFrom(
          records.jobs.messages(job.id).pipe(
            // One subscriber samples the latency of every 100th line.
            toArray(),
          ),
        ).then((got) => {
          counts[s] = got.length;
        }),
      );
      const sampler = records.jobs.messages(job.id).subscribe((m) => {
        if (m.index < lines && m.index % 100 === 0)
          latencies.push(performance.now() - (sentAt[m.index] as number));
      });
      const began = performance.now();
      for (let i = 0; i < lines; i++) {
        sentAt[i] = performance.now();
        job.line(`Container web-${i % 50}-1  Started ${'x'.repeat(40)}`);
        if (i % 2_000 === 1_999) await new Promise((r) => setImmediate(r));
      }
      await job.finish({ success: true, exitCode: 0 });
      await Promise.all(done);
      const seconds = (performance.now() - began) / 1000;
      sampler.unsubscribe();
      latencies.sort((a, b) => a - b);
      const p99 = latencies[Math.floor(latencies.length * 0.99)] as number;
      const rate = Math.round(lines / seconds);
      console.log(
        `job output: ${lines} lines to 51 subscribers in ${seconds.toFixed(2)} s = ${rate} lines/s, p99 ${p99.toFixed(1)} ms`,
      );
      expect(counts.every((c) => c === lines + 1)).toBe(true);
    } finally {
      await records.dispose();
    }
  }, 60_000);

  it('rejects finish with a clear error when the output could not be recorded', async () => {
    const records = await openRecords('level');
    try {
      const job = await start(records);
      job.line('before');
      await new Promise((r) => setTimeout(r, 30));
      // The stream vanishes under the job (as a deleted run's job stream would).
      await records.store.deleteStream(jobStream(job.id));
      job.line('after');
      await expect(job.finish({ success: true })).rejects.toThrow(/could not be recorded/);
      expect(job.error).toBeDefined();
      expect(records.jobs.running(job.id)).toBeUndefined();
    } finally {
      await records.dispose();
    }
  });

  it('ends a job whose append failed with a failed result when the store takes it', async () => {
    const records = await openRecords('memory');
    try {
      const job = await start(records);
      job.line('before');
      await new Promise((r) => setTimeout(r, 30));
      // Someone else wrote to the job's stream: the job's next append is refused (wrong revision).
      await records.store.append(jobStream(job.id), [{ type: 'Noise', data: {} }]);
      job.line('after');
      await expect(job.finish({ success: true })).rejects.toThrow(/could not be recorded/);
      const poll = await records.jobs.poll(job.id);
      expect(poll?.status).toBe('done');
      expect(poll?.result).toMatchObject({
        success: false,
        error: expect.stringMatching(/could not be recorded/),
      });
    } finally {
      await records.dispose();
    }
  });
});
