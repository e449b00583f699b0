import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  budgetNotice,
  deleteLog,
  environmentLogDir,
  folderBytes,
  type LogSync,
  logPath,
  RunLogWriter,
  readLog,
  type Truncation,
} from '../../src/stacks/runs/log-files.js';
import { tempDir } from './records-helpers.js';

let dataDir: string;
beforeEach(async () => {
  dataDir = await tempDir();
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const big = { budgetBytes: 1024 ** 3, remeasureBytes: 1024 ** 2 };

describe('run log paths', () => {
  it('puts a run under its environment, "null" for the local one', () => {
    expect(logPath('/d', null, 7)).toBe('/d/deploy-logs/null/7.log');
    expect(logPath('/d', 3, 12)).toBe('/d/deploy-logs/3/12.log');
  });
});

describe('RunLogWriter', () => {
  it('creates the file with the first line, not before, and keeps arrival order', async () => {
    const path = logPath(dataDir, null, 1);
    const writer = await RunLogWriter.open(path, big);
    await writer.flush();
    expect(existsSync(path)).toBe(false);
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i} ${'é'.repeat(i % 7)}`);
    for (const line of lines) writer.line(line);
    await writer.close();
    expect(await readFile(path, 'utf8')).toBe(`${lines.join('\n')}\n`);
    expect(writer.linesWritten).toBe(20_000);
    expect(writer.truncated).toBe(false);
    expect(() => writer.line('late')).toThrow(/closed/);
  });

  it('tells the lines it queued as given from the text it writes: both in its backlog, none once flushed', async () => {
    const writer = await RunLogWriter.open(logPath(dataDir, null, 9), big);
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i}`);
    for (const line of lines) writer.line(line);
    // Most of it still queued as given (the caller's strings, a job's too), each line with its line
    // break; the pump took the first line at once (it opens the file meanwhile).
    const all = lines.reduce((n, line) => n + line.length + 1, 0);
    const queued = writer.queuedLineChars;
    expect(queued).toBe(all - 'line 0\n'.length);
    expect(writer.backlogBytes).toBeGreaterThanOrEqual(queued);
    // Once the pump has taken more, they are text in flight: in the backlog, no longer queued.
    while (writer.queuedLineChars === queued) await new Promise((r) => setTimeout(r, 1));
    expect(writer.queuedLineChars).toBeLessThan(queued);
    expect(writer.backlogBytes).toBeGreaterThanOrEqual(writer.queuedLineChars);
    await writer.flush();
    expect(writer.queuedLineChars).toBe(0);
    expect(writer.backlogBytes).toBe(0);
    await writer.close();
  });

  it('never creates a file for a run without lines', async () => {
    const path = logPath(dataDir, 2, 1);
    await new RunLogWriter(path, big).close();
    expect(existsSync(path)).toBe(false);
  });

  it('drops lines past the budget, writes one notice and reports the truncation once', async () => {
    const path = logPath(dataDir, null, 5);
    const truncations: Truncation[] = [];
    const writer = await RunLogWriter.open(path, { budgetBytes: 100, remeasureBytes: 1024 }, (t) =>
      truncations.push(t),
    );
    const kept = Array.from({ length: 50 }, (_, i) => writer.line(`line-${String(i).padStart(3, '0')}`)); // 9 bytes each
    expect(kept).toEqual([...Array(11).fill(true), ...Array(39).fill(false)]);
    await writer.close();
    const text = await readFile(path, 'utf8');
    const expected = Array.from({ length: 11 }, (_, i) => `line-${String(i).padStart(3, '0')}\n`).join('');
    expect(text).toBe(`${expected}${budgetNotice(100)}\n`);
    expect(truncations).toEqual([{ budgetBytes: 100, usedBytes: 99 }]);
    expect(writer.truncated).toBe(true);
    expect(writer.linesDropped).toBe(39);
  });

  it('counts the other logs of the environment (and only of that environment)', async () => {
    const envDir = environmentLogDir(dataDir, 4);
    await mkdir(envDir, { recursive: true });
    await writeFile(join(envDir, '1.log'), 'x'.repeat(95));
    await mkdir(environmentLogDir(dataDir, 5), { recursive: true });
    await writeFile(join(environmentLogDir(dataDir, 5), '9.log'), 'y'.repeat(5000));
    const truncations: Truncation[] = [];
    const writer = await RunLogWriter.open(
      logPath(dataDir, 4, 2),
      { budgetBytes: 100, remeasureBytes: 1024 },
      (t) => truncations.push(t),
    );
    writer.line('abcd'); // 5 bytes: fits exactly
    writer.line('e');
    await writer.close();
    expect(await readLog(logPath(dataDir, 4, 2))).toBe(`abcd\n${budgetNotice(100)}\n`);
    expect(truncations).toEqual([{ budgetBytes: 100, usedBytes: 100 }]);
  });

  it('re-measures when its own output grew by remeasureBytes, and sees logs written meanwhile', async () => {
    const envDir = environmentLogDir(dataDir, null);
    const truncations: Truncation[] = [];
    const writer = await RunLogWriter.open(
      logPath(dataDir, null, 3),
      { budgetBytes: 1000, remeasureBytes: 100 },
      (t) => truncations.push(t),
    );
    writer.line('a'.repeat(49)); // 50 bytes
    await writer.flush();
    // Another run filled the folder: not seen until this run has written 100 more bytes.
    await writeFile(join(envDir, '1.log'), 'z'.repeat(900));
    writer.line('b'.repeat(49)); // 100 bytes own: measured again, in the background
    await writer.flush();
    writer.line('c'.repeat(49)); // judged by the new measurement: 900 + 100 + 50 > 1000
    writer.line('d'.repeat(49));
    await writer.close();
    const text = (await readLog(logPath(dataDir, null, 3))) as string;
    expect(text.split('\n').slice(0, 3)).toEqual(['a'.repeat(49), 'b'.repeat(49), budgetNotice(1000)]);
    expect(truncations).toHaveLength(1);
  });

  it('reports a log it cannot write as a RunLogError', async () => {
    await writeFile(join(dataDir, 'deploy-logs'), 'a file where the folder should be');
    const writer = await RunLogWriter.open(logPath(dataDir, null, 1), big);
    writer.line('x');
    await expect(writer.close()).rejects.toThrow(/cannot write the run log/);
    expect(writer.error).toBeDefined();
  });
});

