import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamDeletedError } from '../../src/store/errors.js';
import { openStore } from '../../src/store/open.js';
import type { EventStore, RecordedEvent } from '../../src/store/types.js';
import { postgresSchemas, postgresUnavailable } from '../store/postgres-helpers.js';
import { assertBuilt, runCli, tempDir } from './helpers.js';

/**
 * `chronicle migrate` over the real command: LevelDB -> PostgreSQL -> LevelDB, checked event by event
 * and by a checksum computed here, independently of the command's own.
 */
const unavailable = await postgresUnavailable();
const schemas = postgresSchemas('migrate');
afterAll(() => schemas.dropAll());
beforeAll(assertBuilt);

const content = (events: readonly RecordedEvent[]) =>
  events.map(({ stream, revision, type, data, metadata }) => ({ stream, revision, type, data, metadata }));

async function readAllOf(url: string): Promise<RecordedEvent[]> {
  const store = await openStore(url);
  try {
    const events: RecordedEvent[] = [];
    for await (const event of store.readAll()) events.push(event);
    return events;
  } finally {
    await store.close();
  }
}

const checksum = (events: readonly RecordedEvent[]) => {
  const hash = createHash('sha256');
  for (const e of events)
    hash.update(`${JSON.stringify([e.stream, e.revision, e.type, e.data, e.metadata])}\n`);
  return hash.digest('hex');
};

/** A log with several streams, metadata, a deleted stream (a hole in the positions) and 2,503 events (one deleted: a hole at position 2). */
async function fillSource(url: string): Promise<void> {
  const store: EventStore = await openStore(url);
  try {
    await store.append('editor-session-1', [
      { type: 'SessionStarted', data: { session_id: '1' }, metadata: { requestId: 'r-1', userId: 'ann' } },
    ]);
    await store.append('deploy-run-1', [{ type: 'RunStarted', data: { run_id: 1, secret: 'x' } }]);
    for (let i = 0; i < 50; i++)
      await store.append(
        `stack-job-${i % 4}`,
        Array.from({ length: 50 }, (_, k) => ({ type: 'JobOutput', data: { i, k, line: `ünï ${i}:${k}` } })),
      );
    await store.deleteStream('deploy-run-1');
    await store.append('editor-session-1', [{ type: 'SessionEnded', data: { reason: 'shutdown' } }]);
  } finally {
    await store.close();
  }
}

describe.skipIf(unavailable !== undefined)('chronicle migrate', () => {
  if (unavailable !== undefined) console.log(`skipped: chronicle migrate: ${unavailable}`);

  it('copies a LevelDB log to PostgreSQL and back: same events in the same order, same checksum', async () => {
    const dir = await tempDir();
    const level = `level:${join(dir, 'events')}`;
    await fillSource(level);
    const source = await readAllOf(level);
    expect(source).toHaveLength(2_503);

    const postgres = schemas.url();
    const toPg = await runCli(['migrate', '--from', level, '--to', postgres]);
    expect(toPg.code, toPg.stderr).toBe(0);
    expect(toPg.stdout).toContain(`migrated 2503 events of 6 streams from ${level}`);
    expect(toPg.stdout).toContain(`verified: 2503 events, sha256:${checksum(source)}`);
    // Progress went to stderr, ending at the whole log.
    expect(toPg.stderr).toMatch(/migrate: 2504\/2504 events \(100%\)/);
    const inPg = await readAllOf(postgres);
    expect(content(inPg)).toEqual(content(source));
    expect(inPg.map((e) => e.position)).toEqual(inPg.map((_, i) => i + 1));

    const back = `level:${join(dir, 'back')}`;
    const toLevel = await runCli(['migrate', '--from', postgres, '--to', back]);
    expect(toLevel.code, toLevel.stderr).toBe(0);
    expect(toLevel.stdout).toContain(`verified: 2503 events, sha256:${checksum(source)}`);
    expect(content(await readAllOf(back))).toEqual(content(source));

    // The deleted stream is deleted in the copies too.
    const copy = await openStore(back);
    try {
      await expect(copy.append('deploy-run-1', [{ type: 'Again', data: {} }])).rejects.toBeInstanceOf(
        StreamDeletedError,
      );
    } finally {
      await copy.close();
    }
  }, 60_000);

  it('refuses a target that is not empty, and the same store twice, touching neither', async () => {
    const dir = await tempDir();
    const level = `level:${join(dir, 'events')}`;
    await fillSource(level);
    const postgres = schemas.url();
    const first = await runCli(['migrate', '--from', level, '--to', postgres]);
    expect(first.code, first.stderr).toBe(0);

    const again = await runCli(['migrate', '--from', level, '--to', postgres]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      'is not empty (its log is at position 2503); migrate copies into an empty log only',
    );
    expect(await readAllOf(postgres)).toHaveLength(2_503);

    const same = await runCli(['migrate', '--from', level, '--to', level]);
    expect(same.code).toBe(1);
    expect(same.stderr).toContain('--from and --to name the same store');
  }, 60_000);

  it('answers usage errors with exit status 2', async () => {
    const missing = await runCli(['migrate', '--from', 'memory:']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--to <url>' not specified");
    const unknown = await runCli(['migrate', '--from', 'nope:x', '--to', 'memory:']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('unknown store URL "nope:x"');
  });
});
