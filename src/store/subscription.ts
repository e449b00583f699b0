import { Observable } from 'rxjs';
import { SubscriberTooSlowError } from './errors.js';
import type { RecordedEvent, SubscribeOptions } from './types.js';

const DEFAULT_SUBSCRIBER_BUFFER = 65_536;
/** Live events handed to a subscriber before it yields to the event loop, so appends keep flowing. */
const DELIVERY_CHUNK = 1_024;

/** What an adapter gives the subscription machinery: its committed head, ranged reads and a live feed. */
export interface LiveLog {
  /** Position of the last committed, published event; read synchronously. */
  head(): number;
  /** Events with from <= position <= to, in order (of one stream when `stream` is set). */
  readRange(stream: string | undefined, from: number, to: number): AsyncIterable<RecordedEvent>;
  /** Called synchronously with each committed batch, in commit order, after `head()` has moved. */
  listen(listener: (events: readonly RecordedEvent[]) => void): () => void;
  /** Called when the store closes; subscriptions complete. */
  onClose(listener: () => void): () => void;
}

/**
 * Catch-up then live, with no gap and no duplicate at the switch: catch-up reads up to a head taken
 * before the read; it attaches the live listener in the same synchronous step in which it sees that no
 * commit happened since that head. Live events wait in a bounded per-subscriber queue drained
 * asynchronously, so a slow subscriber never delays an append or another subscriber.
 */
export function subscribeToLog(log: LiveLog, options: SubscribeOptions = {}): Observable<RecordedEvent> {
  const { stream } = options;
  const bufferSize = options.bufferSize ?? DEFAULT_SUBSCRIBER_BUFFER;
  return new Observable<RecordedEvent>((subscriber) => {
    let next =
      options.from === 'end'
        ? log.head() + 1
        : Math.max(1, options.from === 'start' ? 1 : (options.from ?? 1));
    let lastDelivered = next - 1;
    let stopListening: (() => void) | undefined;
    // An array with a read index: shift() would make draining a long queue quadratic.
    let queue: RecordedEvent[] = [];
    let readIndex = 0;
    let draining = false;
    let closed = false;

    const stopOnClose = log.onClose(() => subscriber.complete());

    const deliver = (event: RecordedEvent) => {
      lastDelivered = event.position;
      subscriber.next(event);
    };

    const drain = () => {
      draining = false;
      const stop = Math.min(queue.length, readIndex + DELIVERY_CHUNK);
      while (readIndex < stop && !closed) deliver(queue[readIndex++] as RecordedEvent);
      if (readIndex < queue.length) {
        scheduleDrain();
      } else {
        queue = [];
        readIndex = 0;
      }
    };
    const scheduleDrain = () => {
      if (draining) return;
      draining = true;
      setImmediate(drain);
    };

    const onCommit = (events: readonly RecordedEvent[]) => {
      for (const event of events) {
        if (event.position < next || (stream !== undefined && event.stream !== stream)) continue;
        next = event.position + 1;
        queue.push(event);
      }
      if (queue.length - readIndex > bufferSize) {
        queue = [];
        readIndex = 0;
        subscriber.error(new SubscriberTooSlowError(bufferSize, lastDelivered));
        return;
      }
      if (queue.length > readIndex) scheduleDrain();
    };

    const catchUp = async () => {
      for (;;) {
        // Unsubscribed during catch-up (e.g. take(n) ending on the log's last event, or before a read
        // of a stream with no events yielded anything): attaching the live listener now would leak it
        // for good, and its drain would reschedule itself forever because `closed` stops delivery.
        if (closed) return;
        const committed = log.head();
        if (next > committed) {
          // Nothing committed that we have not read: from here on the live feed has everything.
          stopListening = log.listen(onCommit);
          return;
        }
        for await (const event of log.readRange(stream, next, committed)) {
          if (closed) return;
          deliver(event);
        }
        next = committed + 1;
      }
    };
    catchUp().catch((error: unknown) => subscriber.error(error));

    return () => {
      closed = true;
      stopOnClose();
      stopListening?.();
      queue = [];
    };
  });
}
