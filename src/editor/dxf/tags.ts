import { DxfError } from './errors.js';

/**
 * The group-code/value pairs of an ASCII DXF text, as two parallel arrays (codes in a typed array, values
 * as the file's text without the line end). Tokenizing everything first keeps the section readers simple
 * (they look ahead freely) and the hot loop tight: one `indexOf` per line, no regex, no per-tag object.
 */
export interface TagList {
  codes: Int32Array;
  values: string[];
  count: number;
}

export const BINARY_SENTINEL = 'AutoCAD Binary DXF';

/** Parses a group-code line: optional spaces, optional minus, digits, optional spaces/CR. NaN when not a code. */
function parseCode(text: string, start: number, end: number): number {
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
  if (digits === 0 || digits > 5) return Number.NaN;
  return negative ? -value : value;
}

export function tokenize(text: string): TagList {
  const length = text.length;
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  if (text.startsWith(BINARY_SENTINEL, pos)) {
    throw new DxfError(
      'dxf_binary_unsupported',
      'binary DXF is not supported: save the drawing as ASCII DXF',
    );
  }
  let capacity = Math.max(1024, (length / 12) | 0);
  let codes = new Int32Array(capacity);
  const values: string[] = [];
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
      throw new DxfError('dxf_truncated', `truncated DXF: group code ${code} on the last line has no value`);
    }
    let end = text.indexOf('\n', start);
    const next = end < 0 ? length : end + 1;
    if (end < 0) end = length;
    if (end > start && text.charCodeAt(end - 1) === 13) end--;
    // 999 comments carry nothing a drawing needs.
    if (code === 999) {
      pos = next;
      continue;
    }
    if (count === capacity) {
      capacity *= 2;
      const grown = new Int32Array(capacity);
      grown.set(codes);
      codes = grown;
    }
    codes[count] = code;
    values.push(text.slice(start, end));
    count++;
    pos = next;
  }
  return { codes, values, count };
}

function isBlank(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13 && c !== 10 && c !== 0 && c !== 0x1a) return false;
  }
  return true;
}
