import { messageCountOf } from '../../../projections/jobs.js';
import { jobStream } from '../../../streams/stacks.js';
import type { EventStore } from '../../store/types.js';
import { JobChunk } from './delivery.js';
import { isResultEvent, type JobReader, READ_PAGE_EVENTS } from './events.js';

/**
 * Stored job events as their subscribers read them, shared: a deploy's clients catching up over the same
 * events (they connect together, or all fall behind a fast deploy) read each page of the store once,
 * open each event once, and get the same chunk objects (framed once by the SSE route). Bounded in bytes;
 * most recent last. Stored events never change, so an entry never goes stale.
 */

/** One stored event of a job: where its messages start, how many, and (when opened) their chunk. */
interface StoredEvent {
  revision: number;
  position: number;
  /** Index of its first message. */
  index: number;
  count: number;
  /** Its messages; undefined when it was skipped unopened (all before its reader's resume point). */
  chunk: JobChunk | undefined;
}

/** Where a page starts (`revision`, its first message `index`), and what to open of it (see `load`). */
interface PageAt {
  jobId: string;
  revision: number;
  index: number;
  reader: JobReader;
  openFrom: number;
}

/** A hundred stored events of a deploy or so: what its clients spread over while they catch up. */
const DEFAULT_BYTES = 2 * 1024 * 1024;

const keyOf = (jobId: string, revision: number) => `${jobId}@${revision}`;
const sizeOf = (entry: StoredEvent) => 64 + (entry.chunk?.size ?? 0);

export class JobPages {
  private readonly entries = new Map<string, StoredEvent>();
  private bytes = 0;
  /** Pages being read, by the key of their first event: who asks meanwhile waits for the same read. */
  private readonly reading = new Map<string, { openFrom: number; events: Promise<StoredEvent[]> }>();

  constructor(
    private readonly store: EventStore,
    private readonly maxBytes = DEFAULT_BYTES,
  ) {}

  /** The stored event at `revision` of the job, if it was read lately. */
  event(jobId: string, revision: number): StoredEvent | undefined {
    return this.entries.get(keyOf(jobId, revision));
  }

  /**
   * The page of the job's events from `revision` (whose first message has index `index`), read and kept,
   * those holding messages from `openFrom` on (and the result) opened with `reader`; empty when there is
   * no event there. A read of the same page under way is shared when it opens what this one needs.
   * Throws what the store throws (StreamDeletedError for a deleted job).
   */
  load(at: PageAt): Promise<StoredEvent[]> {
    const key = keyOf(at.jobId, at.revision);
    const under = this.reading.get(key);
    if (under !== undefined && under.openFrom <= at.openFrom) return under.events;
    const events = this.read(at);
    const reading = { openFrom: at.openFrom, events };
    this.reading.set(key, reading);
    const forget = () => {
      if (this.reading.get(key) === reading) this.reading.delete(key);
    };
    events.then(forget, forget);
    return events;
  }

  private async read({ jobId, revision, index, reader, openFrom }: PageAt): Promise<StoredEvent[]> {
    const stream = jobStream(jobId);
    await reader.prime(this.store, stream);
    let at = index;
    const page: StoredEvent[] = [];
    for await (const event of this.store.readStream(stream, { from: revision, maxCount: READ_PAGE_EVENTS })) {
      const count = messageCountOf(event);
      const open = count > 0 && (at + count > openFrom || isResultEvent(event));
      const entry: StoredEvent = {
        revision: event.revision,
        position: event.position,
        index: at,
        count,
        chunk: open ? new JobChunk(at, await reader.messages(event)) : undefined,
      };
      page.push(entry);
      this.keep(keyOf(jobId, event.revision), entry);
      at += count;
    }
    return page;
  }

  private keep(key: string, entry: StoredEvent): void {
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.bytes -= sizeOf(old);
    }
    this.entries.set(key, entry);
    this.bytes += sizeOf(entry);
    for (const [oldKey, oldest] of this.entries) {
      if (this.bytes <= this.maxBytes || oldest === entry) break;
      this.entries.delete(oldKey);
      this.bytes -= sizeOf(oldest);
    }
  }
}
