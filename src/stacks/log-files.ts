import type { WriteStream } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, readFile, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { EnvironmentId } from '../../streams/stacks.js';

/**
 * Run logs: `<data>/deploy-logs/<env id or "null">/<runId>.log` (CONTRACT.md), one redacted output line
 * per text line, in arrival order. A size budget applies per environment folder (spec, Limits).
 */
export const DEPLOY_LOGS_DIR = 'deploy-logs';

export const environmentLogDir = (dataDir: string, environmentId: EnvironmentId): string =>
  join(dataDir, DEPLOY_LOGS_DIR, environmentId === null ? 'null' : String(environmentId));

export const logFileName = (runId: number): string => `${runId}.log`;

export const logPath = (dataDir: string, environmentId: EnvironmentId, runId: number): string =>
  join(environmentLogDir(dataDir, environmentId), logFileName(runId));

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';

/** The log's text, or undefined when there is no such file. */
export async function readLog(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** Removes the log; true when it was there, false when it already was not. */
export async function deleteLog(path: string): Promise<boolean> {
  try {
    await stat(path);
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
  await rm(path, { force: true });
  return true;
}

/** Bytes held by the files of `dir` (0 when it does not exist), leaving out the file named `except`. */
export async function folderBytes(dir: string, except?: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (isMissing(error)) return 0;
    throw error;
  }
  const sizes = await Promise.all(
    names
      .filter((name) => name !== except)
      .map(async (name) => {
        try {
          const info = await stat(join(dir, name));
          return info.isFile() ? info.size : 0;
        } catch (error) {
          // Deleted between the listing and the stat (a run deleted meanwhile): it holds nothing.
          if (isMissing(error)) return 0;
          throw error;
        }
      }),
  );
  return sizes.reduce((sum, size) => sum + size, 0);
}

export interface LogBudget {
  /** Bytes all logs of one environment may hold. */
  budgetBytes: number;
  /** The folder is measured again when this run's own output has grown by this much since the last time. */
  remeasureBytes: number;
}

export interface Truncation {
  budgetBytes: number;
  /** The environment's bytes (other logs as last measured, plus this run's) when the budget was hit. */
  usedBytes: number;
}

export const budgetNotice = (budgetBytes: number): string =>
  `[chronicle] log budget of ${budgetBytes} bytes for this environment reached; further lines were dropped`;

/**
 * Makes a run log durable (the seam lets a test watch it). A run's completion is recorded only after its
 * log is: its data synced, and the folder entries that name it.
 */
export interface LogSync {
  /** fsync of the open log file. */
  file(handle: FileHandle): Promise<void>;
  /** fsync of a folder, so an entry created in it survives a crash. */
  directory(path: string): Promise<void>;
}

export const fsLogSync: LogSync = {
  file: (handle) => handle.sync(),
  directory: async (path) => {
    const handle = await open(path, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
};

/** A run log could not be written (disk full, permissions): what was accepted after it is not in the file. */
export class RunLogError extends Error {
  readonly path: string;
  constructor(path: string, cause: unknown) {
    super(`cannot write the run log ${path}: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = 'RunLogError';
    this.path = path;
  }
}

/**
 * Writes one run's log. `line()` never waits: lines queue in memory and one pump writes them through a
 * single write stream, in order, as few large writes. The file is only created with the first line
 * written. The budget is checked against the environment folder as last measured (at the start, and
 * again whenever this run's output has grown by `remeasureBytes`) plus this run's own bytes; the first
 * line that does not fit ends the log with one notice line, and every later line is dropped.
 * `close()` makes the file durable: one fsync at the end (not per line), and one of each folder whose
 * entries it added (the file's, and the parents of folders it created).
 */
export class RunLogWriter {
  readonly path: string;
  private readonly dir: string;
  private readonly name: string;
  private readonly budget: LogBudget;
  private readonly onTruncated: (truncation: Truncation) => void;
  private readonly sync: LogSync;
  /** Folders whose entries this writer added (the file's, then parents of folders it created), deepest first. */
  private newEntriesIn: string[] = [];
  private pending: string[] = [];
  private pumping: Promise<void> = Promise.resolve();
  /** Set while the pump runs; cleared in the same step in which it finds the queue empty. */
  private active = false;
  private stream: WriteStream | undefined;
  /** The open log file, written through `stream` (which closes it). */
  private file: FileHandle | undefined;
  private lastWrite: Promise<void> = Promise.resolve();
  private othersBytes = 0;
  private ownBytes = 0;
  /** `ownBytes` when the folder was last measured; -1 before the first measurement. */
  private measuredAt = -1;
  private closed = false;
  private failure: RunLogError | undefined;
  private written = 0;
  private droppedLines = 0;
  private wasTruncated = false;
  private readonly watchers = new Set<(chunk: string) => void>();
  /** Bytes of the chunks handed to the write stream (and to watchers) so far. */
  private announcedBytes = 0;

  constructor(
    path: string,
    budget: LogBudget,
    onTruncated: (truncation: Truncation) => void = () => {},
    sync: LogSync = fsLogSync,
  ) {
    this.path = path;
    this.dir = dirname(path);
    this.name = basename(path);
    this.budget = budget;
    this.onTruncated = onTruncated;
    this.sync = sync;
  }

  get truncated(): boolean {
    return this.wasTruncated;
  }

  /** Lines that reached the file (the notice line not counted). */
  get linesWritten(): number {
    return this.written;
  }

  /** Lines dropped for the budget, or because the file could not be written. */
  get linesDropped(): number {
    return this.droppedLines;
  }

  /** Bytes this run's log holds (or will, once written). */
  get bytes(): number {
    return this.ownBytes;
  }

  get error(): RunLogError | undefined {
    return this.failure;
  }

  /**
   * Follows what is written from now on: `listener` gets every later chunk (whole lines, each ending in
   * a line break), and the returned `written` resolves with the file's first `bytes` bytes (everything
   * before those chunks) once they are in the file, so a follower reads the file up to there and then
   * goes on with the chunks: no line missed, none twice.
   */
  watch(listener: (chunk: string) => void): { bytes: number; written: Promise<void>; stop(): void } {
    this.watchers.add(listener);
    return {
      bytes: this.announcedBytes,
      written: this.lastWrite,
      stop: () => this.watchers.delete(listener),
    };
  }

  /** Queues a line (already redacted, without its line break). */
  line(text: string): void {
    if (this.closed) throw new Error(`run log ${this.path} is closed`);
    if (this.wasTruncated || this.failure) {
      this.droppedLines += 1;
      return;
    }
    this.pending.push(text);
    if (!this.active) {
      this.active = true;
      this.pumping = this.pump();
    }
  }

  /** Resolves when every line queued so far is in the file (handed to the OS); rejects on a write error. */
  async flush(): Promise<void> {
    while (this.active) await this.pumping;
    await this.lastWrite;
    if (this.failure) throw this.failure;
  }

  /**
   * Writes what is queued, makes the file durable, then closes it; rejects with a RunLogError when the
   * log could not be written (or synced).
   */
  async close(): Promise<void> {
    this.closed = true;
    try {
      await this.flush();
      await this.makeDurable();
    } finally {
      const stream = this.stream;
      if (stream && !stream.destroyed)
        await new Promise<void>((resolve) => {
          stream.once('close', () => resolve());
          stream.end();
        });
    }
    if (this.failure) throw this.failure;
  }

  /** fsync of the file, then of the folders that got new entries; nothing when no file was made. */
  private async makeDurable(): Promise<void> {
    if (!this.file || this.failure) return;
    try {
      await this.sync.file(this.file);
      for (const dir of this.newEntriesIn) await this.sync.directory(dir);
    } catch (error) {
      this.fail(error);
    }
  }

  private async pump(): Promise<void> {
    // The loop's last check and clearing `active` happen in one synchronous step, so a line queued
    // at any moment either is seen by this loop or starts a new pump.
    try {
      while (this.pending.length > 0 && !this.failure) {
        if (this.measuredAt < 0 || this.ownBytes - this.measuredAt >= this.budget.remeasureBytes) {
          this.othersBytes = await folderBytes(this.dir, this.name);
          this.measuredAt = this.ownBytes;
        }
        const chunk = this.takeChunk();
        if (chunk.length > 0) await this.write(chunk);
      }
    } catch (error) {
      this.fail(error);
    } finally {
      this.active = false;
    }
  }

  /** Takes queued lines up to the next re-measurement or the budget, as one string to write. */
  private takeChunk(): string {
    const parts: string[] = [];
    let taken = 0;
    for (; taken < this.pending.length; taken++) {
      const text = `${this.pending[taken]}\n`;
      const bytes = Buffer.byteLength(text);
      if (this.othersBytes + this.ownBytes + bytes > this.budget.budgetBytes) {
        this.truncate(parts, this.pending.length - taken);
        return parts.join('');
      }
      parts.push(text);
      this.ownBytes += bytes;
      this.written += 1;
      if (this.ownBytes - this.measuredAt >= this.budget.remeasureBytes) {
        taken += 1;
        break;
      }
    }
    this.pending = taken >= this.pending.length ? [] : this.pending.slice(taken);
    return parts.join('');
  }

  private truncate(parts: string[], dropped: number): void {
    const usedBytes = this.othersBytes + this.ownBytes;
    const notice = `${budgetNotice(this.budget.budgetBytes)}\n`;
    parts.push(notice);
    this.ownBytes += Buffer.byteLength(notice);
    this.droppedLines += dropped;
    this.pending = [];
    this.wasTruncated = true;
    this.onTruncated({ budgetBytes: this.budget.budgetBytes, usedBytes });
  }

  private async write(chunk: string): Promise<void> {
    if (!this.stream) {
      const firstMade = await mkdir(this.dir, { recursive: true });
      this.newEntriesIn = [this.dir];
      // Every folder from the file's up to the first one mkdir made is new: its parent holds its entry.
      if (firstMade !== undefined)
        for (let made = this.dir; ; made = dirname(made)) {
          this.newEntriesIn.push(dirname(made));
          if (made === firstMade || dirname(made) === made) break;
        }
      this.file = await open(this.path, 'w');
      this.stream = this.file.createWriteStream();
      this.stream.on('error', (error) => this.fail(error));
    }
    const stream = this.stream;
    // Watchers hear of a chunk in the same step it is handed to the stream (see watch()).
    for (const watcher of this.watchers) watcher(chunk);
    this.announcedBytes += Buffer.byteLength(chunk);
    let ok = true;
    this.lastWrite = new Promise<void>((resolve) => {
      ok = stream.write(chunk, (error) => {
        if (error) this.fail(error);
        resolve();
      });
    });
    if (!ok && !this.failure)
      await new Promise<void>((resolve) => {
        const done = () => {
          stream.off('drain', done);
          stream.off('error', done);
          resolve();
        };
        stream.once('drain', done);
        stream.once('error', done);
      });
  }

  private fail(error: unknown): void {
    if (this.failure) return;
    this.failure = error instanceof RunLogError ? error : new RunLogError(this.path, error);
    this.droppedLines += this.pending.length;
    this.pending = [];
  }
}
