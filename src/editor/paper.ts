/**
 * Paper sizes and plot scales for `page_setup_set`: the ISO 216 A series (A0-A4) and the ANSI/ASME
 * Y14.1 sheets (A-E), under their own names, short names and the canonical media names AutoCAD's
 * PC3 files and DXF PLOTSETTINGS use (`ISO_A4_(210.00_x_297.00_MM)`, `ANSI_A_(8.50_x_11.00_Inches)`).
 */
import { EditorError } from './errors.js';

export type PaperUnits = 'mm' | 'in';
export type Orientation = 'portrait' | 'landscape';

/** Width and height, portrait (width <= height). */
interface SheetSize {
  width: number;
  height: number;
}

interface Paper {
  /** `ISO A4`, `ANSI A`: the name answers carry. */
  name: string;
  family: 'ISO' | 'ANSI';
  /** `A4`, `A`. */
  size: string;
  /** The units the standard defines it in. */
  units: PaperUnits;
  /** Portrait size in millimetres. */
  mm: SheetSize;
  /** Portrait size in inches. */
  inches: SheetSize;
  /** AutoCAD's canonical media name, portrait. */
  media: string;
  /** Other names it is found by (besides `name`, `media` and its landscape media name). */
  aliases: readonly string[];
}

type PageSetupErrorCode = 'invalid_paper' | 'invalid_scale' | 'invalid_orientation';

/** A bad paper, scale or orientation; an EditorError, so the dispatcher answers it with its `code`. */
export class PageSetupError extends EditorError {
  declare readonly code: PageSetupErrorCode;
  constructor(
    code: PageSetupErrorCode,
    readonly value: unknown,
    message: string,
  ) {
    super(code, message);
  }
}

const MM_PER_INCH = 25.4;

function iso(size: string, width: number, height: number): Paper {
  return {
    name: `ISO ${size}`,
    family: 'ISO',
    size,
    units: 'mm',
    mm: { width, height },
    inches: { width: width / MM_PER_INCH, height: height / MM_PER_INCH },
    media: `ISO_${size}_(${width.toFixed(2)}_x_${height.toFixed(2)}_MM)`,
    aliases: [size],
  };
}

/** ANSI sizes are exact in inches; millimetres given exactly (x 25.4) rather than computed in floating point. */
function ansi(
  size: string,
  width: number,
  height: number,
  mmWidth: number,
  mmHeight: number,
  aliases: string[] = [],
) {
  return {
    name: `ANSI ${size}`,
    family: 'ANSI',
    size,
    units: 'in',
    mm: { width: mmWidth, height: mmHeight },
    inches: { width, height },
    media: `ANSI_${size}_(${width.toFixed(2)}_x_${height.toFixed(2)}_Inches)`,
    aliases,
  } satisfies Paper;
}

/** Every paper, ISO A0-A4 then ANSI A-E. */
export const PAPER_SIZES: readonly Paper[] = Object.freeze(
  [
    iso('A0', 841, 1189),
    iso('A1', 594, 841),
    iso('A2', 420, 594),
    iso('A3', 297, 420),
    iso('A4', 210, 297),
    ansi('A', 8.5, 11, 215.9, 279.4, ['Letter']),
    ansi('B', 11, 17, 279.4, 431.8, ['Tabloid', 'Ledger']),
    ansi('C', 17, 22, 431.8, 558.8),
    ansi('D', 22, 34, 558.8, 863.6),
    ansi('E', 34, 44, 863.6, 1117.6),
  ].map((p) => Object.freeze(p)),
);

/** Case, spaces, underscores and hyphens do not matter: `iso_a4`, `ISO-A4`, `ISO A4`. */
const key = (name: string) =>
  name
    .trim()
    .toUpperCase()
    .replace(/[\s_-]+/g, ' ');

const byKey = new Map<string, Paper>();
for (const p of PAPER_SIZES) for (const n of [p.name, ...p.aliases]) byKey.set(key(n), p);

/**
 * AutoCAD media names: `ISO_A4_(210.00_x_297.00_MM)`, `ISO_full_bleed_A4_(297.00_x_210.00_MM)`,
 * `ISO_expand_A3_(...)`, `ANSI_A_(11.00_x_8.50_Inches)`: family, size and the sheet in either orientation,
 * in millimetres for ISO and inches for ANSI.
 */
