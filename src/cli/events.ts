import type { Writable } from 'node:stream';
import type { EventStore, RecordedEvent } from '../store/types.js';
import { writeLine } from './output.js';

interface EventsOptions {
  stream?: string;
  from: number;
  follow: boolean;
  json: boolean;
}

const IDS = ['requestId', 'correlationId', 'causationId', 'userId'] as const;

/** One line of the audit trail: position, time, stream@revision, type, who/why, data. */
function formatEvent(event: RecordedEvent): string {
  const ids = IDS.filter((id) => event.metadata[id] !== undefined && event.metadata[id] !== null)
    .map((id) => `${id}=${String(event.metadata[id])}`)
    .join(' ');
  return [
    String(event.position).padStart(8),
    event.metadata.at,
    `${event.stream}@${event.revision}`,
    event.type,
    ...(ids ? [`[${ids}]`] : []),
    JSON.stringify(event.data),
  ].join('  ');
}

const eventLine = (event: RecordedEvent, json: boolean) =>
  json ? JSON.stringify(event) : formatEvent(event);

/** Prints the log (or one stream) from `from`; resolves at the end, or never with `follow`. */
export async function printEvents(store: EventStore, options: EventsOptions, out: Writable): Promise<void> {
  if (options.follow) {
    // A store subscription holds no libuv handle: without this timer the process ended as soon as the
    // catch-up was printed (exit 13, an unsettled top-level await) instead of following until SIGTERM.
    const keepAlive = setInterval(() => undefined, 2 ** 30);
    try {
      // Live lines arrive at the pace of appends; the terminal keeps up, so no backpressure is needed here.
      await new Promise<void>((resolve, reject) => {
        store.subscribe({ stream: options.stream, from: options.from }).subscribe({
          next: (event) => out.write(`${eventLine(event, options.json)}\n`),
          error: reject,
          complete: resolve,
        });
      });
    } finally {
      clearInterval(keepAlive);
    }
    return;
  }
  const events = options.stream ? store.readStream(options.stream) : store.readAll({ from: options.from });
  for await (const event of events) {
    if (event.position >= options.from) await writeLine(out, eventLine(event, options.json));
  }
}
