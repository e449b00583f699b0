/**
 * Where a plot puts the drawing on the sheet: paper size and orientation, scale (fixed or fitted) and
 * placement (centred or at the printable area's lower-left corner), from a layout's page setup. Pure.
 */
import type { Bounds } from '../geometry/index.js';
import type { PageSetup } from '../model.js';
import { findPaper, type Orientation, type PaperUnits } from '../paper.js';

/** A printer's usual unprintable border, in millimetres, on every side of the sheet. */
export const PRINT_MARGIN_MM = 5;
const MM_PER_INCH = 25.4;

/** The page setup a layout without a usable one plots with: ISO A4 landscape, scaled to fit, centred. */
export const DEFAULT_PLOT_SETUP: PageSetup = {
  paper: 'ISO_A4_(210.00_x_297.00_MM)',
  orientation: 'landscape',
  fit: true,
  center: true,
  scale: [1, 1],
};

export interface Placement {
  /** `ISO A4`, `ANSI A`, or `custom 500 x 300 mm` for a size no standard sheet has. */
  paper: string;
  orientation: Orientation;
  /** The sheet as laid out, in millimetres. */
  page: { width: number; height: number; units: 'mm' };
  /** Millimetres on paper per drawing unit. */
  factor: number;
  /** The scale as `paper:drawing` in the paper's units (ISO sheets mm, ANSI sheets inches), e.g. `1:50`. */
  scale: string;
  fit: boolean;
  center: boolean;
  /** Whether the page setup was the layout's own or the default (the layout had no paper it names). */
  defaulted: boolean;
  /** Drawing coordinates to page millimetres, origin at the top-left corner and y down (as SVG and PDF draw). */
  toPage(x: number, y: number): [number, number];
}

interface Sheet {
  name: string;
  units: PaperUnits;
  /** Portrait millimetres. */
  width: number;
  height: number;
}

/** The sheet a page setup names: a known paper, else the size it stores; undefined when neither. */
function sheetOf(setup: PageSetup): Sheet | undefined {
  const paper = findPaper(setup.paper);
  if (paper) return { name: paper.name, units: paper.units, width: paper.mm.width, height: paper.mm.height };
  const [a, b] = setup.size ?? [];
  if (!(typeof a === 'number' && a > 0 && typeof b === 'number' && b > 0)) return undefined;
  const [width, height] = a <= b ? [a, b] : [b, a];
  return { name: `custom ${round(width)} x ${round(height)} mm`, units: 'mm', width, height };
}

const round = (x: number, digits = 6) => Number(x.toPrecision(digits));

/** `1:12.5`, `2:1`: paper units per drawing unit as a ratio with its smaller side 1. */
function ratioText(paperPerDrawing: number): string {
  return paperPerDrawing >= 1 ? `${round(paperPerDrawing)}:1` : `1:${round(1 / paperPerDrawing)}`;
}

/**
 * The placement of `area` (drawing coordinates: the plotted window, or the extents of what is drawn) by
 * `setup`. Fit scales the area to the printable area (the sheet less PRINT_MARGIN_MM all round); a fixed
 * scale of `[paper, drawing]` counts paper in the sheet's units. Centred puts the area's middle on the
 * printable area's; otherwise `origin` (default: the area's lower-left corner) goes to the printable
 * area's lower-left corner.
 */
export function placePlot(
  layoutSetup: PageSetup | undefined,
  area: Bounds,
  origin: readonly [number, number] = [area.min[0], area.min[1]],
): Placement {
  const own = layoutSetup && sheetOf(layoutSetup);
  const setup = own && layoutSetup ? layoutSetup : DEFAULT_PLOT_SETUP;
  const sheet = own ?? (sheetOf(DEFAULT_PLOT_SETUP) as Sheet);
  const orientation: Orientation = setup.orientation === 'portrait' ? 'portrait' : 'landscape';
  const page =
    orientation === 'landscape'
      ? { width: sheet.height, height: sheet.width }
      : { width: sheet.width, height: sheet.height };
  const printable = {
    width: Math.max(page.width - 2 * PRINT_MARGIN_MM, 1),
    height: Math.max(page.height - 2 * PRINT_MARGIN_MM, 1),
  };
  const unitMm = sheet.units === 'in' ? MM_PER_INCH : 1;
  const areaWidth = area.max[0] - area.min[0];
  const areaHeight = area.max[1] - area.min[1];
  let factor: number;
  if (setup.fit) {
    const candidates = [
      areaWidth > 0 ? printable.width / areaWidth : Infinity,
      areaHeight > 0 ? printable.height / areaHeight : Infinity,
    ];
    factor = Math.min(...candidates);
    // A lone point (no width, no height) has nothing to fit: one paper unit per drawing unit.
    if (!Number.isFinite(factor)) factor = unitMm;
  } else {
    const [paperSide, drawingSide] = setup.scale;
    factor = paperSide > 0 && drawingSide > 0 ? (paperSide / drawingSide) * unitMm : unitMm;
  }
  // The point of the drawing that lands on the printable area's reference point (y up from the sheet's bottom).
  const [refX, refY, atX, atY] = setup.center
    ? [(area.min[0] + area.max[0]) / 2, (area.min[1] + area.max[1]) / 2, page.width / 2, page.height / 2]
    : [origin[0], origin[1], PRINT_MARGIN_MM, PRINT_MARGIN_MM];
  return {
    paper: sheet.name,
    orientation,
    page: { width: round(page.width), height: round(page.height), units: 'mm' },
    factor,
    scale: ratioText(factor / unitMm),
    fit: setup.fit,
    center: setup.center,
    defaulted: !own,
    toPage: (x, y) => [atX + (x - refX) * factor, page.height - (atY + (y - refY) * factor)],
  };
}

/** Whether two boxes overlap (touching counts), in the XY plane. */
export function overlaps(a: Bounds, b: Bounds): boolean {
  return a.min[0] <= b.max[0] && b.min[0] <= a.max[0] && a.min[1] <= b.max[1] && b.min[1] <= a.max[1];
}

/** A box of drawing coordinates as page millimetres (y down), for clipping and for the sheet test. */
export function pageBox(placement: Placement, b: Bounds): Bounds {
  const [x1, y1] = placement.toPage(b.min[0], b.min[1]);
  const [x2, y2] = placement.toPage(b.max[0], b.max[1]);
  return {
    min: [Math.min(x1, x2), Math.min(y1, y2), 0],
    max: [Math.max(x1, x2), Math.max(y1, y2), 0],
  };
}
