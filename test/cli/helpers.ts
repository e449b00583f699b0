import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../src/store/open.js';
import type { EventData, EventStore, RecordedEvent } from '../../src/store/types.js';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
/** The built command: `npm test` builds before it runs vitest. */
export const mainJs = join(repoRoot, 'dist', 'src', 'cli', 'main.js');

export function assertBuilt(): void {
  if (!existsSync(mainJs))
    throw new Error(`${mainJs} is missing: run \`npm run build\` (npm test does) first`);
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** An environment without CHRONICLE_DATA, so the tests do not depend on the caller's shell. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { CHRONICLE_DATA: _ignored, ...env } = process.env;
  return { ...env, ...extra };
}

/**
 * A PATH for a command started without `compose.command`: its `docker-compose` is the fake compose
 * (answering `version` as `version` says, a v1 by default) and it has no `docker`, so the compose
 * detection finds the same program on any machine. `scripts` adds or replaces programs
 * (shell script bodies); with `fake: false` there is no `docker-compose` either.
 */
export async function composePath(
  options: { version?: string; fake?: boolean; scripts?: Record<string, string> } = {},
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'chronicle-path-'));
  const fake = join(repoRoot, 'test', 'fixtures', 'fake-compose.mjs');
  const version = options.version ?? 'docker-compose version 1.29.2, build fake';
  const scripts: Record<string, string> = {
    // node by name (npm start runs it so), without the rest of node's folder (which may hold a docker).
    node: `exec '${process.execPath}' "$@"`,
    ...(options.fake === false
      ? {}
      : { 'docker-compose': `FAKE_COMPOSE_VERSION='${version}' exec '${process.execPath}' '${fake}' "$@"` }),
    ...options.scripts,
  };
  for (const [name, body] of Object.entries(scripts)) {
    await writeFile(join(dir, name), `#!/bin/sh\n${body}\n`);
    await chmod(join(dir, name), 0o755);
  }
  return dir;
}

export type CliChild = ChildProcessByStdio<null, Readable, Readable>;

export function startCli(args: readonly string[], options: CliOptions = {}): CliChild {
  return spawn(process.execPath, [mainJs, ...args], {
    cwd: options.cwd ?? repoRoot,
    env: options.env ?? cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface Watched {
  /** Everything the child printed so far. */
  stdout(): string;
  stderr(): string;
  /** How the child ended; rejects (after killing it) when it does not end within the timeout. */
  done: Promise<CliResult>;
}

/** `timeoutMs` is a net for a hung command, not a measure: a loaded machine stretches any run. */
export function watch(child: CliChild, timeoutMs = 60_000): Watched {
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const done = new Promise<CliResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`chronicle did not exit within ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { stdout: () => stdout, stderr: () => stderr, done };
}

/**
 * The port of the first line of the child's standard error that `pattern` matches (its group 1), as
 * soon as it is written; an exit before it rejects. The child is killed after 120 s without one: a net
 * for a hung start, not a measure (a start on a loaded machine has taken more than 20 s).
 */
export function listeningPort(
  child: CliChild,
  watched: Watched,
  pattern: RegExp,
  what: string,
): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no listening line within 120 s; stderr: ${watched.stderr()}`));
    }, 120_000);
    const check = () => {
      const m = pattern.exec(watched.stderr());
      if (m) {
        clearTimeout(timer);
        child.stderr.off('data', check);
        resolve(Number(m[1]));
      }
    };
    child.stderr.on('data', check);
    watched.done.then(
      (r) => {
        clearTimeout(timer);
        reject(new Error(`${what} exited (${r.code}) before listening; stderr: ${r.stderr}`));
      },
      (e: unknown) => reject(e),
    );
  });
}

export const ended = (child: CliChild, timeoutMs?: number) => watch(child, timeoutMs).done;

/** Polls `condition` until it holds; fails with `what` after the timeout. */
export async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return ended(startCli(args, options), options.timeoutMs);
}

export const lines = (text: string) => text.split('\n').filter((line) => line.length > 0);

export async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'chronicle-cli-'));
}

/** The store URL the command uses for `--data dir`. */
export const storeUrlOfData = (dataDir: string) => `level:${join(dataDir, 'events')}`;

/**
 * Writes to the level store of `dataDir` in this process and closes it again: LevelDB allows one
 * process at a time, and the command under test is another process.
 */
export async function withDataStore<T>(dataDir: string, work: (store: EventStore) => Promise<T>): Promise<T> {
  const store = await openStore(storeUrlOfData(dataDir));
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

export async function appendAll(
  dataDir: string,
  appends: ReadonlyArray<readonly [string, EventData[]]>,
): Promise<RecordedEvent[]> {
  return withDataStore(dataDir, async (store) => {
    for (const [stream, events] of appends) await store.append(stream, events);
    const recorded: RecordedEvent[] = [];
    for await (const event of store.readAll()) recorded.push(event);
    return recorded;
  });
}
