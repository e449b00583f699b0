/**
 * Approximate extents of Text and MText. Without font metrics a character is taken as 0.6 × the text
 * height wide (× the width factor) and a line as one text height tall (MText lines 5/3 apart, AutoCAD's
 * default spacing). Good enough for window selection and for keeping mirrored text in place.
 */
import type { MTextEntity, Point3, TextEntity } from '../model.js';
import { extraNumber, extraPoint } from './extra.js';
import { cosSinDeg, hypot2, type Vec2 } from './math.js';

export const CHAR_WIDTH = 0.6;
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

/** Characters a single-line Text shows: `%%d`, `%%c`, `%%p`, `%%nnn` are one glyph; `%%u`, `%%o`, `%%k` none. */
export function textGlyphs(value: string): number {
  return value
    .replace(/%%[uUoOkK]/g, '')
    .replace(/%%(\d{3}|[dDcCpP%])/g, '#')
    .replace(/[\r\n]/g, '').length;
}

/** The paragraphs an MText shows, formatting codes removed (`\P` breaks a paragraph). */
export function mtextParagraphs(value: string): string[] {
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
      : textGlyphs(e.value) * CHAR_WIDTH * e.height * Math.abs(widthFactor || 1);
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

function mtextBox(e: MTextEntity): TextBox {
  const paragraphs = mtextParagraphs(e.value);
  const charWidth = CHAR_WIDTH * e.height;
  let lines = 0;
  let longest = 0;
  for (const paragraph of paragraphs) {
    const chars = paragraph.length;
    longest = Math.max(longest, chars);
    lines += e.width > 0 ? Math.max(1, Math.ceil((chars * charWidth) / e.width)) : 1;
  }
  const width = e.width > 0 ? e.width : longest * charWidth;
  const height = e.height * (1 + (Math.max(lines, 1) - 1) * MTEXT_LINE_SPACING);
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
