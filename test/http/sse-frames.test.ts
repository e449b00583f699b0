import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventFrame } from '../../src/http/sse/event-stream.js';
import { indexedMessageFrames, logLineFrames, messageFrames } from '../../src/http/sse/frames.js';
import type { JobMessage } from '../../streams/stacks.js';

/** Any text a line may hold: quotes, backslashes, control characters, any code point. */
const lineText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.string({ unit: fc.constantFrom('a', '"', '\\', '\t', '\u0001', 'é', '€', '😀', ' '), maxLength: 30 }),
  // Lone surrogates too (JSON.stringify escapes them).
  fc.string({ unit: fc.constantFrom('a', '\ud800', '\udfff', '😀'), maxLength: 10 }),
);

const message: fc.Arbitrary<JobMessage> = fc.oneof(
  lineText.map((line) => ({ type: 'line' as const, line })),
  lineText.map((status) => ({ type: 'status' as const, status })),
  fc.record({
    type: fc.constant('result' as const),
    success: fc.boolean(),
    output: fc.array(lineText, { maxLength: 3 }),
  }),
);

describe('SSE frames in bytes', () => {
  it('job messages frame as eventFrame(JSON.stringify(message), index) does', () => {
    fc.assert(
      fc.property(fc.nat(1_000_000), fc.array(message, { maxLength: 20 }), (from, messages) => {
        const expected = messages.map((m, i) => eventFrame(JSON.stringify(m), from + i)).join('');
        expect(messageFrames(from, messages).toString('utf8')).toBe(expected);
      }),
    );
  });

  it('the frames of any run of messages are the bytes between their starts', () => {
    fc.assert(
      fc.property(
        fc.nat(1_000_000),
        fc.array(message, { minLength: 1, maxLength: 20 }),
        fc.nat(),
        fc.nat(),
        (from, messages, a, b) => {
          const { bytes, starts } = indexedMessageFrames(from, messages);
          expect(starts).toHaveLength(messages.length + 1);
          expect(starts[messages.length]).toBe(bytes.length);
          const first = a % messages.length;
          const end = first + 1 + (b % (messages.length - first));
          // What a subscriber resuming inside a chunk is sent: a view of the whole's frames.
          expect(bytes.subarray(starts[first], starts[end]).toString('utf8')).toBe(
            messageFrames(from + first, messages.slice(first, end)).toString('utf8'),
          );
        },
      ),
    );
  });

  it('log lines frame as line events whose id is the byte offset after each line', () => {
    // Lines of a log never hold a line break (the writer splits on them), and are UTF-8 in the file.
    const logLine = lineText.map((text) => Buffer.from(text.replaceAll('\n', ' ')).toString('utf8'));
    fc.assert(
      fc.property(
        fc.nat(1_000_000),
        fc.array(logLine, { maxLength: 20 }),
        fc.boolean(),
        (at, lines, cutGiven) => {
          // (An empty last line without its break is no line at all.)
          const cut = cutGiven && lines.length > 0 && lines.at(-1) !== '';
          const text = lines.map((line) => `${line}\n`).join('');
          // A complete log's last line may lack its line break.
          const bytes = Buffer.from(cut ? text.slice(0, -1) : text);
          let offset = at;
          const expected = lines
            .map((line, i) => {
              const last = i === lines.length - 1 && cut;
              offset += Buffer.byteLength(line) + (last ? 0 : 1);
              return eventFrame(JSON.stringify({ type: 'line', line }), offset);
            })
            .join('');
          expect(logLineFrames(bytes, at).toString('utf8')).toBe(expected);
        },
      ),
    );
  });
});
