import type { JobMessage } from '../../../streams/stacks.js';

/**
 * Server-sent event frames written straight into bytes: `id: <id>\ndata: <JSON>\n\n`, one per message
 * or log line. A stream of millions of lines is framed without a JavaScript string per line: a line's
 * text is copied into the frame as it is whenever JSON needs no escape in it (no quote, backslash or
 * control character: nearly every compose line), and goes through JSON.stringify otherwise. So framing
 * costs one buffer per batch, not several short-lived strings per line for the collector.
 */

const LF = 0x0a;
const LINE_PREFIX = '{"type":"line","line":"';
const LINE_SUFFIX = '"}\n\n';
/** Around a line's JSON string (quotes included) when it needed escapes. */
const ESCAPED_PREFIX = '{"type":"line","line":';
const ESCAPED_SUFFIX = '}\n\n';

/** Decimal digits of a whole number. */
function digits(n: number): number {
  let count = 1;
  for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) count++;
  return count;
}

/** Bytes of `id: <id>\ndata: ` for an id. */
const headBytes = (id: number) => 11 + digits(id);

/** Writes `id: <id>\ndata: ` at `at` (no string made for it); returns the bytes written. */
function writeHead(out: Buffer, at: number, id: number): number {
  out.write('id: ', at, 'latin1');
  const width = digits(id);
  let rest = id;
  for (let i = at + 4 + width - 1; i >= at + 4; i--) {
    out[i] = 0x30 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  out.write('\ndata: ', at + 4 + width, 'latin1');
  return 11 + width;
}

/** Job messages as frames, ids from `from` (the message indexes). */
export function messageFrames(from: number, messages: readonly JobMessage[]): Buffer {
  return indexedMessageFrames(from, messages).bytes;
}

/**
 * Whether JSON.stringify would write a line other than as it is: a quote, a backslash or a control
 * character (below U+0020) is escaped; a surrogate sends the text through JSON.stringify too (a lone one
 * is escaped there, where the UTF-8 encoder would replace it). And whether it holds anything beyond
 * ASCII (its UTF-8 is then longer than its UTF-16 length). RegExps: a scan in JavaScript, a character
 * at a time, was most of what framing a line cost.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const ESCAPED_TEXT = /["\\\u0000-\u001f\ud800-\udfff]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the range is all of ASCII, controls included
const BEYOND_ASCII = /[^\u0000-\u007f]/;
/** Anything but printable ASCII other than a quote or a backslash: nearly every line has none, one test. */
const NOT_PLAIN_ASCII = /[^\u0020\u0021\u0023-\u005b\u005d-\u007e]/;
const ID_BYTES = Buffer.from('id: ', 'latin1');
/** What follows a plain line's id: the data field up to the line's text. */
const LINE_HEAD_BYTES = Buffer.from(`\ndata: ${LINE_PREFIX}`, 'latin1');
const LINE_SUFFIX_BYTES = Buffer.from(LINE_SUFFIX, 'latin1');
/** How a message is framed: a plain ASCII line, a plain line beyond ASCII, or its JSON. */
const PLAIN_ASCII = 0;
const PLAIN_UTF8 = 1;
const AS_JSON = 2;

/**
 * `messageFrames`, and where each message's frame starts in them (`starts[i]`; `starts[n]` is the
 * length): the frames of any run of the messages are then a view of the same bytes, no copy.
 */
export function indexedMessageFrames(
  from: number,
  messages: readonly JobMessage[],
): { bytes: Buffer; starts: Uint32Array } {
  const n = messages.length;
  const kinds = new Uint8Array(n);
  // The JSON of the messages that are not plain lines (statuses, the result, lines with escapes).
  let texts: Map<number, string> | undefined;
  let size = 0;
  for (let i = 0; i < n; i++) {
    const message = messages[i] as JobMessage;
    const width = digits(from + i);
    const plain = message.type === 'line' && !NOT_PLAIN_ASCII.test(message.line);
    if (message.type === 'line' && (plain || !ESCAPED_TEXT.test(message.line))) {
      const ascii = plain || !BEYOND_ASCII.test(message.line);
      kinds[i] = ascii ? PLAIN_ASCII : PLAIN_UTF8;
      size +=
        ID_BYTES.length +
        width +
        LINE_HEAD_BYTES.length +
        (ascii ? message.line.length : Buffer.byteLength(message.line)) +
        LINE_SUFFIX_BYTES.length;
    } else {
      kinds[i] = AS_JSON;
      const text = JSON.stringify(message);
      texts ??= new Map();
      texts.set(i, text);
      size += headBytes(from + i) + Buffer.byteLength(text) + 2;
    }
  }
  const out = Buffer.allocUnsafe(size);
  const starts = new Uint32Array(n + 1);
  let at = 0;
  for (let i = 0; i < n; i++) {
    starts[i] = at;
    const kind = kinds[i];
    if (kind === AS_JSON) {
      at += writeHead(out, at, from + i);
      at += out.write(texts?.get(i) as string, at);
      out[at++] = LF;
      out[at++] = LF;
      continue;
    }
    // Constant bytes copied with `set`, the id's digits stored one by one: no string, no encoder call.
    out.set(ID_BYTES, at);
    at += ID_BYTES.length;
    const id = from + i;
    const width = digits(id);
    let rest = id;
    for (let d = at + width - 1; d >= at; d--) {
      out[d] = 0x30 + (rest % 10);
      rest = Math.floor(rest / 10);
    }
    at += width;
    out.set(LINE_HEAD_BYTES, at);
    at += LINE_HEAD_BYTES.length;
    const line = (messages[i] as { line: string }).line;
    at += kind === PLAIN_ASCII ? out.write(line, at, 'latin1') : out.write(line, at);
    out.set(LINE_SUFFIX_BYTES, at);
    at += LINE_SUFFIX_BYTES.length;
  }
  starts[n] = at;
  return { bytes: out, starts };
}

/**
 * The log lines in `bytes` (whole lines, each ending in a line break, but for a last line of a complete
 * log that has none) as `{type: 'line'}` frames, each with the byte offset right after it as its id:
 * `at` is the offset of `bytes` in the log file.
 */
export function logLineFrames(bytes: Buffer, at: number): Buffer {
  // First pass: the frames' size, and the JSON of the lines that need escapes.
  let size = 0;
  let escaped: Map<number, string> | undefined;
  for (let start = 0; start < bytes.length; ) {
    const lf = bytes.indexOf(LF, start);
    const end = lf === -1 ? bytes.length : lf;
    size += headBytes(at + (lf === -1 ? end : end + 1));
    if (needsEscape(bytes, start, end)) {
      const text = JSON.stringify(bytes.toString('utf8', start, end));
      escaped ??= new Map();
      escaped.set(start, text);
      size += ESCAPED_PREFIX.length + Buffer.byteLength(text) + ESCAPED_SUFFIX.length;
    } else size += LINE_PREFIX.length + (end - start) + LINE_SUFFIX.length;
    start = end + 1;
  }
  const out = Buffer.allocUnsafe(size);
  let o = 0;
  for (let start = 0; start < bytes.length; ) {
    const lf = bytes.indexOf(LF, start);
    const end = lf === -1 ? bytes.length : lf;
    o += writeHead(out, o, at + (lf === -1 ? end : end + 1));
    const text = escaped?.get(start);
    if (text === undefined) {
      o += out.write(LINE_PREFIX, o, 'latin1');
      o += bytes.copy(out, o, start, end);
      o += out.write(LINE_SUFFIX, o, 'latin1');
    } else {
      o += out.write(ESCAPED_PREFIX, o, 'latin1');
      o += out.write(text, o);
      o += out.write(ESCAPED_SUFFIX, o, 'latin1');
    }
    start = end + 1;
  }
  return out;
}

/** Whether bytes[start, end) hold a byte JSON must escape (UTF-8 sequences never hold one). */
function needsEscape(bytes: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const b = bytes[i] as number;
    if (b < 0x20 || b === 0x22 || b === 0x5c) return true;
  }
  return false;
}
