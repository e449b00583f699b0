/**
 * Query strings as the editor spec reads them: `+` is a space, `%XX` sequences are percent-decoded
 * (as UTF-8), and a malformed `%` sequence stays literal — where `decodeURIComponent` would throw.
 */
function decodeComponent(raw: string): string {
  const text = raw.replace(/\+/g, ' ');
  if (!text.includes('%')) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x25 && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      const cp = text.codePointAt(i) as number;
      if (cp > 0xffff) i += 1;
      bytes.push(...Buffer.from(String.fromCodePoint(cp), 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * `a=1&b=x+y` -> { a: '1', b: 'x y' }; the first of a repeated name wins. The result has no prototype:
 * a parameter named `constructor` or `__proto__` is a parameter like any other.
 */
export function parseQuery(search: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const part of search.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = decodeComponent(eq === -1 ? part : part.slice(0, eq));
    if (!Object.hasOwn(out, name)) out[name] = decodeComponent(eq === -1 ? '' : part.slice(eq + 1));
  }
  return out;
}

/** A comma-separated query value as its items, empty items dropped. */
export const splitList = (value: string): string[] => value.split(',').filter((item) => item !== '');
