import { beforeAll, describe, expect, it } from 'vitest';
import type { EventStore, RecordedEvent } from '../../../src/store/index.js';
import {
  assertDistFresh,
  fixture,
  positions,
  range,
  readAll,
  readStream,
  revisions,
  startNode,
  waitFor,
} from '../helpers.js';
import { type Harness, requireCapability, requireDurable } from './harness.js';

/** What test/store/fixtures/open-store.mjs prints. */
interface OpenReport {
  ok: boolean;
  ms: number;
  name?: string;
  code?: string;
  dir?: string;
  message?: string;
  printed?: string;
}

/** One line of test/store/fixtures/crash-appender.mjs: an acknowledged append. */
interface CrashAck {
  id: string;
  stream: string;
  nextRevision: number;
  position: number;
}

interface CrashPart {
  appendId: string;
  part: number;
}

const CRASH_ROUNDS = 5;
const ACKS_BEFORE_KILL = 300;
const CRASH_LOOPS = 8;

/**
 * Checks the log a killed appender left: dense positions, every acknowledged append whole where its
 * result said, no partial append, no hole in any stream. Returns how many appends are in the log.
 */
async function checkAfterCrash(store: EventStore, acks: ReadonlyMap<string, CrashAck>): Promise<number> {
  const all = await readAll(store);
  expect(positions(all)).toEqual(range(1, all.length));
  expect(await store.headPosition()).toBe(all.length);

  const appends = new Map<string, RecordedEvent[]>();
  for (const event of all) {
    if (event.type !== 'CrashPart') continue;
    const { appendId } = event.data as CrashPart;
    appends.set(appendId, [...(appends.get(appendId) ?? []), event]);
  }
  for (const [appendId, events] of appends) {
    const first = events[0] as RecordedEvent;
    const where = `append ${appendId}`;
    expect(
      events.map((e) => (e.data as CrashPart).part),
      where,
    ).toEqual([0, 1, 2]);
    expect(positions(events), where).toEqual(range(first.position, first.position + 2));
    expect(
      events.map((e) => [e.stream, e.revision]),
      where,
    ).toEqual([0, 1, 2].map((i) => [first.stream, first.revision + i]));
  }
  for (const ack of acks.values()) {
    const events = appends.get(ack.id);
    expect(events, `acknowledged append ${ack.id} is missing`).toBeDefined();
    const last = events?.at(-1);
    expect([last?.stream, last?.position, last?.revision], ack.id).toEqual([
      ack.stream,
      ack.position,
      ack.nextRevision - 1,
    ]);
  }
  // Each stream's index agrees with the log: same events, revisions from 0 without a hole.
  for (const stream of new Set(all.map((e) => e.stream))) {
    const events = await readStream(store, stream);
    expect(revisions(events), stream).toEqual(range(0, events.length - 1));
    expect(events, stream).toEqual(all.filter((e) => e.stream === stream));
    expect(await store.streamRevision(stream)).toBe(events.length - 1);
  }
  return appends.size;
}

export function processContract(h: Harness) {
  describe('other processes', () => {
    beforeAll(async () => {
      if (h.durable) await assertDistFresh();
    });

    it('a second process opening the same store fails at once with StoreLockedError naming the directory', async (ctx) => {
      requireDurable(h, ctx, 'processes');
      requireCapability(h, ctx, 'exclusive');
      const store = await h.open();
      await store.append('held', [{ type: 'Held', data: {} }]);
      const dir = h.directoryOf(store);

      const locked = startNode(fixture('open-store.mjs'), [store.location]);
      expect(await locked.exited, locked.stderr()).toBe(0);
      const report = JSON.parse(locked.lines[0] ?? '{}') as OpenReport;
      expect(report).toMatchObject({ ok: false, name: 'StoreLockedError', code: 'store_locked', dir });
      expect(report.message).toContain(dir);
      expect(report.printed).toBe(`StoreLockedError: ${report.message}`);
      // Only our words: nothing from LevelDB's own error or a stack trace.
      const words = (report.message ?? '').replace(dir, '<dir>');
      expect(words).not.toMatch(/LEVEL_|leveldb|IO error|lock|already held|temporarily|errno|\bat\s.*:\d+/i);
      expect(words).not.toContain('\n');
      // "At once": it ended while this process still held the store, so it did not wait for the lock.

      // This process's store is unharmed, and once it is closed the other process gets in.
      expect(await store.append('held', [{ type: 'Held', data: {} }])).toEqual({
        nextRevision: 2,
        position: 2,
      });
      await store.close();
      const free = startNode(fixture('open-store.mjs'), [store.location]);
      expect(await free.exited, free.stderr()).toBe(0);
      expect(JSON.parse(free.lines[0] ?? '{}')).toMatchObject({ ok: true });
    }, 20_000);

    it(`after SIGKILL during concurrent appends (${CRASH_ROUNDS} rounds) every acknowledged append is whole and nothing is partial`, async (ctx) => {
      requireDurable(h, ctx, 'processes');
      let store = await h.open();
      const location = store.location;
      await store.close();
      const acks = new Map<string, CrashAck>();

      for (let round = 0; round < CRASH_ROUNDS; round++) {
        const child = startNode(fixture('crash-appender.mjs'), [
          location,
          String(round),
          String(CRASH_LOOPS),
        ]);
        let exitedEarly = false;
        void child.exited.then(() => {
          exitedEarly = true;
        });
        await waitFor(
          () => child.lines.length >= ACKS_BEFORE_KILL || exitedEarly,
          `${ACKS_BEFORE_KILL} acks`,
          20_000,
        );
        expect(exitedEarly, `the appender exited by itself: ${child.stderr()}`).toBe(false);
        child.process.kill('SIGKILL');
        expect(await child.exited).toBe('SIGKILL');
        expect(child.lines.length).toBeGreaterThanOrEqual(ACKS_BEFORE_KILL);
        for (const line of child.lines) {
          const ack = JSON.parse(line) as CrashAck;
          expect(acks.has(ack.id), `${ack.id} acknowledged twice`).toBe(false);
          acks.set(ack.id, ack);
        }

        store = await h.reopen(store);
        const appendsInLog = await checkAfterCrash(store, acks);
        // Appends committed but killed before their line was printed may be there too; no more than that.
        expect(appendsInLog).toBeGreaterThanOrEqual(acks.size);
        expect(appendsInLog).toBeLessThanOrEqual(acks.size + CRASH_LOOPS * (round + 1));

        // The store goes on: the next append gets the next position and revision.
        const head = await store.headPosition();
        const revision = await store.streamRevision('after-crash');
        const result = await store.append('after-crash', [{ type: 'Recovered', data: { round } }], {
          expectedRevision: revision ?? 'no_stream',
        });
        expect(result).toEqual({ nextRevision: (revision ?? -1) + 2, position: head + 1 });
        await store.close();
      }
    }, 60_000);
  });
}
