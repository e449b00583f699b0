/** A DXF real: `Number` first (fast, exact), `parseFloat` for values with trailing text, else 0. */
export function toNumber(value: string): number {
  const n = +value;
  if (!Number.isNaN(n)) return n;
  const p = Number.parseFloat(value);
  return Number.isNaN(p) ? 0 : p;
}

export function toInt(value: string): number {
  const n = Number.parseInt(value, 10);
  return Number.isNaN(n) ? 0 : n;
}

/** Handles are uppercase hex without leading zeros (`0` is the null handle). */
export function normalizeHandle(value: string): string {
  // Most handles are already canonical: check the characters before making a new string.
  const n = value.length;
  if (n > 0 && value.charCodeAt(0) !== 48) {
    let canonical = true;
    for (let i = 0; i < n; i++) {
      const c = value.charCodeAt(i);
      if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 70))) {
        canonical = false;
        break;
      }
    }
    if (canonical) return value;
  }
  const h = value.trim().toUpperCase();
  let i = 0;
  while (i < h.length - 1 && h.charCodeAt(i) === 48) i++;
  return i ? h.slice(i) : h;
}

export function handleValue(handle: string): number {
  const n = Number.parseInt(handle, 16);
  return Number.isNaN(n) ? -1 : n;
}

export function formatHandle(value: number): string {
  return value.toString(16).toUpperCase();
}

/**
 * Formats a real the way Python's `repr` does, which is how ezdxf writes them: shortest round-trip
 * digits, `.0` on whole numbers, exponent form outside 1e-4..1e16 with at least two exponent digits.
 * Files written by ezdxf therefore come back byte-for-byte when their values pass through numbers.
 */
export function formatReal(x: number): string {
  if (!Number.isFinite(x)) return '0.0';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const ax = Math.abs(x);
  if (ax >= 1e-4 && ax < 1e16) {
    const s = String(x);
    return s.includes('.') || s.includes('e') ? s : `${s}.0`;
  }
  const e = x.toExponential();
  const at = e.indexOf('e');
  const mantissa = e.slice(0, at);
  const sign = e.charAt(at + 1);
  const digits = e.slice(at + 2);
  return `${mantissa}e${sign}${digits.length < 2 ? `0${digits}` : digits}`;
}

export function formatInt(x: number): string {
  return String(Math.trunc(x));
}

/** `\U+XXXX` escapes: how DXF before R2007 (AC1021) stores characters outside its code page. */
export function decodeUnicodeEscapes(value: string): string {
  if (!value.includes('\\U+') && !value.includes('\\u+')) return value;
  return value.replace(/\\[Uu]\+([0-9A-Fa-f]{4})/g, (_m, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

export function encodeUnicodeEscapes(text: string): string {
  return text.replace(
    /[\u0080-\uffff]/g,
    (c) => `\\U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`,
  );
}
