/**
 * TOLERANCE (a feature control frame, AcDbFcf; kept as read: its tags): its dimension style (3), its
 * insertion point (10, world), its content (1: rows split by `^J`, cells by `%%v`, a GDT symbol written
 * `{\Fgdt;X}`), its x axis (11, world) and extrusion (210).
 *
 * Drawn, bounded and queried as its frames and their text, sized by its dimension style: the text
 * DIMTXT × DIMSCALE high (times the length of its x axis, which a scale transform leaves there), each row
 * twice that high, starting at the insertion point (the middle of the first row's left side) and running
 * along the x axis; a symbol cell is square and shows its symbol's letter (the GDT font is not at hand),
 * a text cell is its text's width plus half a text height each side; empty cells are left out.
 *
 * Moved as ezdxf's `Tolerance.transform` does: the insertion point by the matrix, the x axis as a
 * direction (not made unit), the extrusion as the transformed plane's normal.
 */
import type { DxfTag, Entity, Point3, RawEntity, TextEntity } from '../model.js';
import { applyPoint, applyVector, type Matrix } from './matrix.js';
import { cross, dot, isWorldZ, normalize, ocsTransform, Z_AXIS } from './ocs.js';
import {
  firstAt,
  firstPoint,
  outlineOf,
  pointTags,
  standInCommon,
  subclassEnd,
  subclassStart,
  TagEditor,
} from './raw-tags.js';
import { textCharacters, textWidth } from './text-box.js';

export const isToleranceType = (dxfType: string) => dxfType.toUpperCase() === 'TOLERANCE';

/** The sizes a dimension style gives annotation: text height, overall scale and gap. */
export interface DimSizes {
  dimtxt: number;
  dimscale: number;
  dimgap: number;
}

export const DEFAULT_DIM_SIZES: DimSizes = { dimtxt: 0.18, dimscale: 1, dimgap: 0.09 };

interface ToleranceFields {
  style: string;
  insert: Point3;
  content: string;
  xAxis: Point3;
  extrusion: Point3;
}

function fieldsOf(e: RawEntity): ToleranceFields {
  const tags = e.tags;
  const from = subclassStart(tags, 'AcDbFcf');
  const to = subclassEnd(tags, from);
  const text = (code: number) => {
    const at = firstAt(tags, code, from, to);
    return at < 0 ? undefined : (tags[at] as DxfTag).value;
  };
  return {
    style: text(3)?.trim() || 'Standard',
    insert: firstPoint(tags, 10, from, to) ?? [0, 0, 0],
    content: text(1) ?? '',
    xAxis: firstPoint(tags, 11, from, to) ?? [1, 0, 0],
    extrusion: firstPoint(tags, 210, from, to) ?? Z_AXIS,
  };
}

/** A cell of a row: a GDT symbol's letter, or text. */
interface Cell {
  symbol: boolean;
  text: string;
}

/** The rows of the content, each its non-empty cells. */
export function toleranceRows(content: string): Cell[][] {
  return content.split(/\^J/).map((row) =>
    row
      .split(/%%v/i)
      .filter((cell) => cell !== '')
      .map((cell): Cell => {
        const symbol = /^\{\\Fgdt;(.*)\}$/i.exec(cell);
        return symbol
          ? { symbol: true, text: symbol[1] ?? '' }
          : { symbol: false, text: cell.replace(/\{\\Fgdt;(.*?)\}/gi, '$1') };
      }),
  );
}

const along = (p: Point3, v: Point3, s: number): Point3 => [
  p[0] + v[0] * s,
  p[1] + v[1] * s,
  p[2] + v[2] * s,
];

/** Its frames (closed polylines, one a cell) and their texts, in the world. */
export function toleranceStandIns(e: RawEntity, sizes: DimSizes = DEFAULT_DIM_SIZES): Entity[] {
  const f = fieldsOf(e);
  const k = Math.sqrt(dot(f.xAxis, f.xAxis));
  if (k === 0) return [];
  const ux = normalize(f.xAxis);
  const uy = normalize(cross(normalize(f.extrusion), ux));
  const h = sizes.dimtxt * (sizes.dimscale > 0 ? sizes.dimscale : 1) * k;
  if (!(h > 0)) return [];
  const row = 2 * h;
  const common = standInCommon(e);
  const rotation = (Math.atan2(ux[1], ux[0]) * 180) / Math.PI;
  const out: Entity[] = [];
  toleranceRows(f.content).forEach((cells, r) => {
    const top = along(f.insert, uy, h - r * row);
    let x = 0;
    for (const cell of cells) {
      const width = cell.symbol ? row : textWidth(textCharacters(cell.text)) * h + h;
      const corners = [
        along(top, ux, x),
        along(top, ux, x + width),
        along(along(top, ux, x + width), uy, -row),
        along(along(top, ux, x), uy, -row),
      ];
      out.push(outlineOf(e, corners));
      if (cell.text !== '') {
        const inset = cell.symbol ? (row - textWidth(cell.text) * h) / 2 : h / 2;
        const text: TextEntity = {
          type: 'Text',
          ...common,
          value: cell.text,
          position: along(along(top, ux, x + inset), uy, -1.5 * h),
          height: h,
          rotation,
          style: 'Standard',
        };
        out.push(text);
      }
      x += width;
    }
  });
  return out;
}

/** The TOLERANCE's tags carried by `m`, as ezdxf's `Tolerance.transform` does. */
export function transformTolerance(e: RawEntity, m: Matrix): RawEntity {
  const ed = new TagEditor(e.tags);
  const tags = ed.tags;
  const from = subclassStart(tags, 'AcDbFcf');
  const to = subclassEnd(tags, from);
  const f = fieldsOf(e);
  const at = (code: number) => firstAt(tags, code, from, to);
  const insertAt = at(10);
  if (insertAt >= 0) ed.setPoint(insertAt, applyPoint(m, f.insert));
  const axis = applyVector(m, f.xAxis);
  const extrusion = ocsTransform(f.extrusion, m).extrusion;
  const extra: DxfTag[] = [];
  const set = (code: number, p: Point3, writeAbsent: boolean) => {
    const i = at(code);
    if (i >= 0) ed.setPoint(i, p);
    else if (writeAbsent) extra.push(...pointTags(code, p));
  };
  set(11, axis, true);
  set(210, extrusion, !isWorldZ(extrusion));
  if (extra.length > 0) tags.splice(to, 0, ...extra);
  return { ...e, tags };
}

/** A TOLERANCE's readout: its style, insertion point, x axis, extrusion and its rows of cells. */
export function toleranceReadout(e: RawEntity): Record<string, unknown> {
  const f = fieldsOf(e);
  return {
    dimstyle: f.style,
    position: f.insert,
    x_axis: f.xAxis,
    extrusion: f.extrusion,
    rows: toleranceRows(f.content).map((cells) => cells.map((c) => (c.symbol ? { symbol: c.text } : c.text))),
  };
}

export const toleranceStyle = (e: RawEntity) => fieldsOf(e).style;
export const toleranceContent = (e: RawEntity) => fieldsOf(e).content;
