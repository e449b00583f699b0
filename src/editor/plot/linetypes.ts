/**
 * Linetype dash patterns from the drawing's LTYPE table, for plotting: the dash (positive), gap
 * (negative) and dot (0) lengths of each element, in drawing units at a linetype scale of 1.
 * Complex elements (text or shapes in a line, group code 74 not 0) are drawn as their plain dash or gap.
 */
import type { DxfDocumentModel } from '../model.js';

/** Every linetype with a dash pattern, by upper-case name. */
export function linetypePatterns(model: DxfDocumentModel): Map<string, number[]> {
  const patterns = new Map<string, number[]>();
  for (const record of model.tables.LTYPE ?? []) {
    const name = record.tags.find((t) => t.code === 2)?.value;
    if (!name) continue;
    const lengths = record.tags
      .filter((t) => t.code === 49)
      .map((t) => Number(t.value))
      .filter(Number.isFinite);
    // A pattern needs a gap to be more than a solid line.
    if (lengths.some((l) => l < 0)) patterns.set(name.toUpperCase(), lengths);
  }
  return patterns;
}

/** $LTSCALE, the drawing's global linetype scale (1 when absent or not a positive number). */
export function globalLinetypeScale(model: DxfDocumentModel): number {
  const value = Number(model.header.$LTSCALE?.[0]?.value);
  return Number.isFinite(value) && value > 0 ? value : 1;
}
