import { extname } from 'node:path';
import { editorEvent } from '../../../streams/editor.js';
import { fail } from '../errors.js';
import type { Bounds } from '../geometry/index.js';
import { unionBounds } from '../geometry/shape.js';
import type { Layout } from '../model.js';
import { refuseExisting, writeOutputFile } from '../output-file.js';
import { readPlotImages } from '../plot/images.js';
import { pageMarks } from '../plot/marks.js';
import { overlaps, pageBox, placePlot } from '../plot/page.js';
import { plotPdf } from '../plot/pdf.js';
import { plotScene } from '../plot/scene.js';
import { plotSvg } from '../plot/svg.js';
import { pathArgument } from './documents.js';
import { MODEL_SPACE } from './entities.js';
import { windowOf } from './interaction.js';
import { docOf, type OpContext, type OpOutcome, type OpTable } from './types.js';

export type PlotFormat = 'pdf' | 'svg';
const FORMATS: readonly PlotFormat[] = ['pdf', 'svg'];

/** `format` as given (case-insensitive), else the path's extension; `invalid_format` when neither names pdf or svg. */
function formatOf(value: unknown, path: string): PlotFormat {
  if (value !== undefined) {
    const given = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
    if (given === 'pdf' || given === 'svg') return given;
    return fail('invalid_format', `format must be "pdf" or "svg", got ${JSON.stringify(value)}`);
  }
  const extension = extname(path).slice(1).toLowerCase();
  if ((FORMATS as readonly string[]).includes(extension)) return extension as PlotFormat;
  return fail(
    'invalid_format',
    `cannot tell the format from ${JSON.stringify(extension ? `.${extension}` : path)}: name the file .pdf or .svg, or give format "pdf" or "svg"`,
  );
}

function layoutOf(layouts: Record<string, Layout>, value: unknown): Layout {
  if (typeof value !== 'string' || value.trim() === '')
    return fail('layout_missing', `layout must be a layout name, got ${JSON.stringify(value)}`);
  const layout = Object.values(layouts).find((l) => l.name.toUpperCase() === value.toUpperCase());
  if (!layout) {
    const names = Object.values(layouts)
      .sort((a, b) => a.tab_order - b.tab_order)
      .map((l) => l.name);
    return fail('layout_missing', `no layout named ${JSON.stringify(value)}; layouts: ${names.join(', ')}`);
  }
  return layout;
}

/** The plotted window in model space: 4 numbers enclosing an area (a line or a point cannot be put on paper). */
function plotWindow(value: unknown): Bounds {
  const [x1, y1, x2, y2] = windowOf(value);
  if (!(x2 > x1 && y2 > y1))
    return fail(
      'invalid_point',
      `window ${JSON.stringify(value)} encloses no area: its corners must differ in x and in y`,
    );
  return { min: [x1, y1, 0], max: [x2, y2, 0] };
}

/**
 * `plot`: a layout (default `Model`), or a `window` [x1, y1, x2, y2] of model space, to a PDF or SVG file.
 *
 * Body: `path` (required; relative to the service's working directory), `format` (`pdf` | `svg`; default:
 * the path's extension), `layout` (a layout name) or `window` (model space, plotted with the Model
 * layout's page setup), `overwrite` (replace an existing file; `file_exists` otherwise).
 *
 * Paper, orientation, scale (or fit) and centring come from the layout's page setup (page_setup_set); a
 * layout whose page setup names no paper plots on ISO A4 landscape, fitted and centred. The plot area is
 * the window, else the extents of what is drawn; not centred, its lower-left corner (a paper space
 * layout's origin, at a fixed scale) sits at the printable area's, 5 mm in from the sheet's corner.
 * Entities print in their ACI colour (7 in black), lineweight and linetype (dashes scaled by $LTSCALE);
 * layers that are off, frozen or not plotted, and Defpoints, are left out. A paper space layout's
 * viewports show model space (plan views) cut at their border, without the layers frozen in them. Images
 * embed their PNG or JPEG file (a relative name is the drawing's folder's); one that cannot be read plots
 * as its frame. Entity types the editor keeps raw (HATCH, SPLINE...) are not drawn: the answer counts them
 * by type in `skipped`. `entities` counts what was drawn; a block reference or a viewport counts once.
 *
 * A plot with nothing on the sheet is refused (`nothing_to_plot`) rather than written blank. The file is
 * recorded (PlotWritten); the document does not change, so it is no undo step.
 */