describe('RunLogWriter durability', () => {
  /** A sync seam that records what it is asked, holding the file's sync until `release`. */
  function observedSync() {
    const calls: string[] = [];
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let firstCall: () => void = () => {};
    const called = new Promise<void>((resolve) => {
      firstCall = resolve;
    });
    const sync: LogSync = {
      file: async (handle) => {
        // What the file holds when it is synced: its size through the synced handle.
        calls.push(`file ${(await handle.stat()).size} bytes`);
        firstCall();
        await held;
      },
      directory: async (dir) => {
        calls.push(`dir ${relative(dataDir, dir) || '.'}`);
      },
    };
    return { calls, sync, release, called };
  }

  it('close() resolves only after one sync of the whole file, then of its folder and the folders it created', async () => {
    const path = logPath(dataDir, 7, 1);
    const lines = Array.from({ length: 1_000 }, (_, i) => `line ${i}`);
    const bytes = Buffer.byteLength(`${lines.join('\n')}\n`);
    const { calls, sync, release, called } = observedSync();
    const writer = await RunLogWriter.open(path, big, undefined, sync);
    for (const line of lines) writer.line(line);
    let closed = false;
    const closing = writer.close().then(() => {
      closed = true;
    });
    await Promise.race([called, closing]);
    expect(calls).toEqual([`file ${bytes} bytes`]);
    expect(closed).toBe(false);
    release();
    await closing;
    // deploy-logs/7 and deploy-logs were created by this writer: their parents hold new entries too.
    expect(calls).toEqual([`file ${bytes} bytes`, 'dir deploy-logs/7', 'dir deploy-logs', 'dir .']);
  });

  it('syncs only the file and its folder when the folder was there; nothing for a run without lines', async () => {
    await mkdir(environmentLogDir(dataDir, null), { recursive: true });
    const second = observedSync();
    second.release();
    const writer = await RunLogWriter.open(logPath(dataDir, null, 2), big, undefined, second.sync);
    writer.line('only line');
    await writer.close();
    expect(second.calls).toEqual(['file 10 bytes', 'dir deploy-logs/null']);

    const empty = observedSync();
    await new RunLogWriter(logPath(dataDir, null, 3), big, undefined, empty.sync).close();
    expect(empty.calls).toEqual([]);
  });

  it('a sync that fails is a RunLogError, like a write that fails', async () => {
    const failing: LogSync = {
      file: async () => {
        throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
      },
      directory: async () => {},
    };
    const writer = await RunLogWriter.open(logPath(dataDir, null, 4), big, undefined, failing);
    writer.line('x');
    await expect(writer.close()).rejects.toThrow(/cannot write the run log .*EIO/);
    expect(writer.error).toBeDefined();
  });

  it('the default sync (fsync) works on a real file and folder', async () => {
    const path = logPath(dataDir, 9, 1);
    const writer = await RunLogWriter.open(path, big);
    writer.line('durable');
    await writer.close();
    expect(await readLog(path)).toBe('durable\n');
  });
});

describe('readLog, deleteLog, folderBytes', () => {
  it('tolerate missing files', async () => {
    const path = logPath(dataDir, null, 1);
    expect(await readLog(path)).toBeUndefined();
    expect(await deleteLog(path)).toBe(false);
    expect(await folderBytes(environmentLogDir(dataDir, null))).toBe(0);
    await mkdir(environmentLogDir(dataDir, null), { recursive: true });
    await writeFile(path, 'hello\n');
    expect(await folderBytes(environmentLogDir(dataDir, null))).toBe(6);
    expect(await folderBytes(environmentLogDir(dataDir, null), '1.log')).toBe(0);
    expect(await deleteLog(path)).toBe(true);
    expect(existsSync(path)).toBe(false);
  });
});