const MEDIA =
  /^(ISO|ANSI)_(?:(?:full_bleed|expand)_)?([A-E]\d?)_\((\d+(?:\.\d+)?)_x_(\d+(?:\.\d+)?)_(MM|Inches)\)$/i;

/** The paper `name` names, or undefined. Accepts `ISO A4`, `A4`, `ANSI A`, `Letter`, AutoCAD media names. */
export function findPaper(name: string): Paper | undefined {
  if (typeof name !== 'string') return undefined;
  const direct = byKey.get(key(name));
  if (direct) return direct;
  const m = MEDIA.exec(name.trim());
  if (!m) return undefined;
  const [, family = '', size = '', a = '', b = '', units = ''] = m;
  const paper = byKey.get(key(`${family} ${size}`));
  // ISO media are named in millimetres, ANSI media in inches
  if (!paper || paper.family !== family.toUpperCase()) return undefined;
  if ((units.toUpperCase() === 'MM' ? 'mm' : 'in') !== paper.units) return undefined;
  const sheet = paper.units === 'mm' ? paper.mm : paper.inches;
  const w = Number(a);
  const h = Number(b);
  const near = (x: number, y: number) => Math.abs(x - y) < 0.01;
  const fits =
    (near(w, sheet.width) && near(h, sheet.height)) || (near(w, sheet.height) && near(h, sheet.width));
  return fits ? paper : undefined;
}

/** The paper a request names, or an `invalid_paper` error listing the known ones. */
export function parsePaper(value: unknown): Paper {
  const paper = typeof value === 'string' ? findPaper(value) : undefined;
  if (!paper)
    throw new PageSetupError(
      'invalid_paper',
      value,
      `unknown paper ${show(value)}; known: ${PAPER_SIZES.map((p) => p.name).join(', ')} (or their media names)`,
    );
  return paper;
}

/** `portrait` or `landscape` (case-insensitive), or an `invalid_orientation` error. */
export function parseOrientation(value: unknown): Orientation {
  const v = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
  if (v === 'portrait' || v === 'landscape') return v;
  throw new PageSetupError(
    'invalid_orientation',
    value,
    `invalid orientation ${show(value)}; use portrait or landscape`,
  );
}

/** The sheet as laid out: portrait keeps width <= height, landscape swaps them. In the paper's units unless `units`. */
export function pageSize(
  paper: Paper,
  orientation: Orientation,
  units: PaperUnits = paper.units,
): { width: number; height: number; units: PaperUnits } {
  const sheet = units === 'mm' ? paper.mm : paper.inches;
  return orientation === 'landscape'
    ? { width: sheet.height, height: sheet.width, units }
    : { width: sheet.width, height: sheet.height, units };
}

// ---------------------------------------------------------------------------------------------
// Scales
// ---------------------------------------------------------------------------------------------

/** A plot scale as `[paper, drawing]`: `paper` paper units show `drawing` drawing units (1:50 = [1, 50]). */
type Scale = [number, number];

/** 12 significant digits: 1 / 0.02 is 50, not 49.99999999999999. */
const clean = (x: number) => Number(x.toPrecision(12));

/** A ratio as [paper, drawing] with the smaller side 1 (architectural and single-number scales). */
function normalized(paper: number, drawing: number): Scale {
  return drawing >= paper ? [1, clean(drawing / paper)] : [clean(paper / drawing), 1];
}

const NUMBER = String.raw`\d+(?:\.\d+)?|\.\d+`;
const RATIO = new RegExp(String.raw`^(${NUMBER})\s*[:=]\s*(${NUMBER})$`);
const FRACTION = /^(\d+)\s*\/\s*(\d+)$/;
const FEET = `['\u2019\u2032]`;
const INCHES = `["\u201d\u2033]`;
/** An inch amount: `3`, `1.5`, `3/16`, `1 1/2`, `1-1/2`. */
const INCH_AMOUNT = String.raw`(?:\d+(?:\.\d+)?(?:[\s-]+\d+/\d+)?|\d+/\d+)`;
/** A length in feet and inches: `1'-0"`, `1'`, `10'`, `3/16"`, `1 1/2"`, `1'6"`. */
const LENGTH = new RegExp(
  String.raw`^(?:(\d+(?:\.\d+)?)\s*${FEET})?\s*-?\s*(?:(${INCH_AMOUNT})\s*${INCHES})?$`,
);

