/**
 * Output redaction (spec: Output redaction; docs/stacks.md#jobs-runs-and-how-compose-runs): every value of more than 5 characters is
 * replaced by `***`; a line holding a value of 5 characters or fewer is withheld (null). Empty values
 * are ignored. A value holding line breaks is matched line by line (each of its lines is a value).
 *
 * One pass per line for all values: an Aho–Corasick automaton compiled to a dense transition table over
 * the characters the values use (every other character maps to class 0, which leads back to the root).
 * Hand-written on purpose. The maintained npm package (modern-ahocorasick 3.3) matches whole grapheme
 * clusters, so a value followed by a combining mark (`secret1` + U+0301) is not found — a leak — and
 * measured 224k lines/s for `match()` alone against this automaton's 1.18M for the full redaction
 * (100 values, the workload of bench/redaction.ts). `npm run bench -- redaction` also measures a single
 * RegExp alternation (about 2x slower) and a `replaceAll` per value (about 6–12x slower).
 *
 * Kept over RegExps on measurement (2026-11-26, this 2-core machine under load, 9 rounds with
 * the order swapped each round, medians): a RegExp redactor with these same rules (a plain alternation
 * to find lines with a value, then `(?=(v1|v2|…))` longest first for every occurrence, spans merged as
 * here) passed every property test, but redacted the bench workload at 139k lines/s against this
 * automaton's 290k (per-round ratio 0.55; the plain alternation alone: 144k). It was faster only on the
 * property tests' own cases (1–8 values of ≤ 12 characters, a new redactor per line: 1.75x), where
 * building dominates; the service builds one redactor per run and applies it to every output line.
 *
 * Overlaps: every occurrence of every value is found. The occurrences of long values are merged into
 * spans (overlapping ones join) and each span becomes one `***`, so a long value overlapping another
 * is never left half shown. A short value occurring entirely inside a redacted span does not withhold
 * the line (it is not shown); one occurring anywhere else — also straddling a span's edge — does.
 * Replacing can join text into a new occurrence (a value that itself contains `***`, or a short value
 * `*`): the redacted line is scanned once more and withheld if anything matches, so no value ever
 * leaves, whatever the values are.
 */
import type { Redactor } from '../contracts.js';

export const MAX_SHORT_VALUE = 5;
const MASK = '***';
/** Above this many table cells the automaton steps through sparse goto maps instead. */
const MAX_DENSE_CELLS = 4_000_000;

interface Automaton {
  /** The state after reading `code` in `state`. */
  step(state: number, code: number): number;
  /** The dense table (state * classes + class), when it fits; the hot loop reads it inline. */
  dense: { delta: Int32Array; classOf: Uint16Array; classes: number } | null;
  /** 1 where some value (long or short) ends in this state. */
  accepts: Uint8Array;
  /** Length of the longest long value ending in this state (0: none). */
  longLen: Int32Array;
  /** Length of the longest short value ending in this state (0: none). */
  shortLen: Int32Array;
}

function compile(values: readonly string[]): Automaton {
  // Trie with sparse gotos first; BFS for failure links; then a dense table when it fits.
  const gotos: Array<Map<number, number>> = [new Map()];
  const own: number[] = [0];
  for (const v of values) {
    let s = 0;
    for (let i = 0; i < v.length; i++) {
      const c = v.charCodeAt(i);
      // biome-ignore lint/style/noNonNullAssertion: s is always an existing state
      const g = gotos[s]!;
      let next = g.get(c);
      if (next === undefined) {
        next = gotos.length;
        g.set(c, next);
        gotos.push(new Map());
        own.push(0);
      }
      s = next;
    }
    own[s] = v.length;
  }
  const n = gotos.length;
  const fail = new Int32Array(n);
  const longLen = new Int32Array(n);
  const shortLen = new Int32Array(n);
  const order: number[] = [0];
  for (let qi = 0; qi < order.length; qi++) {
    const s = order[qi] as number;
    const f = fail[s] as number;
    const len = own[s] as number;
    // biome-ignore lint/style/noNonNullAssertion: fail states come earlier in BFS order
    longLen[s] = Math.max(len > MAX_SHORT_VALUE ? len : 0, s === 0 ? 0 : longLen[f]!);
    // biome-ignore lint/style/noNonNullAssertion: as above
    shortLen[s] = Math.max(len > 0 && len <= MAX_SHORT_VALUE ? len : 0, s === 0 ? 0 : shortLen[f]!);
    // biome-ignore lint/style/noNonNullAssertion: s exists
    for (const [c, t] of gotos[s]!) {
      let g = s === 0 ? -1 : f;
      let target = 0;
      while (g >= 0) {
        const hit = gotos[g]?.get(c);
        if (hit !== undefined) {
          target = hit;
          break;
        }
        g = g === 0 ? -1 : (fail[g] as number);
      }
      fail[t] = target;
      order.push(t);
    }
  }

  const classOf = new Uint16Array(65536);
  let classes = 1;
  for (const g of gotos) for (const c of g.keys()) if (classOf[c] === 0) classOf[c] = classes++;

  const sparseStep = (state: number, code: number) => {
    let s = state;
    for (;;) {
      const t = gotos[s]?.get(code);
      if (t !== undefined) return t;
      if (s === 0) return 0;
      s = fail[s] as number;
    }
  };
  const accepts = new Uint8Array(n);
  for (let s = 0; s < n; s++) accepts[s] = (longLen[s] as number) > 0 || (shortLen[s] as number) > 0 ? 1 : 0;
  if (n * classes > MAX_DENSE_CELLS) return { step: sparseStep, dense: null, accepts, longLen, shortLen };

  const delta = new Int32Array(n * classes);
  for (const s of order) {
    const base = s * classes;
    const fbase = (fail[s] as number) * classes;
    // biome-ignore lint/style/noNonNullAssertion: s exists
    const g = gotos[s]!;
    for (let k = 1; k < classes; k++) delta[base + k] = s === 0 ? 0 : (delta[fbase + k] as number);
    for (const [c, t] of g) delta[base + (classOf[c] as number)] = t;
  }
  return {
    step: (state, code) => delta[state * classes + (classOf[code] as number)] as number,
    dense: { delta, classOf, classes },
    accepts,
    longLen,
    shortLen,
  };
}

