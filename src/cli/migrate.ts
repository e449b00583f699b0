import { createHash } from 'node:crypto';
import { openStore } from '../store/open.js';
import type { EventStore, RecordedEvent } from '../store/types.js';
import { progressOn } from './progress.js';

/**
 * Events per importEvents call: one transaction (PostgreSQL) or batch (LevelDB) each; on KurrentDB as
 * few multi-stream appends as keep the order (see kurrentdb-store.ts).
 */
const BATCH = 1_000;

class MigrateError extends Error {}

/**
 * A running digest of a log's content in order: stream, revision, type, data and metadata of each
 * event, not its position (a copy closes the holes deleted streams left).
 */
class LogDigest {
  private readonly hash = createHash('sha256');
  count = 0;
  readonly streams = new Set<string>();
  add(event: RecordedEvent): void {
    this.hash.update(JSON.stringify([event.stream, event.revision, event.type, event.data, event.metadata]));
    this.hash.update('\n');
    this.count += 1;
    this.streams.add(event.stream);
  }
  hex(): string {
    return this.hash.copy().digest('hex');
  }
}

async function digestOf(store: EventStore): Promise<LogDigest> {
  const digest = new LogDigest();
  for await (const event of store.readAll()) digest.add(event);
  return digest;
}

/**
 * `chronicle migrate --from URL --to URL`: copies the whole log, in order, into an empty log of any
 * adapter, then reads the copy back and checks its count and checksum against the source's. Snapshots
 * are not copied: read models rebuild from the log on the target.
 */
export async function migrate(
  fromUrl: string,
  toUrl: string,
  out: NodeJS.WritableStream,
  err: NodeJS.WriteStream,
): Promise<void> {
  if (fromUrl === toUrl) throw new MigrateError('--from and --to name the same store');
  const started = performance.now();
  const source = await openStore(fromUrl);
  try {
    const target = await openStore(toUrl);
    try {
      const occupied = await target.headPosition();
      if (occupied > 0)
        throw new MigrateError(
          `the target ${target.location} is not empty (its log is at position ${occupied}); migrate copies into an empty log only`,
        );
      const total = await source.headPosition();
      const progress = progressOn(err, 'migrate');
      progress.start(total);
      const digest = new LogDigest();
      let batch: RecordedEvent[] = [];
      try {
        for await (const event of source.readAll()) {
          digest.add(event);
          batch.push(event);
          if (batch.length === BATCH) {
            await target.importEvents(batch);
            batch = [];
            progress.update(event.position);
          }
        }
        await target.importEvents(batch);
        progress.update(total);
      } catch (error) {
        const copied = await target.headPosition().catch(() => undefined);
        throw new MigrateError(
          `the copy stopped: ${(error as Error).message}; the target ${target.location} holds a partial copy` +
            `${copied === undefined ? '' : ` (${copied} events)`}: remove it before trying again`,
        );
      } finally {
        progress.stop();
      }
      const copy = await digestOf(target);
      const seconds = (performance.now() - started) / 1000;
      if (copy.count !== digest.count || copy.hex() !== digest.hex())
        throw new MigrateError(
          `the copy does not match: source ${digest.count} events sha256:${digest.hex()}, target ${copy.count} events sha256:${copy.hex()}`,
        );
      out.write(
        `migrated ${digest.count} events of ${digest.streams.size} streams from ${source.location} to ${target.location} in ${seconds.toFixed(2)} s\n` +
          `verified: ${copy.count} events, sha256:${copy.hex()}\n`,
      );
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}
