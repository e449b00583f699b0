/**
 * SIGINT/SIGTERM at any moment of a server's start (docs/operations.md#command-line: exit 0), black-box: the signal is sent
 * the moment the first listening line appears (many times over, since a race is what failed), and while
 * the store is being opened, long before any listener. Each run must end with exit status 0, never by
 * the signal; the store is released afterwards.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { assertBuilt, type CliResult, repoRoot, startCli, tempDir, watch, withDataStore } from './helpers.js';

vi.setConfig({ testTimeout: 240_000 });

beforeAll(() => assertBuilt());

const ROUNDS = 10;

type Command = 'editor' | 'stacks' | 'serve';

async function argsOf(command: Command, dataDir: string): Promise<string[]> {
  const config = join(dataDir, '..', 'config.json');
  await writeFile(
    config,
    JSON.stringify({
      users: [{ name: 'admin', token: 't-admin', admin: true }],
      compose: { command: [process.execPath, join(repoRoot, 'test', 'fixtures', 'fake-compose.mjs')] },
    }),
  );
  switch (command) {
    case 'editor':
      return ['editor', '--http', '0', '--data', dataDir];
    case 'stacks':
      return ['stacks', '--port', '0', '--data', dataDir, '--config', config];
    case 'serve':
      return ['serve', '--editor-port', '0', '--stacks-port', '0', '--data', dataDir, '--config', config];
  }
}

/** Starts the command and sends `signal` once `ready` says so (polled); resolves with how it ended. */
async function signalled(
  command: Command,
  signal: NodeJS.Signals,
  ready: (stderr: string, pid: number, dataDir: string) => boolean,
): Promise<{ result: CliResult; dataDir: string; sentBeforeListening: boolean }> {
  const dataDir = join(await tempDir(), 'data');
  const child = startCli(await argsOf(command, dataDir));
  const watched = watch(child, 120_000);
  let sentBeforeListening = false;
  const poll = setInterval(() => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    if (!ready(watched.stderr(), child.pid, dataDir)) return;
    clearInterval(poll);
    sentBeforeListening = !/listening on/.test(watched.stderr());
    child.kill(signal);
  }, 2);
  try {
    return { result: await watched.done, dataDir, sentBeforeListening };
  } finally {
    clearInterval(poll);
  }
}

const listening = (stderr: string) => /listening on http:\/\//.test(stderr);

/** Whether the process holds a file of its LevelDB store open: its start has got that far. */
function storeOpen(pid: number, dataDir: string): boolean {
  const events = join(dataDir, 'events');
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith(events);
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

const CASES: Array<[Command, NodeJS.Signals]> = [
  ['editor', 'SIGTERM'],
  ['stacks', 'SIGTERM'],
  ['serve', 'SIGINT'],
];

describe('a stop signal during start-up ends the server with exit 0, never by the signal', () => {
  it(`sent the moment the first listening line appears, ${ROUNDS} times each: editor SIGTERM, stacks SIGTERM, serve SIGINT`, async () => {
    const outcomes = await Promise.all(
      CASES.map(async ([command, signal]) => {
        const ends: string[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          const { result } = await signalled(command, signal, listening);
          ends.push(result.signal === null ? `exit ${result.code}` : `killed by ${result.signal}`);
          if (result.code !== 0) ends.push(`stderr: ${result.stderr}`);
        }
        return [`${command} ${signal}`, ends] as const;
      }),
    );
    for (const [what, ends] of outcomes) expect(ends, what).toEqual(Array(ROUNDS).fill('exit 0'));
  });

  for (const [command, signal] of CASES) {
    it(`${command}: ${signal} while the store is being opened (before any listener): exit 0, store released`, async () => {
      const { result, dataDir, sentBeforeListening } = await signalled(command, signal, (_stderr, pid, dir) =>
        storeOpen(pid, dir),
      );
      expect(sentBeforeListening, 'the signal was sent before the listening line').toBe(true);
      expect({ code: result.code, signal: result.signal }, result.stderr).toEqual({ code: 0, signal: null });
      // The store was closed on the way out: this process can open it.
      await withDataStore(dataDir, async () => undefined);
    });
  }
});