/** Characters hashed together by the skip filter, and the size of its shift table. */
const BLOCK = 3;
const SHIFT_TABLE_SIZE = 1 << 16;
/** Below this shortest value the filter skips too little to pay for itself. */
const MIN_FILTER_SPAN = 5;

const blockHash = (text: string, end: number) =>
  ((text.charCodeAt(end - 2) << 10) ^ (text.charCodeAt(end - 1) << 5) ^ text.charCodeAt(end)) &
  (SHIFT_TABLE_SIZE - 1);

/**
 * A skip filter in front of the automaton (Wu and Manber's shift table): most lines hold no value, and
 * it tells most of those after looking at one block of three characters in every few, where the
 * automaton reads every character. `span` is the shortest value's length: a window of `span`
 * characters is tested by its last block, and `shift[h]` is how far the window may move when its last
 * block hashes to `h` without passing the end of any value's first `span` characters — 0 when such a
 * block ends one. No occurrence is skipped (a collision only shortens a shift), so a false answer means
 * no value occurs; a true one sends the line to the automaton.
 */
class SkipFilter {
  private readonly shift = new Uint8Array(SHIFT_TABLE_SIZE);

  private constructor(private readonly span: number) {}

  static of(values: readonly string[]): SkipFilter | null {
    const span = values.reduce((n, v) => Math.min(n, v.length), Number.POSITIVE_INFINITY);
    // The table holds shifts up to 255: a longer span gains nothing measurable over 255.
    if (!(span >= MIN_FILTER_SPAN)) return null;
    const filter = new SkipFilter(Math.min(span, 255 + BLOCK - 1));
    const { shift } = filter;
    const fullShift = filter.span - BLOCK + 1;
    shift.fill(fullShift);
    for (const v of values) {
      for (let end = BLOCK - 1; end < filter.span; end++) {
        const h = blockHash(v, end);
        shift[h] = Math.min(shift[h] as number, filter.span - 1 - end);
      }
    }
    return filter;
  }

  /** False when no value occurs in `text`; true when one may. */
  mayHold(text: string): boolean {
    const { shift } = this;
    for (let end = this.span - 1; end < text.length; ) {
      const step = shift[blockHash(text, end)] as number;
      if (step === 0) return true;
      end += step;
    }
    return false;
  }
}

class CompiledRedactor implements Redactor {
  private readonly automaton: Automaton | null;
  private readonly filter: SkipFilter | null;
  readonly longestBytes: number;

  constructor(private readonly values: readonly string[]) {
    // Output arrives line by line, so a multi-line value (a PEM key, a JSON blob) can only ever be
    // seen one line at a time: each of its lines is a value of its own.
    const distinct = [...new Set(values.flatMap((v) => v.split(/\r?\n/)).filter((v) => v.length > 0))];
    this.automaton = distinct.length === 0 ? null : compile(distinct);
    this.filter = SkipFilter.of(distinct);
    // +2: a value may begin or end with a lone surrogate, which matches half of a 4-byte character
    // that byteLength counts as 3 bytes.
    this.longestBytes = distinct.reduce((n, v) => Math.max(n, Buffer.byteLength(v) + 2), 0);
  }

  line(text: string): string | null {
    return this.shown(text, text.length, '');
  }

  cut(text: string, keep: number, marker: string): string | null {
    return this.shown(text, Math.min(keep, text.length), marker);
  }