/** Inches of an architectural or engineering length, or undefined when it is not one. */
function lengthInches(text: string): number | undefined {
  const m = LENGTH.exec(text.trim());
  if (!m || (m[1] === undefined && m[2] === undefined)) return undefined;
  const feet = m[1] === undefined ? 0 : Number(m[1]);
  let inches = 0;
  if (m[2] !== undefined) {
    for (const part of m[2].trim().split(/[\s-]+/)) {
      const f = FRACTION.exec(part);
      if (f) {
        const den = Number(f[2]);
        if (den === 0) return undefined;
        inches += Number(f[1]) / den;
      } else inches += Number(part);
    }
  }
  return feet * 12 + inches;
}

function positive(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x) && x > 0;
}

/**
 * A plot scale as [paper, drawing]. Accepts:
 * - `"1:50"`, `"2:1"`, `"1=100"`: as written;
 * - architectural and engineering scales, `1/4" = 1'-0"` (= [1, 48]), `3/16" = 1'-0"`, `1" = 10'`;
 * - a number or numeric string, the factor paper / drawing: `0.02` = [1, 50], `2` = [2, 1]; `"1/50"` likewise;
 * - `[paper, drawing]` pairs and `{ paper, drawing }` objects.
 * Anything else, zero, negative or non-finite sides -> `invalid_scale`.
 */
export function parseScale(value: unknown): Scale {
  const bad = (why: string): never => {
    throw new PageSetupError(
      'invalid_scale',
      value,
      `invalid scale ${show(value)}: ${why}; use "1:50", 1/4" = 1'-0", a factor such as 0.02, or [paper, drawing]`,
    );
  };
  if (typeof value === 'number') {
    if (!positive(value)) return bad('the factor must be a positive number');
    return normalized(value, 1);
  }
  if (Array.isArray(value)) {
    if (value.length !== 2) return bad('a pair has two numbers');
    const [p, d] = value;
    if (!positive(p) || !positive(d)) return bad('both sides must be positive numbers');
    return [p, d];
  }
  if (value !== null && typeof value === 'object') {
    const { paper, drawing } = value as { paper?: unknown; drawing?: unknown };
    if (!positive(paper) || !positive(drawing)) return bad('paper and drawing must be positive numbers');
    return [paper, drawing];
  }
  if (typeof value !== 'string') return bad('not a scale');
  const text = value.trim();
  if (text === '') return bad('empty');
  if (/^(?:\d+(?:\.\d+)?|\.\d+)(?:e[+-]?\d+)?$/i.test(text)) return parseScale(Number(text));
  const fraction = FRACTION.exec(text);
  if (fraction) {
    const p = Number(fraction[1]);
    const d = Number(fraction[2]);
    if (!positive(p) || !positive(d)) return bad('both sides must be positive');
    return normalized(p, d);
  }
  const ratio = RATIO.exec(text);
  if (ratio) {
    const p = Number(ratio[1]);
    const d = Number(ratio[2]);
    if (!positive(p) || !positive(d)) return bad('both sides must be positive');
    return [p, d];
  }
  const sides = text.split('=');
  if (sides.length === 2) {
    const p = lengthInches(sides[0] ?? '');
    const d = lengthInches(sides[1] ?? '');
    if (p === undefined || d === undefined) return bad('the sides are not lengths');
    if (!positive(p) || !positive(d)) return bad('both sides must be positive');
    return normalized(p, d);
  }
  return bad('not a scale');
}

/** `[1, 50]` -> `"1:50"`. */
export function formatScale(scale: Scale): string {
  return `${scale[0]}:${scale[1]}`;
}

/** The scale as one factor, paper units per drawing unit (1:50 -> 0.02). */
export function scaleFactor(scale: Scale): number {
  return scale[0] / scale[1];
}

function show(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