async function plot(ctx: OpContext): Promise<OpOutcome> {
  const doc = docOf(ctx);
  const r = ctx.request;
  const path = pathArgument(r.path);
  const format = formatOf(r.format, path);
  if (r.window !== undefined && r.layout !== undefined && String(r.layout).toUpperCase() !== 'MODEL') {
    fail('invalid_request', 'window plots model space: leave layout out (or give "Model") with a window');
  }
  const window = r.window === undefined ? undefined : plotWindow(r.window);
  const layout =
    r.layout === undefined
      ? Object.values(doc.model.layouts).find((l) => l.block.toUpperCase() === MODEL_SPACE.toUpperCase())
      : layoutOf(doc.model.layouts, r.layout);
  const space = layout?.block ?? MODEL_SPACE;
  const layoutName = layout?.name ?? 'Model';
  const scene = plotScene(doc.model, space);
  const inWindow = window ? scene.entities.filter((e) => overlaps(e.bounds, window)) : scene.entities;
  const area = window ?? unionBounds(inWindow.map((e) => e.bounds));
  const where = window ? `window ${JSON.stringify(r.window)} of model space` : `layout ${layoutName}`;
  if (!area || inWindow.length === 0) {
    const skipped = Object.entries(scene.skipped).map(([type, n]) => `${n} ${type}`);
    return fail(
      'nothing_to_plot',
      `nothing to plot in ${where}: no entity that prints is there (layers off, frozen or not plotted are left out${skipped.length ? `; not drawable: ${skipped.join(', ')}` : ''})`,
    );
  }
  // Paper space is drawn in paper units: at a fixed scale its origin is the sheet's (printable) corner, as
  // AutoCAD plots a layout; model space and windows start at what is plotted.
  const paperSpace = !window && space.toUpperCase() !== MODEL_SPACE.toUpperCase();
  const placement = placePlot(layout?.page_setup, area, paperSpace ? [0, 0] : undefined);
  const marks = pageMarks(scene, placement, window);
  if (marks.length === 0) {
    return fail(
      'nothing_to_plot',
      `nothing of ${where} falls on the ${placement.paper} ${placement.orientation} sheet at ${placement.scale}; set the page setup to fit (page_setup_set fit: true) or another scale`,
    );
  }
  await refuseExisting(path, r.overwrite);
  const title = `${doc.title} - ${window ? 'window' : layoutName}`;
  const clip = window && pageBox(placement, window);
  const options = { title, clip, images: await readPlotImages(marks, doc.path) };
  let bytes: Buffer;
  try {
    bytes =
      format === 'pdf'
        ? await plotPdf(marks, placement, options)
        : Buffer.from(plotSvg(marks, placement, options), 'utf8');
  } catch (error) {
    return fail(
      'plot_failed',
      `cannot draw the ${format.toUpperCase()} of ${where}: ${(error as Error).message}`,
    );
  }
  const written = await writeOutputFile(path, bytes, 'plot_failed');
  const result = {
    path,
    format,
    layout: window ? null : layoutName,
    window: window
      ? ([window.min[0], window.min[1], window.max[0], window.max[1]] as [number, number, number, number])
      : null,
    page: placement.page,
    paper: placement.paper,
    orientation: placement.orientation,
    scale: placement.scale,
    fit: placement.fit,
    center: placement.center,
    page_setup: placement.defaulted ? 'default' : 'layout',
    entities: marks.length,
    skipped: scene.skipped,
    bytes: written.bytes,
  };
  return {
    events: [
      editorEvent('PlotWritten', {
        document_id: doc.id,
        path,
        format,
        bytes: written.bytes,
        sha256: written.sha256,
        entities: marks.length,
        layout: result.layout,
        window: result.window,
      }),
    ],
    result,
  };
}

export const plotOps: OpTable = {
  plot: { kind: 'mutation', document: 'required', run: plot },
};