  /**
   * `text` redacted as a whole, shown up to `keep` code units, then `suffix`: a long value reaching
   * over `keep` is masked whole, a short one overlapping `[0, keep)` withholds the line, and what is
   * shown (suffix included) is scanned once more when it is not the text itself.
   */
  private shown(text: string, keep: number, suffix: string): string | null {
    const a = this.automaton;
    const whole = keep === text.length && suffix === '';
    if (a === null) return whole ? text : text.slice(0, keep) + suffix;
    // A whole line holding no value is itself (a cut one is scanned again with its marker, below).
    if (whole && this.filter !== null && !this.filter.mayHold(text)) return text;
    const { longLen, shortLen, accepts, dense } = a;
    // Merged long spans as [start, end) pairs, and short occurrences; both in order of their ends.
    let spans: number[] | null = null;
    let shorts: number[] | null = null;
    if (dense === null || anyMatch(dense, accepts, text)) {
      let s = 0;
      for (let i = 0; i < text.length; i++) {
        s = a.step(s, text.charCodeAt(i));
        if (accepts[s] === 0) continue;
        const ll = longLen[s] as number;
        const sl = shortLen[s] as number;
        if (ll > 0) {
          spans ??= [];
          let start = i + 1 - ll;
          // A span reaching back over earlier spans swallows them (spans stay disjoint and ordered).
          while (spans.length > 0 && start <= (spans[spans.length - 1] as number)) {
            spans.pop();
            start = Math.min(start, spans.pop() as number);
          }
          spans.push(start, i + 1);
        }
        if (sl > 0) {
          shorts ??= [];
          shorts.push(i + 1 - sl, i + 1);
        }
      }
    }
    if (shorts !== null) {
      for (let k = 0; k < shorts.length; k += 2) {
        const start = shorts[k] as number;
        // Past the cut it is never shown; overlapping the kept part it is, unless masked.
        if (start < keep && !covered(spans, start, shorts[k + 1] as number)) return null;
      }
    }
    if (spans === null && whole) return text;
    let out = '';
    let at = 0;
    for (let k = 0; spans !== null && k < spans.length && (spans[k] as number) < keep; k += 2) {
      out += text.slice(at, spans[k]) + MASK;
      at = spans[k + 1] as number;
    }
    if (at < keep) out += text.slice(at, keep);
    out += suffix;
    // Replacing (or cutting and marking) may have joined a new occurrence; scanned only for those lines.
    let r = 0;
    for (let i = 0; i < out.length; i++) {
      r = a.step(r, out.charCodeAt(i));
      if (accepts[r] === 1) return null;
    }
    return out;
  }

  text(text: string): string {
    const kept: string[] = [];
    for (const l of text.split(/\r?\n/)) {
      const r = this.line(l);
      if (r !== null) kept.push(r);
    }
    return kept.join('\n');
  }

  with(more: readonly string[]): Redactor {
    return more.length === 0 ? this : new CompiledRedactor([...this.values, ...more]);
  }
}

/**
 * The fast path for the common line that holds no value: a tight loop over the dense table, no calls,
 * no allocation. Lines with a match are scanned again by the full loop, which records positions.
 */
function anyMatch(dense: NonNullable<Automaton['dense']>, accepts: Uint8Array, text: string): boolean {
  const { delta, classOf, classes } = dense;
  let s = 0;
  for (let i = 0; i < text.length; i++) {
    s = delta[s * classes + (classOf[text.charCodeAt(i)] as number)] as number;
    if (accepts[s] === 1) return true;
  }
  return false;
}

function covered(spans: readonly number[] | null, start: number, end: number): boolean {
  if (spans === null) return false;
  for (let k = 0; k < spans.length; k += 2) {
    if ((spans[k] as number) <= start && end <= (spans[k + 1] as number)) return true;
  }
  return false;
}

export function createRedactor(values: readonly string[]): Redactor {
  return new CompiledRedactor(values);
}

/**
 * The same rules with one `replaceAll` per value (longest first), for the benchmark and as a test
 * oracle: long values are replaced, then a short value left in the result withholds the line.
 */
export function naiveRedact(values: readonly string[], line: string): string | null {
  const { long, short } = prepared(values);
  let out = line;
  for (const v of long) out = out.replaceAll(v, MASK);
  for (const v of short) if (out.includes(v)) return null;
  return out;
}

// Sorting per call would bill the naive loop for work it need not do; prepare once per list.
const preparedLists = new WeakMap<readonly string[], { long: string[]; short: string[] }>();
function prepared(values: readonly string[]) {
  let p = preparedLists.get(values);
  if (!p) {
    const sorted = values.filter((v) => v.length > 0).sort((a, b) => b.length - a.length);
    p = {
      long: sorted.filter((v) => v.length > MAX_SHORT_VALUE),
      short: sorted.filter((v) => v.length <= MAX_SHORT_VALUE),
    };
    preparedLists.set(values, p);
  }
  return p;
}
