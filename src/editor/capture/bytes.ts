/**
 * Text written as UTF-8 bytes into a buffer that grows: a capture's SVG is millions of small whole
 * numbers, and writing their digits here costs a fraction of making a string of each and joining them.
 * The bytes go to the rasteriser's thread as they are (transferred, not copied).
 */
const encoder = new TextEncoder();

export class Bytes {
  private buf: Uint8Array;
  /** Bytes written. */
  length = 0;

  constructor(capacity = 256) {
    this.buf = new Uint8Array(capacity);
  }

  /** Room for `more` bytes. */
  private room(more: number): Uint8Array {
    if (this.length + more > this.buf.length) {
      const grown = new Uint8Array(Math.max(this.buf.length * 2, this.length + more));
      grown.set(this.buf.subarray(0, this.length));
      this.buf = grown;
    }
    return this.buf;
  }

  /** One ASCII character, by its code. */
  char(code: number): void {
    const buf = this.room(1);
    buf[this.length++] = code;
  }

  /** A whole number (any other is rounded), in decimal. */
  int(value: number): void {
    let v = Math.round(value);
    const buf = this.room(24);
    if (v < 0) {
      buf[this.length++] = 45; // '-'
      v = -v;
    }
    if (v < 10) {
      buf[this.length++] = 48 + v;
      return;
    }
    if (!Number.isSafeInteger(v)) {
      this.text(String(v));
      return;
    }
    let digits = 1;
    for (let t = v; t >= 10; t = Math.floor(t / 10)) digits++;
    let at = this.length + digits;
    this.length = at;
    while (v >= 10) {
      const q = Math.floor(v / 10);
      buf[--at] = 48 + v - q * 10;
      v = q;
    }
    buf[--at] = 48 + v;
  }

  /** Text of any characters, as UTF-8. */
  text(s: string): void {
    const buf = this.room(s.length * 3);
    if (s.length <= 16) {
      // Short text, mostly ASCII: by hand (encodeInto needs a view of the buffer made for each call).
      let n = this.length;
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) {
          this.length += encoder.encodeInto(s, buf.subarray(this.length)).written;
          return;
        }
        buf[n++] = c;
      }
      this.length = n;
      return;
    }
    this.length += encoder.encodeInto(s, buf.subarray(this.length)).written;
  }

  /** The bytes of another writer. */
  append(other: Bytes): void {
    const buf = this.room(other.length);
    buf.set(other.buf.subarray(0, other.length), this.length);
    this.length += other.length;
  }

  /** The bytes written (a view: valid until the next write). */
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}
