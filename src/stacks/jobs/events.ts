import { messagesOf, type OpenText } from '../../../projections/jobs.js';
import {
  type JobMessage,
  jobOutputScope,
  type KeyScope,
  type NewStacksEvent,
  type StacksEventMap,
  stacksEvent,
} from '../../../streams/stacks.js';
import type { EventStore, RecordedEvent } from '../../store/types.js';
import { withKnownJson } from '../../store/validate.js';
import type { OutputKeys, Sealer } from '../output/keys.js';

/**
 * A job's messages as events of its stream `stack-job-<id>` and back: written in batches, sealed with
 * the job's key (docs/security.md#deleted-runs-crypto-shredding), read back a few events at a time.
 */

/** Characters of lines per JobOutput event: far below the store's 4 MiB event limit even when escaped. */
const MAX_OUTPUT_EVENT_CHARS = 32 * 1024;

/**
 * Events read from the store per request: a job's events are up to MAX_OUTPUT_EVENT_CHARS each, so a
 * reader holds a few MiB at most, however long the job's stream (a store's own read-ahead is counted
 * in events, which can be a thousand of them).
 */
export const READ_PAGE_EVENTS = 8;

/** Whether a job event holds the job's result (JobFinished, JobFinishedSealed). */
export const isResultEvent = (event: RecordedEvent): boolean =>
  event.type === 'JobFinished' || event.type === 'JobFinishedSealed';

/** The events of a stream from revision `from` on, read READ_PAGE_EVENTS at a time. */
export async function* readPaged(store: EventStore, stream: string, from = 0): AsyncGenerator<RecordedEvent> {
  let next = from;
  for (;;) {
    let read = 0;
    for await (const event of store.readStream(stream, { from: next, maxCount: READ_PAGE_EVENTS })) {
      read += 1;
      next = event.revision + 1;
      yield event;
    }
    if (read < READ_PAGE_EVENTS) return;
  }
}

/**
 * A JobOutputSealed's data, with its JSON text handed to the store (withKnownJson): a sealed text is
 * base64, which JSON writes as it is, so the store need not scan the 40 KB of each event again for
 * characters to escape (that scan was 3% of a fast deploy's server CPU).
 */
export function sealedOutput(
  jobId: string,
  count: number,
  sealed: string,
): StacksEventMap['JobOutputSealed'] {
  const json = `{"job_id":${JSON.stringify(jobId)},"count":${count},"sealed":"${sealed}"}`;
  return withKnownJson({ job_id: jobId, count, sealed }, json);
}

/**
 * Consecutive lines become one JobOutput (bounded in lines and size); each status and the result its own
 * event. With a sealer (every job since sealing) the `…Sealed` events, their texts sealed; without one
 * (a job of an older log being closed) the clear-text ones.
 */
export function toEvents(
  jobId: string,
  messages: readonly JobMessage[],
  sealer: Sealer | undefined,
): NewStacksEvent[] {
  const events: NewStacksEvent[] = [];
  let lines: string[] = [];
  let chars = 0;
  const flushLines = () => {
    if (lines.length > 0)
      events.push(
        sealer
          ? stacksEvent(
              'JobOutputSealed',
              sealedOutput(jobId, lines.length, sealer.seal(JSON.stringify(lines))),
            )
          : stacksEvent('JobOutput', { job_id: jobId, lines }),
      );
    lines = [];
    chars = 0;
  };
  for (const message of messages) {
    if (message.type === 'line') {
      if (lines.length > 0 && chars + message.line.length > MAX_OUTPUT_EVENT_CHARS) flushLines();
      lines.push(message.line);
      chars += message.line.length;
      continue;
    }
    flushLines();
    if (message.type === 'status')
      events.push(
        sealer
          ? stacksEvent('JobStatusSealed', { job_id: jobId, sealed: sealer.seal(message.status) })
          : stacksEvent('JobStatusReported', { job_id: jobId, status: message.status }),
      );
    else if (sealer)
      events.push(
        stacksEvent('JobFinishedSealed', {
          job_id: jobId,
          success: message.success,
          ...(message.exitCode !== undefined ? { exitCode: message.exitCode } : {}),
          sealed: sealer.seal(
            JSON.stringify({
              ...(message.error !== undefined ? { error: message.error } : {}),
              output: message.output,
            }),
          ),
        }),
      );
    else
      events.push(
        stacksEvent('JobFinished', {
          job_id: jobId,
          success: message.success,
          ...(message.error !== undefined ? { error: message.error } : {}),
          ...(message.exitCode !== undefined ? { exitCode: message.exitCode } : {}),
          output: message.output,
        }),
      );
  }
  flushLines();
  return events;
}

/**
 * Reads a job's stored events as messages, opening the sealed ones: its first event, JobStarted, names
 * the key's scope (the job's run, or the job), whose key is then read once.
 */
export class JobReader {
  private open: OpenText | undefined;
  /** The scope of the job's key, once JobStarted was read. */
  scope: KeyScope | undefined;
  constructor(private readonly keys: OutputKeys) {}

  async messages(event: RecordedEvent): Promise<JobMessage[]> {
    if (event.type === 'JobStarted') {
      const started = event.data as StacksEventMap['JobStarted'];
      this.scope = jobOutputScope(started.job_id, started.run_id);
      this.open = (await this.keys.opener(this.scope)).open;
    }
    return messagesOf(event, this.open);
  }

  /** Reads the job's JobStarted (its first event) unless it was read: the key is known from then on. */
  async prime(store: EventStore, stream: string): Promise<void> {
    if (this.scope !== undefined) return;
    for await (const event of store.readStream(stream, { from: 0, maxCount: 1 })) await this.messages(event);
  }

  /** An event after JobStarted was read (the store's live feed of a job). */
  later(event: RecordedEvent): JobMessage[] {
    return messagesOf(event, this.open);
  }
}
