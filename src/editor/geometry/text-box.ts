/**
 * Extents of Text and MText as capture draws them: each character as wide as DejaVu Sans's advance (the
 * font capture sets text in, and ezdxf's matplotlib drawing add-on, which the corpus tests compare with),
 * the font sized so that its capitals are the text height (× the width factor), kerning left out; a line
 * one text height tall (MText lines 5/3 apart, AutoCAD's default spacing). A PDF plot sets the same text
 * in Helvetica, sized by its own capitals, whose characters are mostly narrower: its text stays inside.
 */
import type { MTextEntity, Point3, TextEntity } from '../model.js';
import { ADVANCE_RUNS, AVERAGE_ADVANCE, CAP_HEIGHT_UNITS, UNITS_PER_EM } from './dejavu-sans-advances.js';
import { extraNumber, extraPoint } from './extra.js';
import { cosSinDeg, hypot2, type Vec2 } from './math.js';

/** The capture font's capitals over its em: a font size of height / this draws them a text height tall. */
export const TEXT_CAP_HEIGHT = CAP_HEIGHT_UNITS / UNITS_PER_EM;

/** Advances and right side bearings by code point, 0 where the table has none (flat arrays: a capture measures every text). */
const [ADVANCES, BEARINGS] = (() => {
  const last = ADVANCE_RUNS.at(-1);
  const size = last ? last[0] + last[1].length : 0;
  const advances = new Uint16Array(size);
  const bearings = new Uint16Array(size);
  for (const [first, run, blank] of ADVANCE_RUNS) {
    advances.set(run, first);
    bearings.set(blank, first);
  }
  return [advances, bearings];
})();

const advanceOf = (code: number) => (code < ADVANCES.length ? ADVANCES[code] : 0) || AVERAGE_ADVANCE;

/** How wide characters are drawn, in text heights (a character the table lacks: the font's average). */
export function textWidth(chars: string): number {
  let units = 0;
  for (const ch of chars) units += advanceOf(ch.codePointAt(0) as number);
  return units / CAP_HEIGHT_UNITS;
}

/** How far a line's ink reaches, in text heights: its advances less its last character's right bearing. */
function inkWidth(line: string): number {
  const last = line.codePointAt(line.length - 1 - (/[\uDC00-\uDFFF]$/.test(line) ? 1 : 0));
  const blank =
    last !== undefined && last < BEARINGS.length && ADVANCES[last] ? (BEARINGS[last] as number) : 0;
  return textWidth(line) - blank / CAP_HEIGHT_UNITS;
}

const MTEXT_LINE_SPACING = 5 / 3;

/** A text's box: `origin` is its lower-left corner as drawn (reading start, baseline). */
interface TextBox {
  origin: Point3;
  /** Unit vector along the drawn reading direction. */
  dir: Vec2;
  /** Unit vector from baseline to top as drawn (mirrored or upside-down text has it reversed). */
  up: Vec2;
  width: number;
  height: number;
}

/** Where a Text's anchor sits in its box, as fractions and offsets from the lower-left corner. */
interface TextLayout extends TextBox {
  anchor: Point3;
  /** Fraction of the width from the reading start to the anchor (0 left, 0.5 center, 1 right). */
  along: number;
  /** Distance from the baseline up to the anchor. */
  above: number;
  /** Aligned or fit text: the box runs from the position (10) to the second point (11). */
  aligned: boolean;
}

/** What `%%d`, `%%p`, `%%c` and `%%%` stand for: degree, plus-minus, diameter (as a slashed O), percent. */
const SPECIAL: Record<string, string> = { d: '\u00b0', p: '\u00b1', c: '\u00d8', '%': '%' };

/** The characters a Text shows for its `%%` codes (degree, plus-minus, diameter, %%nnn); underline/overline marks dropped. */
export function textCharacters(value: string): string {
  if (!value.includes('%%')) return value;
  // One pass, left to right, as AutoCAD reads them: `%%%` is a percent sign, not the start of another code.
  return value.replace(/%%(\d{3}|[dDpPcC%uUoOkK])/g, (_, code: string) => {
    if (/^\d{3}$/.test(code)) return String.fromCharCode(Number(code));
    return SPECIAL[code.toLowerCase()] ?? '';
  });
}

