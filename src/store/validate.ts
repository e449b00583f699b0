import { EventTooLargeError, InvalidEventError, InvalidStreamNameError } from './errors.js';
import type { EventData, ExpectedRevision } from './types.js';

const MAX_EVENT_BYTES = 4 * 1024 * 1024;
const MAX_STREAM_NAME_BYTES = 256;
const MAX_TYPE_LENGTH = 256;
// Control characters would corrupt the key layout (NUL separates a stream from its revision) and logs.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;
// A lone surrogate has no UTF-8 form: LevelDB keys would hold U+FFFD in its place, so two different
// names (e.g. "a\uD800" and "a\uDC00") would share one stream's keys and see each other's events.
const LONE_SURROGATE = /\p{Cs}/u;

/** Throws InvalidStreamNameError unless `stream` can name a stream. */
export function assertStreamName(stream: unknown): asserts stream is string {
  if (typeof stream !== 'string') throw new InvalidStreamNameError(stream, 'not a string');
  if (stream.length === 0) throw new InvalidStreamNameError(stream, 'empty');
  if (Buffer.byteLength(stream) > MAX_STREAM_NAME_BYTES) {
    throw new InvalidStreamNameError(stream, `longer than ${MAX_STREAM_NAME_BYTES} bytes`);
  }
  if (CONTROL.test(stream)) throw new InvalidStreamNameError(stream, 'contains a control character');
  if (LONE_SURROGATE.test(stream)) {
    throw new InvalidStreamNameError(stream, 'contains a lone surrogate (not valid Unicode text)');
  }
  if (stream.startsWith('$'))
    throw new InvalidStreamNameError(stream, 'names starting with "$" are reserved');
}

export function assertExpectedRevision(expected: unknown): asserts expected is ExpectedRevision {
  if (expected === 'any' || expected === 'no_stream' || expected === 'stream_exists') return;
  if (Number.isSafeInteger(expected) && (expected as number) >= 0) return;
  throw new InvalidEventError(
    `expectedRevision must be a revision (0 or more), "any", "no_stream" or "stream_exists", got ${JSON.stringify(expected)}`,
  );
}

export function assertEventType(type: unknown): asserts type is string {
  if (typeof type !== 'string' || type.length === 0) {
    throw new InvalidEventError(`event type must be a non-empty string, got ${JSON.stringify(type)}`);
  }
  if (type.length > MAX_TYPE_LENGTH || CONTROL.test(type)) {
    throw new InvalidEventError(
      `event type ${JSON.stringify(type.slice(0, 40))} is longer than ${MAX_TYPE_LENGTH} characters or has control characters`,
    );
  }
}

/**
 * Bodies already made, by event object, for events that carry their own time (so the body does not
 * depend on `at`): a writer that checks its events before appending them (the editor session) does not
 * pay for serializing them twice. Events are not changed once handed over for appending.
 */
const serialized = new WeakMap<EventData, string>();

/**
 * Data objects whose JSON text is already known, exactly as JSON.stringify would write it: made from that
 * text by JSON.parse where the text was written (a DXF parsed in a worker thread), they are appended
 * without being serialized again, and a writer that keeps what it appends as its stored JSON (the editor
 * session) may keep the object itself, a fresh parse shared with nobody.
 */
const knownJson = new WeakMap<object, string>();

/**
 * Records that `JSON.stringify(data)` is `json`. The caller vouches for it, and hands `data` over: it
 * is neither changed nor shared from then on.
 */
export function withKnownJson<T extends object>(data: T, json: string): T {
  knownJson.set(data, json);
  return data;
}

/** The JSON text recorded for `data` by withKnownJson, if any. */
export const knownJsonOf = (data: unknown): string | undefined =>
  data !== null && typeof data === 'object' ? knownJson.get(data) : undefined;

/**
 * Serializes one event's type, data and metadata, and checks the size. The stream and revision are
 * only known when the write is committed, so the stored value is finished by `storedValue`.
 * Serializing here, once, means the bytes checked are the bytes written.
 */
export function serializeEventBody(event: EventData, at: string): string {
  if (event === null || typeof event !== 'object') throw new InvalidEventError('an event must be an object');
  const known = event.metadata?.at !== undefined ? serialized.get(event) : undefined;
  if (known !== undefined) return known;
  assertEventType(event.type);
  let body: string | undefined;
  try {
    const metadata = { ...event.metadata, at: event.metadata?.at ?? at };
    const data = knownJsonOf(event.data);
    // The same text JSON.stringify writes for the whole, with the data's as it is known.
    body =
      data === undefined
        ? JSON.stringify({ t: event.type, d: event.data ?? null, m: metadata })
        : `{"t":${JSON.stringify(event.type)},"d":${data},"m":${JSON.stringify(metadata)}}`;
  } catch (error) {
    throw new InvalidEventError(
      `event "${event.type}" is not JSON-serializable: ${(error as Error).message}`,
    );
  }
  // A UTF-16 code unit is at most 3 bytes of UTF-8: a body that short cannot be too large, and is not
  // measured (measuring a transform step of 200 KB took a millisecond on a loaded machine).
  if (body.length * 3 > MAX_EVENT_BYTES) {
    const bytes = Buffer.byteLength(body);
    if (bytes > MAX_EVENT_BYTES) throw new EventTooLargeError(event.type, bytes, MAX_EVENT_BYTES);
  }
  if (event.metadata?.at !== undefined) serialized.set(event, body);
  return body;
}

/** The stored JSON value: `{"s":stream,"r":revision,"t":..,"d":..,"m":..}` without re-serializing the body. */
export const storedValue = (streamJson: string, revision: number, body: string) =>
  `{"s":${streamJson},"r":${revision},${body.slice(1)}`;
