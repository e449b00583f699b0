/**
 * MINSERT: an INSERT with a grid of columns (70) and rows (71) at column (44) and row (45) spacing, kept
 * among the Insert's unmodeled tags. The grid lies in the reference's own frame: a cell's offset from the
 * insertion point is (column · column spacing, row · row spacing) turned by the reference's rotation and
 * not scaled (DXF's definition, and ezdxf's `multi_insert`).
 */
import type { DxfTag, InsertEntity, Point3 } from '../model.js';
import { extraNumber, withExtraValue } from './extra.js';
import { cosSinDeg } from './math.js';
import type { Similarity } from './matrix.js';

interface Grid {
  columns: number;
  rows: number;
  column_spacing: number;
  row_spacing: number;
}

/** The grid of a MINSERT; undefined for a plain INSERT (one column, one row). */
export function insertGrid(e: InsertEntity): Grid | undefined {
  const columns = Math.max(1, Math.trunc(extraNumber(e.extra, 70) ?? 1));
  const rows = Math.max(1, Math.trunc(extraNumber(e.extra, 71) ?? 1));
  if (columns === 1 && rows === 1) return undefined;
  return {
    columns,
    rows,
    column_spacing: extraNumber(e.extra, 44) ?? 0,
    row_spacing: extraNumber(e.extra, 45) ?? 0,
  };
}

/**
 * The offsets of the grid's cells from the insertion point, in world x and y, row by row; cells that fall
 * on one another (a spacing of 0) once. A plain INSERT has the one offset (0, 0).
 */
export function gridOffsets(e: InsertEntity): Point3[] {
  const grid = insertGrid(e);
  if (!grid) return [[0, 0, 0]];
  const [cos, sin] = cosSinDeg(e.rotation);
  const seen = new Set<string>();
  const out: Point3[] = [];
  for (let row = 0; row < grid.rows; row++) {
    for (let column = 0; column < grid.columns; column++) {
      const x = column * grid.column_spacing;
      const y = row * grid.row_spacing;
      const key = `${x},${y}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push([x * cos - y * sin, x * sin + y * cos, 0]);
    }
  }
  return out;
}

/**
 * The grid's spacing after a similarity: lengths scale with it; a mirror, which chronicle writes as a
 * negative x scale with the rotation turned to the mirrored x axis's opposite, runs the columns the other
 * way, so the column spacing changes sign and the rows keep theirs.
 */
export function transformGridTags(e: InsertEntity, sim: Similarity): DxfTag[] | undefined {
  const grid = insertGrid(e);
  if (!grid || !e.extra) return e.extra;
  const column = grid.column_spacing * sim.scale * (sim.reflect ? -1 : 1);
  const row = grid.row_spacing * sim.scale;
  let extra = e.extra;
  if (column !== grid.column_spacing) extra = withExtraValue(extra, 44, column);
  if (row !== grid.row_spacing) extra = withExtraValue(extra, 45, row);
  return extra;
}
