import type { WriteStream } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, readFile, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { EnvironmentId } from '../../../streams/stacks.js';
import { firstEvent } from '../first-event.js';
import { unlessMissing } from '../missing-files.js';

/**
 * Run logs: `<data>/deploy-logs/<env id or "null">/<runId>.log`, one redacted output line
 * per text line, in arrival order. A size budget applies per environment folder (spec, Limits).
 */
export const DEPLOY_LOGS_DIR = 'deploy-logs';

export const environmentLogDir = (dataDir: string, environmentId: EnvironmentId): string =>
  join(dataDir, DEPLOY_LOGS_DIR, environmentId === null ? 'null' : String(environmentId));

export const logFileName = (runId: number): string => `${runId}.log`;

export const logPath = (dataDir: string, environmentId: EnvironmentId, runId: number): string =>
  join(environmentLogDir(dataDir, environmentId), logFileName(runId));

/** The log's text, or undefined when there is no such file. */
export function readLog(path: string): Promise<string | undefined> {
  return unlessMissing(readFile(path, 'utf8'), undefined);
}

/** Removes the log; true when it was there, false when it already was not. */
export async function deleteLog(path: string): Promise<boolean> {
  if ((await unlessMissing(stat(path), undefined)) === undefined) return false;
  await rm(path, { force: true });
  return true;
}

