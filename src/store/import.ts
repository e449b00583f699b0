import { STREAM_DELETED, type StreamDeletedData, SYSTEM_STREAM } from '../../streams/system.js';
import { InvalidEventError } from './errors.js';
import type { RecordedEvent } from './types.js';
import { assertEventType, assertStreamName, storedValue } from './validate.js';

/** A stream as an import leaves it: its last revision, and its tombstone when a StreamDeleted said so. */
interface ImportedHead {
  revision: number;
  deleted: boolean;
  deletedAt?: string;
}

/**
 * Checks a batch of imported events against the streams as the target has them (`headOf`) and returns
 * every touched stream's head after the batch. Each event must be the next revision of its stream (a
 * log is copied whole and in order), and a stream that is deleted takes no more events. Pure but for
 * `headOf`, shared by the adapters so they refuse the same things.
 */
export async function planImport(
  events: readonly RecordedEvent[],
  headOf: (stream: string) => Promise<{ revision: number; deleted: boolean }>,
): Promise<Map<string, ImportedHead>> {
  const heads = new Map<string, ImportedHead>();
  const head = async (stream: string) => {
    let known = heads.get(stream);
    if (known === undefined) {
      known = { ...(await headOf(stream)) };
      heads.set(stream, known);
    }
    return known;
  };
  for (const event of events) {
    if (event.stream !== SYSTEM_STREAM) assertStreamName(event.stream);
    assertEventType(event.type);
    const stream = await head(event.stream);
    if (stream.deleted) throw new InvalidEventError(`import: stream "${event.stream}" is deleted`);
    if (event.revision !== stream.revision + 1)
      throw new InvalidEventError(
        `import: "${event.stream}"@${event.revision} does not follow its last revision ${stream.revision}; a log is imported whole and in order`,
      );
    stream.revision = event.revision;
    if (event.stream === SYSTEM_STREAM && event.type === STREAM_DELETED) {
      const data = event.data as StreamDeletedData;
      const gone = await head(data.stream);
      gone.deleted = true;
      gone.revision = data.lastRevision;
      gone.deletedAt = event.metadata.at;
    }
  }
  return heads;
}

/** The stored value of an imported event: its own type, data and metadata (time included), unchanged. */
export const importedValue = (event: RecordedEvent) =>
  storedValue(
    JSON.stringify(event.stream),
    event.revision,
    JSON.stringify({ t: event.type, d: event.data ?? null, m: event.metadata }),
  );
