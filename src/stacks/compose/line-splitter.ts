/**
 * Splits a child's byte stream into lines, incrementally. Chunks may end anywhere: inside a UTF-8
 * sequence (bytes are kept until the line ends, then decoded whole) or between CR and LF.
 *
 * Line ends: `\n` and `\r\n`. A lone `\r` is NOT a line end and stays in the line: docker compose
 * prints `\n`-terminated lines when its output is not a terminal (our case, always a pipe), and a
 * program that redraws a progress line with bare `\r` would otherwise flood the log with one line per
 * redraw.
 *
 * A line whose content exceeds `MAX_LINE_BYTES` is cut there (on a UTF-8 boundary): it is emitted at
 * once (memory stays bounded) with `cut` set, and the rest of it is dropped up to its end. The emitted
 * text runs `overlapBytes` past the cut (the longest value redaction looks for), so that a value
 * crossing the cut is still seen whole and redacted whole: the line is redacted first, then cut
 * (`Redactor.cut`). Without redaction, `shownUncut` gives the kept part with the marker.
 */
export const MAX_LINE_BYTES = 64 * 1024;
export const cutMarker = (limit: number) => ` [line cut at ${limit} bytes]`;

/** A line as split. */
export interface SplitLine {
  text: string;
  /**
   * Set when the line was longer than the limit: only the first `keep` UTF-16 code units of `text` come
   * before the cut (the rest is context for redaction, never shown), then `marker`.
   */
  cut?: { keep: number; marker: string };
}

/** A split line as shown without redaction: the part before the cut, then the marker. */
export const shownUncut = (line: SplitLine): string =>
  line.cut === undefined ? line.text : line.text.slice(0, line.cut.keep) + line.cut.marker;

const LF = 0x0a;
const CR = 0x0d;

/** Largest n <= limit such that buf[0, n) ends on a UTF-8 character boundary. */
function utf8Boundary(buf: Buffer, limit: number): number {
  if (limit >= buf.length) return buf.length;
  let n = limit;
  // Step back over continuation bytes (10xxxxxx) to the start of the character cut in two.
  // biome-ignore lint/style/noNonNullAssertion: n is within the buffer
  while (n > 0 && (buf[n]! & 0xc0) === 0x80) n--;
  return n;
}

export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** True after a cut, until the end of that line: its bytes are dropped. */
  private dropping = false;

  /**
   * `overlapBytes`: how far past the cut a cut line's text runs (the longest redacted value, in UTF-8
   * bytes); a line is held up to `maxLineBytes + overlapBytes` bytes at most.
   */
  constructor(
    private readonly maxLineBytes = MAX_LINE_BYTES,
    private readonly overlapBytes = 0,
  ) {}

  /** Feeds a chunk; returns the lines it completed (without their line end). */
  push(chunk: Buffer): SplitLine[] {
    const lines: SplitLine[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(LF, start);
      if (nl === -1) break;
      if (this.dropping) {
        this.dropping = false;
      } else {
        this.emit(chunk.subarray(start, nl), lines, true);
      }
      start = nl + 1;
    }
    if (start < chunk.length && !this.dropping) this.hold(chunk.subarray(start), lines);
    return lines;
  }

  /** Flushes a last line that had no line end; the splitter is then empty. */
  end(): SplitLine[] {
    const lines: SplitLine[] = [];
    if (!this.dropping && this.pendingBytes > 0) this.emit(Buffer.alloc(0), lines, false);
    this.reset();
    return lines;
  }

  private reset() {
    this.pending = [];
    this.pendingBytes = 0;
    this.dropping = false;
  }

  /** Keeps a piece of an unfinished line; cuts the line once it cannot fit any more. */
  private hold(piece: Buffer, out: SplitLine[]) {
    this.pending.push(piece);
    this.pendingBytes += piece.length;
    // One byte of slack: a trailing CR may still turn out to be half of a CRLF.
    if (this.pendingBytes > this.maxLineBytes + this.overlapBytes + 1) {
      const bytes = Buffer.concat(this.pending, this.pendingBytes);
      this.reset();
      out.push(this.cut(bytes));
      this.dropping = true;
    }
  }

  private emit(tail: Buffer, out: SplitLine[], terminated: boolean) {
    let bytes = this.pendingBytes === 0 ? tail : Buffer.concat([...this.pending, tail]);
    this.pending = [];
    this.pendingBytes = 0;
    if (terminated && bytes.length > 0 && bytes[bytes.length - 1] === CR) {
      bytes = bytes.subarray(0, bytes.length - 1);
    }
    out.push(bytes.length > this.maxLineBytes ? this.cut(bytes) : { text: bytes.toString('utf8') });
  }

  /** The line's start up to the overlap past the cut, and where the cut falls in it. */
  private cut(bytes: Buffer): SplitLine {
    const kept = utf8Boundary(bytes, this.maxLineBytes);
    const before = bytes.toString('utf8', 0, kept);
    const end = utf8Boundary(bytes, this.maxLineBytes + this.overlapBytes);
    return {
      text: before + bytes.toString('utf8', kept, end),
      cut: { keep: before.length, marker: cutMarker(this.maxLineBytes) },
    };
  }
}
