import { DxfError } from './errors.js';

const BINARY_SENTINEL = 'AutoCAD Binary DXF';

/** Powers of ten that doubles hold exactly. */
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * The group-code/value pairs of an ASCII DXF text. Codes are parsed into a typed array; values stay in
 * the text as offsets and become strings or numbers only when a reader asks for them, so a 100,000-entity
 * file makes few short-lived strings (tokenizing everything first keeps the section readers simple: they
 * look ahead freely).
 */
export class TagList {
  constructor(
    readonly text: string,
    readonly codes: Int32Array,
    readonly starts: Int32Array,
    readonly ends: Int32Array,
    readonly count: number,
  ) {}

  /** The value of tag i as the file has it (without the line end). */
  value(i: number): string {
    return this.text.slice(this.starts[i], this.ends[i]);
  }

  /** Whether the value of tag i is exactly `s`. */
  is(i: number, s: string): boolean {
    const start = this.starts[i] as number;
    return (this.ends[i] as number) - start === s.length && this.text.startsWith(s, start);
  }

  /**
   * The value of tag i as a real. Plain decimals of up to 15 digits are parsed in place: an exact integer
   * divided by an exact power of ten is the correctly rounded double, the same `Number()` gives; anything
   * else goes through `Number()`.
   */
  real(i: number): number {
    const text = this.text;
    const end = this.ends[i] as number;
    let p = this.starts[i] as number;
    while (p < end && text.charCodeAt(p) === 32) p++;
    let negative = false;
    if (p < end && text.charCodeAt(p) === 45) {
      negative = true;
      p++;
    }
    let mantissa = 0;
    let digits = 0;
    let fraction = 0;
    let c = 0;
    while (p < end) {
      c = text.charCodeAt(p) - 48;
      if (c < 0 || c > 9) break;
      mantissa = mantissa * 10 + c;
      digits++;
      p++;
    }
    if (p < end && text.charCodeAt(p) === 46) {
      p++;
      while (p < end) {
        c = text.charCodeAt(p) - 48;
        if (c < 0 || c > 9) break;
        mantissa = mantissa * 10 + c;
        digits++;
        fraction++;
        p++;
      }
    }
    while (p < end && text.charCodeAt(p) === 32) p++;
    if (p !== end || digits === 0 || digits > 15) return slowReal(this.value(i));
    const x = fraction === 0 ? mantissa : mantissa / (POW10[fraction] as number);
    return negative ? -x : x;
  }

  /** The value of tag i as an integer (0 when it is none), as `parseInt` reads it. */
  int(i: number): number {
    const n = scanInt(this.text, this.starts[i] as number, this.ends[i] as number, 15);
    if (!Number.isNaN(n)) return n;
    const parsed = Number.parseInt(this.value(i), 10);
    return Number.isNaN(parsed) ? 0 : parsed;
  }
}

function slowReal(value: string): number {
  const n = +value;
  if (!Number.isNaN(n)) return n;
  const p = Number.parseFloat(value);
  return Number.isNaN(p) ? 0 : p;
}

/** Parses a group-code line: up to five digits (see scanInt). NaN when not a code. */
function parseCode(text: string, start: number, end: number): number {
  return scanInt(text, start, end, 5);
}

/**
 * The integer text[start, end) holds, read in place (no string made): optional spaces or tabs, an
 * optional minus, 1 to `maxDigits` digits, optional spaces, tabs or CR. NaN for anything else.
 */
function scanInt(text: string, start: number, end: number, maxDigits: number): number {
  let i = start;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9) break;
    i++;
  }
  let negative = false;
  if (i < end && text.charCodeAt(i) === 45) {
    negative = true;
    i++;
  }
  let value = 0;
  let digits = 0;
  while (i < end) {
    const c = text.charCodeAt(i) - 48;
    if (c < 0 || c > 9) break;
    value = value * 10 + c;
    digits++;
    i++;
  }
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13) return Number.NaN;
    i++;
  }
  if (digits === 0 || digits > maxDigits) return Number.NaN;
  return negative ? -value : value;
}

/**
 * The tags of DXF text. With `recover` (a list to note repairs in): data after `0 EOF` is left out and a
 * last group code without value dropped, as ezdxf's recover reads them; without, both are refused.
 */
export function tokenize(text: string, recover?: string[]): TagList {
  const length = text.length;
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  if (text.startsWith(BINARY_SENTINEL, pos)) {
    throw new DxfError(
      'dxf_binary_unsupported',
      'binary DXF is not supported: save the drawing as ASCII DXF',
    );
  }
  let capacity = Math.max(1024, (length / 16) | 0);
  let codes = new Int32Array(capacity);
  let starts = new Int32Array(capacity);
  let ends = new Int32Array(capacity);
  let count = 0;
  while (pos < length) {
    let eol = text.indexOf('\n', pos);
    if (eol < 0) eol = length;
    const code = parseCode(text, pos, eol);
    if (Number.isNaN(code)) {
      // Trailing blank lines after EOF are harmless.
      if (isBlank(text, pos, length)) break;
      throw new DxfError(
        'dxf_invalid',
        count === 0
          ? 'not a DXF file: the first line is not a group code'
          : `not a DXF file: line ${2 * count + 1} is not a group code`,
      );
    }
    const start = eol + 1;
    if (start >= length) {
      if (!recover)
        throw new DxfError(
          'dxf_truncated',
          `truncated DXF: group code ${code} on the last line has no value`,
        );
      recover.push(`group code ${code} on the last line has no value: left out`);
      break;
    }
    let end = text.indexOf('\n', start);
    const next = end < 0 ? length : end + 1;
    if (end < 0) end = length;
    if (end > start && text.charCodeAt(end - 1) === 13) end--;
    pos = next;
    // 999 comments carry nothing a drawing needs.
    if (code === 999) continue;
    if (count === capacity) {
      capacity *= 2;
      codes = grow(codes, capacity);
      starts = grow(starts, capacity);
      ends = grow(ends, capacity);
    }
    codes[count] = code;
    starts[count] = start;
    ends[count] = end;
    count++;
    if (recover && code === 0 && text.slice(start, end).trim() === 'EOF') {
      if (!isBlank(text, pos, length)) recover.push(`${length - pos} characters after EOF: left out`);
      break;
    }
  }
  return new TagList(text, codes, starts, ends, count);
}

function grow(a: Int32Array, capacity: number): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(capacity);
  grown.set(a);
  return grown;
}

function isBlank(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13 && c !== 10 && c !== 0 && c !== 0x1a) return false;
  }
  return true;
}
