import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Observable } from 'rxjs';
import { expect } from 'vitest';
import type { EventStore, ReadAllOptions, ReadStreamOptions, RecordedEvent } from '../../src/store/index.js';

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = resolve(here, '../..');
export const fixture = (name: string) => join(here, 'fixtures', name);

/** Temporary directories made by one test file, removed together at its end. */
export function tempDirs(prefix = 'chronicle-store-') {
  const made: string[] = [];
  return {
    async make(): Promise<string> {
      const dir = await mkdtemp(join(tmpdir(), prefix));
      made.push(dir);
      return dir;
    },
    async removeAll(): Promise<void> {
      await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
    },
  };
}

export async function toArray<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

export const readAll = (store: EventStore, options?: ReadAllOptions) => toArray(store.readAll(options));
export const readStream = (store: EventStore, stream: string, options?: ReadStreamOptions) =>
  toArray(store.readStream(stream, options));

export const positions = (events: readonly RecordedEvent[]) => events.map((event) => event.position);
export const revisions = (events: readonly RecordedEvent[]) => events.map((event) => event.revision);

/** [from, from + 1, ..., to]; empty when to < from. */
export const range = (from: number, to: number) =>
  Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

type ErrorClass<E> = abstract new (...args: never[]) => E;

/**
 * Runs `action` (a promise, or a function that may throw synchronously or return a promise) and returns
 * what it failed with, after checking it is an instance of `type`. Fails when it succeeds.
 */
export async function caught<E>(action: Promise<unknown> | (() => unknown), type: ErrorClass<E>): Promise<E> {
  let failed = false;
  let error: unknown;
  try {
    await (typeof action === 'function' ? action() : action);
  } catch (e) {
    failed = true;
    error = e;
  }
  expect(failed, `expected a ${type.name}, but the call succeeded`).toBe(true);
  expect(error).toBeInstanceOf(type);
  return error as E;
}

export type Outcome = { kind: 'complete' } | { kind: 'count' } | { kind: 'error'; error: unknown };

export interface Collected<T> {
  /** Values received so far, in order. */
  readonly values: T[];
  /**
   * Settles when the source completes or errors, or (then unsubscribing) when `count` values arrived.
   * Rejects when none of that happens within `timeoutMs`.
   */
  readonly outcome: Promise<Outcome>;
  stop(): void;
}

/** Subscribes to `source` and records what it delivers. */
export function collect<T>(
  source: Observable<T>,
  options: { count?: number; timeoutMs?: number; onValue?: (value: T) => void } = {},
): Collected<T> {
  const values: T[] = [];
  const timeoutMs = options.timeoutMs ?? 10_000;
  let settle: (outcome: Outcome) => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const outcome = new Promise<Outcome>((resolvePromise, rejectPromise) => {
    settle = resolvePromise;
    fail = rejectPromise;
  });
  const timer = setTimeout(() => {
    subscription.unsubscribe();
    fail(new Error(`observable did not settle within ${timeoutMs} ms; ${values.length} values received`));
  }, timeoutMs);
  const finish = (result: Outcome) => {
    clearTimeout(timer);
    settle(result);
  };
  const subscription = source.subscribe({
    next: (value) => {
      values.push(value);
      options.onValue?.(value);
      if (options.count !== undefined && values.length >= options.count) {
        // Deferred: unsubscribing from inside next() while the Subscription is being built is not allowed.
        queueMicrotask(() => subscription.unsubscribe());
        finish({ kind: 'count' });
      }
    },
    error: (error: unknown) => finish({ kind: 'error', error }),
    complete: () => finish({ kind: 'complete' }),
  });
  return {
    values,
    outcome,
    stop: () => {
      clearTimeout(timer);
      subscription.unsubscribe();
    },
  };
}

export const sleep = (ms: number) => new Promise<void>((resolvePromise) => setTimeout(resolvePromise, ms));
export const nextTurn = () => new Promise<void>((resolvePromise) => setImmediate(resolvePromise));

/** Polls `condition` until it holds; fails with `what` after `timeoutMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(2);
  }
}

/** Blocks the event loop, as a subscriber doing slow synchronous work would. */
export function busyWait(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spinning on purpose
  }
}

/**
 * Child processes import the compiled store from dist/. Fails loudly when dist/src/store is missing or
 * older than the sources, so the process tests never run against stale code.
 */
export async function assertDistFresh(): Promise<void> {
  const sources = [
    ...(await readdir(join(repoRoot, 'src/store')))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => `src/store/${f}`),
    'streams/system.ts',
  ];
  for (const source of sources) {
    const built = join(repoRoot, 'dist', source.replace(/\.ts$/, '.js'));
    if (!existsSync(built) || statSync(built).mtimeMs < statSync(join(repoRoot, source)).mtimeMs) {
      throw new Error(
        `${built} is missing or older than ${source}: build first (npx tsc -p tsconfig.build.json; npm test does)`,
      );
    }
  }
}

export interface NodeChild {
  readonly process: ChildProcess;
  /** Complete stdout lines seen so far. */
  readonly lines: string[];
  stderr(): string;
  /** Resolves with the exit code (or the signal's name) once the process is gone. */
  readonly exited: Promise<number | string>;
}

/** Starts `node <script> ...args` with its stdout split into lines as they arrive. */
export function startNode(script: string, args: readonly string[]): NodeChild {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    // The last part is an unfinished line (a kill can cut a line in half): kept until its newline comes.
    partial = parts.pop() ?? '';
    lines.push(...parts);
  });
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | string>((resolvePromise) => {
    child.on('close', (code, signal) => resolvePromise(code ?? signal ?? 'unknown'));
  });
  return { process: child, lines, stderr: () => stderr, exited };
}
