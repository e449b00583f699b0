import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { projectionNames } from '../../projections/index.js';
import { openStore } from '../../src/store/open.js';
import type { EventData, RecordedEvent } from '../../src/store/types.js';
import { STREAM_DELETED } from '../../streams/system.js';
import {
  appendAll,
  assertBuilt,
  cleanEnv,
  ended,
  lines,
  runCli,
  startCli,
  storeUrlOfData,
  tempDir,
  until,
  watch,
  withDataStore,
} from './helpers.js';

// Each test starts node processes: leave room for a loaded machine (the full suite runs in parallel).
vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

const STACK_TRACE = /^\s+at /m;

let base: string;
/** `<base>/data`: so that `./data` seen from `<base>` is the same directory. */
let dataDir: string;
let recorded: RecordedEvent[];
let emptyDir: string;

beforeAll(async () => {
  assertBuilt();
  base = await tempDir();
  dataDir = join(base, 'data');
  await mkdir(dataDir);
  emptyDir = await tempDir();
  await appendAll(dataDir, [
    [
      'doc-1',
      [
        {
          type: 'EntitiesCreated',
          data: { handles: ['1F'], layer: 'walls' },
          metadata: { requestId: 'r1', userId: 7 },
        },
        { type: 'EntitiesMoved', data: { dx: 2.5 } },
      ],
    ],
    ['run-7', [{ type: 'RunStarted', data: { runId: 7 } }]],
    [
      'run-gone',
      [
        { type: 'RunStarted', data: { runId: 8 } },
        { type: 'RunLineWritten', data: { line: 'x' } },
      ],
    ],
    ['doc-2', [{ type: 'EntitiesCreated', data: { handles: [] } }]],
  ]);
  await withDataStore(dataDir, async (store) => {
    await store.deleteStream('run-gone');
    await store.append('doc-1', [{ type: 'EntitiesDeleted', data: { handles: ['1F'] } }]);
    recorded = [];
    for await (const event of store.readAll()) recorded.push(event);
  });
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
  await rm(emptyDir, { recursive: true, force: true });
});

const parsed = (stdout: string) => lines(stdout).map((line) => JSON.parse(line) as RecordedEvent);