/** The paragraphs an MText shows, formatting codes removed (`\P` breaks a paragraph). */
function mtextParagraphs(value: string): string[] {
  const plain = value
    .replace(/\\[Pp]/g, '\n')
    .replace(/\\[~]/g, ' ')
    .replace(/\\[ACcFfHhQqTtWp][^;]*;/g, '')
    .replace(/\\S([^;]*);/g, (_, stack: string) => stack.replace(/[#^/]/, ''))
    .replace(/\\[LlOoKkNX]/g, '')
    .replace(/\\([\\{}])/g, '$1')
    .replace(/(?<!\\)[{}]/g, '');
  return plain.split(/\r?\n/);
}

/** A Text's alignment point (group code 11): `align_point`, or an unmodeled 11 tag of an older model. */
export function alignPoint(e: TextEntity): Point3 | undefined {
  return e.align_point ?? extraPoint(e.extra, 11);
}

export function textLayout(e: TextEntity): TextLayout {
  const horizontal = extraNumber(e.extra, 72) ?? 0;
  const vertical = extraNumber(e.extra, 73) ?? 0;
  const second = alignPoint(e);
  const aligned = horizontal === 3 || horizontal === 5;
  // For justified text the second point (11) is the authoritative anchor; the position is derived from it.
  const justified = !aligned && (horizontal !== 0 || vertical !== 0) && second !== undefined;
  const anchor = justified && second ? second : e.position;
  const widthFactor = extraNumber(e.extra, 41) ?? 1;
  const width =
    aligned && second
      ? hypot2(second[0] - e.position[0], second[1] - e.position[1])
      : textWidth(textCharacters(e.value).replace(/[\r\n]/g, '')) * e.height * Math.abs(widthFactor || 1);
  const along = !justified ? 0 : horizontal === 2 ? 1 : horizontal === 1 || horizontal === 4 ? 0.5 : 0;
  const above = !justified
    ? 0
    : horizontal === 4 || vertical === 2
      ? e.height / 2
      : vertical === 3
        ? e.height
        : 0;
  const flags = extraNumber(e.extra, 71) ?? 0;
  const [cos, sin] = cosSinDeg(e.rotation);
  const dir: Vec2 = flags & 2 ? [-cos, -sin] : [cos, sin];
  const up: Vec2 = flags & 4 ? [sin, -cos] : [-sin, cos];
  const origin: Point3 = [
    anchor[0] - along * width * dir[0] - above * up[0],
    anchor[1] - along * width * dir[1] - above * up[1],
    anchor[2],
  ];
  return { origin, dir, up, width, height: e.height, anchor, along, above, aligned };
}

/** Reading direction of an MText: its x-axis vector (11) when present, else its rotation. */
export function mtextDirection(e: MTextEntity): Vec2 {
  const axis = extraPoint(e.extra, 11);
  if (axis) {
    const length = hypot2(axis[0], axis[1]);
    if (length > 0) return [axis[0] / length, axis[1] / length];
  }
  return cosSinDeg(e.rotation);
}

/**
 * How far a bottom-attached MText's last baseline stands above its attachment point, in text heights: the
 * point is at the bottom of the line's descenders, not on its baseline (as ezdxf's drawing add-on sets
 * it). The depth is the drawn font's: Helvetica's descender over its capitals' height (AFM 207 / 718);
 * DejaVu Sans, where Helvetica is missing, has 0.285.
 */
const MTEXT_DESCENT = 207 / 718;

/** Text heights from a MText's attachment point up to its box's bottom (its last baseline). */
export function mtextLift(attachment: number): number {
  return attachmentFractions(attachment).upFraction === 0 ? MTEXT_DESCENT : 0;
}

/** Fractions of the MText box at its attachment point: 1-9 = top-left ... bottom-right. */
export function attachmentFractions(attachment: number): { along: number; upFraction: number } {
  const a = Number.isInteger(attachment) && attachment >= 1 && attachment <= 9 ? attachment : 1;
  const column = (a - 1) % 3;
  const row = Math.floor((a - 1) / 3);
  return { along: column / 2, upFraction: 1 - row / 2 };
}

/**
 * The lines an MText is drawn in: its paragraphs, wrapped between words where a line's ink would pass its
 * reference width (a word longer than that stands on a line of its own), as ezdxf's drawing add-on
 * measures a line.
 */
export function mtextLines(e: MTextEntity): string[] {
  const lines: string[] = [];
  const limit = e.width > 0 && e.height > 0 ? e.width / e.height : Infinity;
  for (const paragraph of mtextParagraphs(e.value)) {
    let line = '';
    for (const word of paragraph.split(/(\s+)/)) {
      if (line !== '' && inkWidth((line + word).trimEnd()) > limit) {
        lines.push(line.trimEnd());
        line = word.trimStart();
      } else line += word;
    }
    lines.push(line.trimEnd());
  }
  return lines;
}

function mtextBox(e: MTextEntity): TextBox {
  const lines = mtextLines(e);
  const longest = Math.max(0, ...lines.map(textWidth));
  const width = e.width > 0 ? e.width : longest * e.height;
  const height = e.height * (1 + (Math.max(lines.length, 1) - 1) * MTEXT_LINE_SPACING);
  const dir = mtextDirection(e);
  const up: Vec2 = [-dir[1], dir[0]];
  const { along, upFraction } = attachmentFractions(e.attachment);
  const below = upFraction * height - mtextLift(e.attachment) * e.height;
  const origin: Point3 = [
    e.position[0] - along * width * dir[0] - below * up[0],
    e.position[1] - along * width * dir[1] - below * up[1],
    e.position[2],
  ];
  return { origin, dir, up, width, height };
}

export function textBox(e: TextEntity | MTextEntity): TextBox {
  return e.type === 'Text' ? textLayout(e) : mtextBox(e);
}

/** Corners in order: lower-left, lower-right, upper-right, upper-left (as drawn). */
export function boxCorners(box: TextBox): [Point3, Point3, Point3, Point3] {
  const [ox, oy, z] = box.origin;
  const wx = box.dir[0] * box.width;
  const wy = box.dir[1] * box.width;
  const hx = box.up[0] * box.height;
  const hy = box.up[1] * box.height;
  return [
    [ox, oy, z],
    [ox + wx, oy + wy, z],
    [ox + wx + hx, oy + wy + hy, z],
    [ox + hx, oy + hy, z],
  ];
}
