import { rm } from 'node:fs/promises';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { projectionNames, projections } from '../../projections/index.js';
import { persists } from '../../projections/projection.js';
import { type StreamCatalog, streamCatalog } from '../../projections/stream-catalog.js';
import { openStore } from '../../src/store/open.js';
import type { EventStore, Snapshot } from '../../src/store/types.js';
import {
  appendAll,
  assertBuilt,
  lines,
  runCli,
  startCli,
  storeUrlOfData,
  tempDir,
  until,
  watch,
  withDataStore,
} from './helpers.js';

/** What the stream catalog makes of the log as it is now: the state a rebuild must save. */
async function catalogOf(store: EventStore): Promise<StreamCatalog> {
  let state = streamCatalog.initial();
  for await (const event of store.readAll()) state = streamCatalog.evolve(state, event);
  return state;
}

const RESULT_LINE = (name: string, events: number, checkpoint: number) =>
  new RegExp(
    `^${name}: rebuilt from ${events} events in \\d+\\.\\d\\d s \\(\\d+ events/s\\), checkpoint ${checkpoint}$`,
  );

// Each test starts node processes: leave room for a loaded machine (the full suite runs in parallel).
vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

beforeAll(() => {
  assertBuilt();
});

describe('chronicle rebuild', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await tempDir();
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  async function populate(): Promise<void> {
    await appendAll(dataDir, [
      [
        'doc-1',
        [
          { type: 'EntitiesCreated', data: { n: 1 } },
          { type: 'EntitiesMoved', data: { n: 2 } },
        ],
      ],
      [
        'run-1',
        [
          { type: 'RunStarted', data: { runId: 1 } },
          { type: 'RunLineWritten', data: { line: 'a' } },
        ],
      ],
      ['doc-2', [{ type: 'EntitiesCreated', data: { n: 3 } }]],
    ]);
    await withDataStore(dataDir, async (store) => {
      await store.deleteStream('run-1');
      await store.append('doc-1', [{ type: 'EntitiesDeleted', data: { n: 4 } }]);
      // A stale snapshot the rebuild must replace.
      await store.saveSnapshot({
        name: 'stream-catalog',
        version: 1,
        position: 2,
        state: { events: 1000, streams: {} },
      });
    });
  }

  it('prints a result line per projection on stdout and plain progress lines on stderr, then saves snapshots', async () => {
    await populate();
    const result = await runCli(['rebuild', '--data', dataDir]);
    expect(result.code).toBe(0);

    // 1-2, 5 (run-1's 3-4 deleted), StreamDeleted at 6, 7: five events read, checkpoint 7.
    const out = lines(result.stdout);
    expect(out).toHaveLength(projectionNames().length);
    projections.forEach((projection, i) => {
      // A read model of one stream reads that stream only: none of these events are in it.
      if (projection.stream !== undefined) expect(out[i]).toMatch(RESULT_LINE(projection.name, 0, 0));
      else if (persists(projection)) expect(out[i]).toMatch(RESULT_LINE(projection.name, 5, 7));
      else
        expect(out[i]).toMatch(
          new RegExp(
            // A read model of one part per stream of a prefix reads those streams only: none here.
            `^${projection.name}: replayed from ${projection.partition === undefined ? 5 : 0} events in \\d+\\.\\d\\d s \\(\\d+ events/s\\), checkpoint 7 \\(kept in memory by its server: no snapshot\\)$`,
          ),
        );
    });

    const progress = lines(result.stderr);
    expect(progress.length).toBeGreaterThan(0);
    for (const line of progress)
      expect(line).toMatch(/^rebuild [a-z-]+: \d+\/\d+ events \(\d+%\), \d+ events\/s, ETA \d+s$/);
    // Not a terminal: no bar redrawn in place, no cursor control.
    expect(result.stderr).not.toContain('\r');
    expect(result.stderr).not.toContain('\u001b[');
    for (const projection of projections) {
      const whole = projection.stream === undefined ? '7/7' : '0/0';
      expect(progress.filter((line) => line.startsWith(`rebuild ${projection.name}: `)).at(-1)).toMatch(
        new RegExp(`^rebuild ${projection.name}: ${whole} events \\(100%\\)`),
      );
    }

    await withDataStore(dataDir, async (store) => {
      const snapshot = await store.loadSnapshot<StreamCatalog>('stream-catalog');
      expect(snapshot).toEqual({
        name: 'stream-catalog',
        version: streamCatalog.version,
        position: 7,
        state: await catalogOf(store),
      } satisfies Snapshot<StreamCatalog>);
      expect(Object.keys(snapshot?.state.streams ?? {}).sort()).toEqual(['$streams', 'doc-1', 'doc-2']);
      expect(snapshot?.state.events).toBe(5);
      for (const projection of projections) {
        if (persists(projection))
          expect(await store.loadSnapshot(projection.name)).toMatchObject({
            position: projection.stream === undefined ? 7 : 0,
          });
        else expect(await store.loadSnapshot(projection.name)).toBeUndefined();
      }
    });
  });

  it('rebuilds the named projection in the store --store names', async () => {
    await populate();
    const result = await runCli(['rebuild', 'stream-catalog', '--store', storeUrlOfData(dataDir)]);
    expect(result.code).toBe(0);
    expect(lines(result.stdout)).toHaveLength(1);
    expect(lines(result.stdout)[0]).toMatch(RESULT_LINE('stream-catalog', 5, 7));
    await withDataStore(dataDir, async (store) => {
      expect(await store.loadSnapshot('stream-catalog')).toMatchObject({ position: 7, state: { events: 5 } });
    });
  });

  it('rebuilds an empty log to checkpoint 0', async () => {
    const result = await runCli(['rebuild', '--data', dataDir]);
    expect(result.code).toBe(0);
    expect(lines(result.stdout)[0]).toMatch(RESULT_LINE('stream-catalog', 0, 0));
    // Every projection is rebuilt in turn; stream-catalog's last progress line is among them.
    expect(lines(result.stderr)).toContainEqual(
      expect.stringMatching(/^rebuild stream-catalog: 0\/0 events \(100%\)/),
    );
    await withDataStore(dataDir, async (store) => {
      expect(await store.loadSnapshot('stream-catalog')).toEqual({
        name: 'stream-catalog',
        version: 1,
        position: 0,
        state: { events: 0, streams: {} },
      });
    });
  });

  it('exits 1 naming the data directory when another process holds it', async () => {
    await populate();
    const store = await openStore(storeUrlOfData(dataDir));
    try {
      const result = await runCli(['rebuild', '--data', dataDir]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(dataDir);
      expect(result.stderr).not.toMatch(/^\s+at /m);
    } finally {
      await store.close();
    }
  });

  it('resumes from its checkpoint after being killed mid-way, and ends with what a clean rebuild gives', async () => {
    const total = 400_000;
    await withDataStore(dataDir, async (store) => {
      for (let done = 0; done < total; done += 2_000) {
        const batch = Array.from({ length: 2_000 }, (_, i) => ({
          type: 'LineAppended',
          data: { line: `line ${done + i}` },
        }));
        await store.append(`run-${(done / 2_000) % 50}`, batch);
      }
    });
    const child = startCli(['rebuild', 'stream-catalog', '--data', dataDir, '--checkpoint-every', '10000']);
    const watched = watch(child, 60_000);
    await until(
      () => /checkpoint saved at position \d+/.test(watched.stderr()),
      'a first checkpoint',
      30_000,
    );
    child.kill('SIGKILL');
    const killed = await watched.done;
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.stdout).not.toContain('rebuilt from');

    const checkpoint = await withDataStore(dataDir, async (store) => {
      // Killed half-way: the live snapshot was never replaced, the checkpoint is there beside it.
      expect(await store.loadSnapshot('stream-catalog')).toBeUndefined();
      return store.loadSnapshot('rebuild:stream-catalog');
    });
    expect(checkpoint?.position).toBeGreaterThan(0);
    expect(checkpoint?.position).toBeLessThan(total);

    const again = await runCli(['rebuild', 'stream-catalog', '--data', dataDir], { timeoutMs: 60_000 });
    expect(again.code, again.stderr).toBe(0);
    const out = lines(again.stdout);
    const resumed = /^stream-catalog: resuming from the checkpoint at position (\d+)$/.exec(out[0] ?? '');
    expect(resumed, again.stdout).not.toBeNull();
    const from = Number(resumed?.[1]);
    expect(from).toBeGreaterThanOrEqual(checkpoint?.position ?? 0);
    expect(out[1]).toMatch(RESULT_LINE('stream-catalog', total - from, total));

    await withDataStore(dataDir, async (store) => {
      expect(await store.loadSnapshot('stream-catalog')).toEqual({
        name: 'stream-catalog',
        version: streamCatalog.version,
        position: total,
        state: await catalogOf(store),
      });
      expect(await store.loadSnapshot('rebuild:stream-catalog')).toBeUndefined();
    });
  });
});