describe('chronicle events', () => {
  it('has the log the tests expect, with a hole where the deleted stream was', () => {
    expect(recorded.map((e) => e.position)).toEqual([1, 2, 3, 6, 7, 8]);
    expect(recorded.find((e) => e.type === STREAM_DELETED)?.data).toEqual({
      stream: 'run-gone',
      lastRevision: 1,
    });
  });

  it('prints nothing and exits 0 on an empty data directory', async () => {
    const result = await runCli(['events', '--data', emptyDir]);
    expect(result).toEqual({ code: 0, signal: null, stdout: '', stderr: '' });
  });

  it('prints one human-readable line per event: position, time, stream@revision, type, ids and data', async () => {
    const result = await runCli(['events', '--data', dataDir]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const out = lines(result.stdout);
    expect(out).toHaveLength(recorded.length);
    out.forEach((line, i) => {
      const event = recorded[i] as RecordedEvent;
      const fields = line.trim().split(/ {2,}/);
      expect(fields[0]).toBe(String(event.position));
      expect(fields[1]).toBe(event.metadata.at);
      expect(fields[2]).toBe(`${event.stream}@${event.revision}`);
      expect(fields[3]).toBe(event.type);
      expect(fields.at(-1)).toBe(JSON.stringify(event.data));
    });
    expect(out[0]).toContain('[requestId=r1 userId=7]');
    expect(out[0]).toContain('{"handles":["1F"],"layer":"walls"}');
    expect(result.stdout).not.toContain('run-gone@');
    // Position 7, the fifth event printed.
    expect(out[4]).toContain(`$streams@0  ${STREAM_DELETED}  {"stream":"run-gone","lastRevision":1}`);
  });

  it('prints one parseable RecordedEvent per line with --json', async () => {
    const result = await runCli(['events', '--json', '--data', dataDir]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(parsed(result.stdout)).toEqual(recorded);
  });

  it('prints only the named stream', async () => {
    const result = await runCli(['events', 'doc-1', '--json', '--data', dataDir]);
    expect(result.code).toBe(0);
    const doc1 = recorded.filter((e) => e.stream === 'doc-1');
    expect(doc1).toHaveLength(3);
    expect(parsed(result.stdout)).toEqual(doc1);
  });

  it('prints nothing for a stream that has no events', async () => {
    const result = await runCli(['events', 'doc-none', '--data', dataDir]);
    expect(result).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('starts at --from, for the whole log and for one stream', async () => {
    const all = await runCli(['events', '--from', '6', '--json', '--data', dataDir]);
    expect(all.code).toBe(0);
    expect(parsed(all.stdout).map((e) => e.position)).toEqual([6, 7, 8]);

    const stream = await runCli(['events', 'doc-1', '--from', '2', '--json', '--data', dataDir]);
    expect(stream.code).toBe(0);
    expect(parsed(stream.stdout)).toEqual(recorded.filter((e) => e.stream === 'doc-1' && e.position >= 2));

    const past = await runCli(['events', '--from', '9', '--data', dataDir]);
    expect(past).toMatchObject({ code: 0, stdout: '' });
  });

  it('reads the same log with --store level:<dir> as with --data', async () => {
    const viaData = await runCli(['events', '--data', dataDir]);
    const viaStore = await runCli(['events', '--store', storeUrlOfData(dataDir)]);
    expect(viaStore.code).toBe(0);
    expect(viaStore.stderr).toBe('');
    expect(lines(viaStore.stdout)).toHaveLength(recorded.length);
    expect(viaStore.stdout).toBe(viaData.stdout);
  });

  it('takes --store over --data', async () => {
    const result = await runCli(['events', '--json', '--data', emptyDir, '--store', storeUrlOfData(dataDir)]);
    expect(result.code).toBe(0);
    expect(parsed(result.stdout)).toEqual(recorded);
  });

  it('prints nothing from a fresh memory: store', async () => {
    const result = await runCli(['events', '--store', 'memory:']);
    expect(result).toEqual({ code: 0, signal: null, stdout: '', stderr: '' });
  });

  it('defaults the data directory to $CHRONICLE_DATA', async () => {
    const result = await runCli(['events', '--json'], {
      cwd: emptyDir,
      env: cleanEnv({ CHRONICLE_DATA: dataDir }),
    });
    expect(result.code).toBe(0);
    expect(parsed(result.stdout)).toEqual(recorded);
  });

  it('takes --data over $CHRONICLE_DATA', async () => {
    const result = await runCli(['events', '--data', emptyDir], {
      cwd: emptyDir,
      env: cleanEnv({ CHRONICLE_DATA: dataDir }),
    });
    expect(result).toMatchObject({ code: 0, stdout: '' });
  });

  it('defaults the data directory to ./data without $CHRONICLE_DATA', async () => {
    const result = await runCli(['events', '--json'], { cwd: base });
    expect(result.code).toBe(0);
    expect(parsed(result.stdout)).toEqual(recorded);
  });

  describe('--follow', () => {
    it('prints what is there, keeps running, and exits 0 on SIGTERM releasing the store', async () => {
      const child = startCli(['events', '--follow', '--data', dataDir]);
      const watched = watch(child);
      await until(() => lines(watched.stdout()).length >= recorded.length, 'the existing events');
      const printed = lines(watched.stdout());
      expect(printed.map((line) => Number(line.trim().split(/\s+/)[0]))).toEqual(
        recorded.map((e) => e.position),
      );

      // Following: still running well after the catch-up was printed.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(child.exitCode).toBeNull();
      expect(child.signalCode).toBeNull();

      child.kill('SIGTERM');
      const result = await watched.done;
      expect(result).toEqual({
        code: 0,
        signal: null,
        stdout: printed.map((l) => `${l}\n`).join(''),
        stderr: '',
      });
      // The store was closed on the way out: this process can open it.
      const store = await openStore(storeUrlOfData(dataDir));
      await store.close();
    });

    it('follows one stream as JSON and exits 0 on SIGINT', async () => {
      const child = startCli(['events', 'doc-1', '--follow', '--json', '--data', dataDir]);
      const watched = watch(child);
      const doc1 = recorded.filter((e) => e.stream === 'doc-1');
      await until(() => lines(watched.stdout()).length >= doc1.length, 'the events of doc-1');
      expect(parsed(watched.stdout())).toEqual(doc1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(child.exitCode).toBeNull();
      child.kill('SIGINT');
      expect(await watched.done).toMatchObject({ code: 0, signal: null, stderr: '' });
    });
  });

  describe('usage errors: usage text on stderr, exit 2', () => {
    it.each([
      { args: ['bogus'], message: "unknown command 'bogus'", usage: 'Usage: chronicle [options] [command]' },
      {
        args: ['events', '--from', 'abc'],
        message: "'abc' is invalid",
        usage: 'Usage: chronicle events [options] [stream]',
      },
      {
        args: ['events', '--from', '-3'],
        message: 'a position is a whole number',
        usage: 'Usage: chronicle events',
      },
      { args: ['events', '--bogus'], message: "unknown option '--bogus'", usage: 'Usage: chronicle events' },
      {
        args: ['rebuild', 'no-such-projection'],
        message: `unknown projection no-such-projection; known: ${projectionNames().join(', ')}`,
        usage: 'Usage: chronicle rebuild',
      },
      {
        args: ['rebuild', '--from', '1'],
        message: "unknown option '--from'",
        usage: 'Usage: chronicle rebuild',
      },
    ])('chronicle $args', async ({ args, message, usage }) => {
      const untouched = await tempDir();
      try {
        const result = await runCli([...args, '--data', untouched]);
        expect(result.code).toBe(2);
        expect(result.stdout).toBe('');
        expect(result.stderr).toContain(message);
        expect(result.stderr).toContain(usage);
        expect(result.stderr).not.toMatch(STACK_TRACE);
        // Refused before any store was opened.
        expect(existsSync(join(untouched, 'events'))).toBe(false);
      } finally {
        await rm(untouched, { recursive: true, force: true });
      }
    });

    it('chronicle with no command', async () => {
      const result = await runCli([]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('Usage: chronicle');
    });
  });

  describe('failures: one clear line on stderr, exit 1', () => {
    it('refuses a data directory another process holds, naming it', async () => {
      const locked = await tempDir();
      const store = await openStore(storeUrlOfData(locked));
      try {
        const result = await runCli(['events', '--data', locked]);
        expect(result.code).toBe(1);
        expect(result.stdout).toBe('');
        expect(result.stderr).toContain(join(locked, 'events'));
        expect(result.stderr).toContain('in use by another process');
        expect(result.stderr).not.toMatch(STACK_TRACE);
        expect(lines(result.stderr)).toHaveLength(1);
      } finally {
        await store.close();
        await rm(locked, { recursive: true, force: true });
      }
    });

    it.each([[[] as string[]], [['--follow']]])('refuses a deleted stream (extra args %j)', async (extra) => {
      const result = await runCli(['events', 'run-gone', ...extra, '--data', dataDir]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        'chronicle: stream "run-gone" was deleted and cannot be read or appended to\n',
      );
    });

    it.each([
      ['postgres://x', 'postgres'],
      ['kurrentdb://x', 'kurrentdb'],
      ['nosuch:thing', 'unknown store URL'],
    ])('refuses --store %s', async (url, named) => {
      const result = await runCli(['events', '--store', url]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^chronicle: /);
      expect(result.stderr).toContain(named);
      expect(result.stderr).not.toMatch(STACK_TRACE);
      expect(lines(result.stderr)).toHaveLength(1);
    });
  });

  describe('a reader that closes the pipe early (`chronicle events | head -1`)', () => {
    let bigDir: string;
    const PER_APPEND = 1_000;
    const APPENDS = 20;

    beforeAll(async () => {
      bigDir = await tempDir();
      // Megabytes of output: far more than a pipe buffers, so the command is still writing when the
      // reader goes away.
      const payload = 'x'.repeat(200);
      await withDataStore(bigDir, async (store) => {
        for (let a = 0; a < APPENDS; a++) {
          const batch: EventData[] = Array.from({ length: PER_APPEND }, (_, i) => ({
            type: 'EntitiesCreated',
            data: { a, i, payload },
          }));
          await store.append(`doc-${a}`, batch);
        }
      });
    });

    afterAll(async () => {
      await rm(bigDir, { recursive: true, force: true });
    });

    it.each([[[] as string[]], [['--json']]])('ends quietly (extra args %j)', async (extra) => {
      const child = startCli(['events', ...extra, '--data', bigDir]);
      const result = ended(child);
      // Read the first chunk, then go away like `head -1` does.
      const first = await new Promise<string>((resolve) => {
        child.stdout.once('data', (chunk: string) => {
          child.stdout.destroy();
          resolve(chunk.split('\n')[0] ?? '');
        });
      });
      const { code, signal, stderr } = await result;
      expect(first).toMatch(/^\s+1 |"position":1,/);
      expect({ code, signal, stderr }).toEqual({ code: 0, signal: null, stderr: '' });
    });
  });
});