/** Bytes held by the files of `dir` (0 when it does not exist), leaving out the file named `except`. */
export async function folderBytes(dir: string, except?: string): Promise<number> {
  const names = await unlessMissing(readdir(dir), []);
  const sizes = await Promise.all(
    names
      .filter((name) => name !== except)
      .map(async (name) => {
        // Deleted between the listing and the stat (a run deleted meanwhile): it holds nothing.
        const info = await unlessMissing(stat(join(dir, name)), undefined);
        return info?.isFile() ? info.size : 0;
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

const fsLogSync: LogSync = {
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

/** A promise with its resolver, made again after each settling: who waits gets the next change. */
class Signal {
  private resolveNext: () => void = () => {};
  private next: Promise<void> = this.renew();
  private renew(): Promise<void> {
    this.next = new Promise<void>((resolve) => {
      this.resolveNext = resolve;
    });
    return this.next;
  }
  get promise(): Promise<void> {
    return this.next;
  }
  fire(): void {
    const resolve = this.resolveNext;
    this.renew();
    resolve();
  }
}

/** Text is joined into writes of about this many bytes. */
const WRITE_CHUNK_CHARS = 32 * 1024;

/**
 * Writes one run's log. `line()` never waits: lines queue in memory and one pump writes them through a
 * single write stream, in order, as few large writes (`backlogBytes` tells a producer how much waits,
 * so it can hold its source back). The file is only created with the first line written.
 *
 * The budget is decided line by line, as each line is given: against the environment folder as last
 * measured (by `measure()` before the first line, and again, in the background, whenever this run's
 * output has grown by `remeasureBytes`) plus this run's own bytes. The first line that does not fit
 * ends the log with one notice line; it and every later line are dropped, and `line()` says so, so the
 * job's output can stop at the same line. `close()` makes the file durable: one fsync at the end (not
 * per line), and one of each folder whose entries it added (the file's, and the parents of folders it
 * created). Followers read the file itself (`writtenBytes`, `written()`), never a copy kept here.
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
  /** Lines waiting for the pump, from `pendingHead` on (an index: shifting a long queue is quadratic). */
  private pending: string[] = [];
  private pendingHead = 0;
  private pendingChars = 0;
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
  /** A measurement in flight (started by `line()` once the run's output grew by `remeasureBytes`). */
  private measuring: Promise<void> | undefined;
  private closed = false;
  /** Set once close() has written and synced everything (or failed): the file will not grow again. */
  private finished = false;
  private failure: RunLogError | undefined;
  private linesKept = 0;
  private droppedLines = 0;
  private wasTruncated = false;
  /** Bytes the file holds: writes whose callback came. */
  private fileBytes = 0;
  /** Bytes handed to the write stream whose callback has not come yet. */
  private inWriteBytes = 0;
  private readonly progress = new Signal();

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

  /** A writer whose folder is measured: ready for `line()`. */
  static async open(
    path: string,
    budget: LogBudget,
    onTruncated?: (truncation: Truncation) => void,
    sync?: LogSync,
  ): Promise<RunLogWriter> {
    const writer = new RunLogWriter(path, budget, onTruncated, sync);
    await writer.measure();
    return writer;
  }

  /** Measures the other logs of the environment (before the first line; later ones happen by themselves). */
  async measure(): Promise<void> {
    const measuredAt = this.ownBytes;
    try {
      this.othersBytes = await folderBytes(this.dir, this.name);
    } catch (error) {
      // A folder that cannot be read cannot be written either: the log fails, the run goes on.
      this.fail(error);
    }
    this.measuredAt = measuredAt;
  }

  get truncated(): boolean {
    return this.wasTruncated;
  }

  /** Lines that reached the file (the notice line not counted). */
  get linesWritten(): number {
    return this.linesKept;
  }

  /** Lines dropped for the budget, or because the file could not be written. */
  get linesDropped(): number {
    return this.droppedLines;
  }

  /** Bytes this run's log holds (or will, once written). */
  get bytes(): number {
    return this.ownBytes;
  }

  /** Bytes accepted but not in the file yet: what a producer should let drain before it gives more. */
  get backlogBytes(): number {
    return this.pendingChars + this.inWriteBytes;
  }

  /**
   * Of `backlogBytes`, the lines still queued as they were given (about: UTF-16 units): strings the
   * caller may hold too (a job's messages); the rest is written text in flight, a copy of its own.
   */
  get queuedLineChars(): number {
    return this.pendingChars;
  }

  /** Bytes in the file so far, whole lines only (what a follower may read). */
  get writtenBytes(): number {
    return this.fileBytes;
  }

  /** True once the file is complete: closed, every line written (or the writer failed). */
  get complete(): boolean {
    return this.finished;
  }

  /** Resolves at the next change: more bytes in the file, the writer complete, or failed. */
  written(): Promise<void> {
    return this.progress.promise;
  }

  get error(): RunLogError | undefined {
    return this.failure;
  }

  /**
   * Queues a line (already redacted, without its line break). Returns false once the budget is reached:
   * that line and every later one are dropped (the notice is written once, with the first of them).
   */
  line(text: string): boolean {
    if (this.closed) throw new Error(`run log ${this.path} is closed`);
    if (this.measuredAt < 0)
      throw new Error(`run log ${this.path}: measure() its folder before the first line`);
    if (this.wasTruncated) {
      this.droppedLines += 1;
      return false;
    }
    if (this.failure) {
      this.droppedLines += 1;
      return true;
    }
    const bytes = Buffer.byteLength(text) + 1;
    if (this.othersBytes + this.ownBytes + bytes > this.budget.budgetBytes) {
      this.truncate();
      return false;
    }
    this.ownBytes += bytes;
    this.linesKept += 1;
    // The line itself, shared with the job's message: its line break is added when the chunk is joined.
    this.enqueue(text);
    if (this.ownBytes - this.measuredAt >= this.budget.remeasureBytes && this.measuring === undefined) {
      // In the background: lines given meanwhile are judged by the last measurement.
      this.measuring = this.measure().finally(() => {
        this.measuring = undefined;
      });
    }
    return true;
  }

  /** Resolves when every line queued so far is in the file (handed to the OS); rejects on a write error. */
  async flush(): Promise<void> {
    while (this.active || this.measuring) {
      if (this.measuring) await this.measuring;
      if (this.active) await this.pumping;
    }
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
      this.finished = true;
      this.progress.fire();
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

  /** Queues a line, without its line break. */
  private enqueue(text: string): void {
    this.pending.push(text);
    this.pendingChars += text.length + 1;
    if (!this.active) {
      this.active = true;
      this.pumping = this.pump();
    }
  }

  private async pump(): Promise<void> {
    // The loop's last check and clearing `active` happen in one synchronous step, so a line queued
    // at any moment either is seen by this loop or starts a new pump.
    try {
      while (this.pendingHead < this.pending.length && !this.failure) await this.write(this.takeChunk());
    } catch (error) {
      this.fail(error);
    } finally {
      this.active = false;
    }
  }

  /** Takes queued lines up to about WRITE_CHUNK_CHARS, as one string to write (each with its line break). */
  private takeChunk(): string {
    let end = this.pendingHead;
    let chars = 0;
    while (end < this.pending.length && chars < WRITE_CHUNK_CHARS) {
      chars += (this.pending[end] as string).length + 1;
      end += 1;
    }
    const chunk = `${this.pending.slice(this.pendingHead, end).join('\n')}\n`;
    if (end >= this.pending.length) {
      this.pending = [];
      this.pendingHead = 0;
    } else {
      this.pendingHead = end;
      // Let go of what was taken once it is most of the array.
      if (end > 4_096 && end * 2 > this.pending.length) {
        this.pending = this.pending.slice(end);
        this.pendingHead = 0;
      }
    }
    this.pendingChars -= chars;
    return chunk;
  }

  private truncate(): void {
    const usedBytes = this.othersBytes + this.ownBytes;
    const notice = budgetNotice(this.budget.budgetBytes);
    this.ownBytes += Buffer.byteLength(notice) + 1;
    this.droppedLines += 1;
    this.wasTruncated = true;
    this.enqueue(notice);
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
    const bytes = Buffer.byteLength(chunk);
    this.inWriteBytes += bytes;
    let ok = true;
    this.lastWrite = new Promise<void>((resolve) => {
      ok = stream.write(chunk, (error) => {
        this.inWriteBytes -= bytes;
        if (error) this.fail(error);
        else this.fileBytes += bytes;
        this.progress.fire();
        resolve();
      });
    });
    if (!ok && !this.failure) await firstEvent(stream, ['drain', 'error']);
  }

  private fail(error: unknown): void {
    if (this.failure) return;
    this.failure = error instanceof RunLogError ? error : new RunLogError(this.path, error);
    this.droppedLines += this.pending.length - this.pendingHead;
    this.pending = [];
    this.pendingHead = 0;
    this.pendingChars = 0;
    this.progress.fire();
  }
}
