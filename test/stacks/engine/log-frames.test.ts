import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitTimestamp, timeKey } from '../../../src/stacks/engine/container-logs.js';
import { FrameDemuxer } from '../../../src/stacks/engine/log-frames.js';

/** A frame as the engine writes it: stream byte, three zero bytes, big-endian length, payload. */
const frame = (stream: 1 | 2, text: string): Buffer => {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
};

describe('FrameDemuxer', () => {
  it('frames cut anywhere across chunks come out whole, in order, with their stream', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom<1 | 2>(1, 2), fc.string({ maxLength: 300 })), { maxLength: 20 }),
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 50 }),
        (frames, cuts) => {
          const bytes = Buffer.concat(frames.map(([s, t]) => frame(s, t)));
          const demuxer = new FrameDemuxer();
          const out: Array<[string, string]> = [];
          let at = 0;
          for (let i = 0; at < bytes.length; i++) {
            const size = cuts[i % cuts.length] ?? 1;
            for (const f of demuxer.push(bytes.subarray(at, at + size)))
              out.push([f.stream, f.payload.toString()]);
            at += size;
          }
          expect(out).toEqual(frames.map(([s, t]) => [s === 2 ? 'stderr' : 'stdout', t]));
          expect(demuxer.held).toBe(0);
        },
      ),
    );
  });

  it('a long frame in many small chunks waits until it is whole', () => {
    const demuxer = new FrameDemuxer();
    const long = frame(2, 'x'.repeat(100_000));
    const seen = [];
    for (let at = 0; at < long.length; at += 1000) seen.push(...demuxer.push(long.subarray(at, at + 1000)));
    expect(seen.map((f) => [f.stream, f.payload.length])).toEqual([['stderr', 100_000]]);
  });
});

describe('log times', () => {
  it('sort as they run, whatever zeros the engine trimmed', () => {
    const times = ['2026-12-01T23:52:27.1234567Z', '2026-12-01T23:52:27.12345Z', '2026-12-01T23:52:27Z'];
    expect([...times].sort((a, b) => timeKey(a).localeCompare(timeKey(b)))).toEqual([
      '2026-12-01T23:52:27Z',
      '2026-12-01T23:52:27.12345Z',
      '2026-12-01T23:52:27.1234567Z',
    ]);
  });

  it('a line with `timestamps` is its time and its text; one without stays whole', () => {
    expect(splitTimestamp('2026-12-01T23:52:27.5Z FATAL: no')).toEqual({
      time: '2026-12-01T23:52:27.5Z',
      rest: 'FATAL: no',
      at: 23,
    });
    expect(splitTimestamp('no time here')).toEqual({ time: '', rest: 'no time here', at: 0 });
  });
});
