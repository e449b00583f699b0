#!/usr/bin/env node
/**
 * Writes src/editor/geometry/dejavu-sans-advances.ts: DejaVu Sans's advance widths and right side bearings
 * and its capitals' height, the font capture draws text in (and ezdxf's matplotlib drawing add-on, the
 * corpus tests' oracle), read from the installed font file by fontkit.
 *
 *     node scripts/text-advances.mjs [font file]      (default /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf)
 *
 * The table keeps the characters the font has from U+0020 to U+05FF (Latin, IPA, Greek, Cyrillic,
 * Armenian, Hebrew) and U+2000 to U+23FF (punctuation, super- and subscripts, currency, letterlike,
 * number forms, arrows, mathematical operators, technical), as runs of consecutive code points.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as fontkit from 'fontkit';

const file = process.argv[2] ?? '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
const out = fileURLToPath(new URL('../src/editor/geometry/dejavu-sans-advances.ts', import.meta.url));
const font = fontkit.openSync(file);
const kept = (c) => (c >= 0x20 && c < 0x600) || (c >= 0x2000 && c < 0x2400);
const codes = [...font.characterSet].filter(kept).sort((a, b) => a - b);
const runs = [];
for (const code of codes) {
  const glyph = font.glyphForCodePoint(code);
  const advance = glyph.advanceWidth;
  // Ink to the right of the advance is no bearing of the line's end (an italic overhang): none.
  const bearing = glyph.bbox.maxX > glyph.bbox.minX ? Math.max(0, advance - glyph.bbox.maxX) : advance;
  const last = runs.at(-1);
  if (last && last.first + last.advances.length === code) {
    last.advances.push(advance);
    last.bearings.push(bearing);
  } else runs.push({ first: code, advances: [advance], bearings: [bearing] });
}
// CAD text height is the height of a capital: the top of X over the baseline.
const capHeight = font.glyphForCodePoint(0x58).bbox.maxY;
const version = String(font.version).replace(/^Version\s+/i, '');
const hex = (c) => `0x${c.toString(16).padStart(4, '0')}`;
const body = runs
  .map((r) => `  [${hex(r.first)}, [${r.advances.join(', ')}], [${r.bearings.join(', ')}]],`)
  .join('\n');
writeFileSync(
  out,
  `/**
 * Advance widths of ${font.familyName} ${version} (${file.split('/').at(-1)}, ${font.unitsPerEm} units an em), written by
 * scripts/text-advances.mjs from the font file: regenerate, do not edit. ${codes.length} characters from U+0020
 * to U+05FF and U+2000 to U+23FF, as runs of consecutive code points: [first code point, advances, right
 * side bearings (the blank between a glyph's ink and its advance; a blank glyph's whole advance)].
 */
export const UNITS_PER_EM = ${font.unitsPerEm};
/** The height of its capitals (the top of X), in the same units: what a CAD text height measures. */
export const CAP_HEIGHT_UNITS = ${capHeight};
/** The font's average advance (its OS/2 table's xAvgCharWidth), for a character the table lacks. */
export const AVERAGE_ADVANCE = ${font['OS/2'].xAvgCharWidth};
export const ADVANCE_RUNS: ReadonlyArray<readonly [number, readonly number[], readonly number[]]> = [
${body}
];
`,
);
// In the repository's format, so a regenerated table differs only where the font does.
execFileSync('npx', ['biome', 'format', '--write', out], { stdio: 'ignore' });
console.log(`${out}: ${codes.length} characters in ${runs.length} runs`);
