import { unlink } from 'node:fs/promises';
import { extname } from 'node:path';
import type { DocumentState } from '../../../projections/editor-session.js';
import { editorEvent } from '../../../streams/editor.js';
import { EditorError, fail } from '../errors.js';
import { refuseLargeSpaces } from '../expansion.js';
import type { Bounds } from '../geometry/index.js';
import { unionBounds } from '../geometry/shape.js';
import type { Layout, PageSetup } from '../model.js';
import { named } from '../names.js';
import { refuseExisting, type WrittenFile, writeOutputFile } from '../output-file.js';
import { findPaper, parseOrientation, parsePaper, parseScale } from '../paper.js';
import { readPlotImages } from '../plot/images.js';
import { type PageMark, pageMarksSliced } from '../plot/marks.js';
import { DEFAULT_PLOT_SETUP, overlaps, type Placement, pageBox, placePlot } from '../plot/page.js';
import { plotPdfPages } from '../plot/pdf.js';
import { plotSceneSliced } from '../plot/scene.js';
import { plotSvg } from '../plot/svg.js';
import { slices, type Tick } from '../slices.js';
import { pathArgument } from './documents.js';
import { MODEL_SPACE } from './entities.js';
import { windowArea } from './interaction.js';
import { docOf, everyRequest, type OpContext, type OpGroup, type OpOutcome } from './types.js';

type PlotFormat = 'pdf' | 'svg';
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

/** The layout named `value` (case-insensitive); `layout_missing` naming the layouts there are otherwise. */
export function layoutOf(layouts: Record<string, Layout>, value: unknown): Layout {
  if (typeof value !== 'string' || value.trim() === '')
    return fail('layout_missing', `layout must be a layout name, got ${JSON.stringify(value)}`);
  const layout = named(layouts, value);
  if (!layout) {
    const names = Object.values(layouts)
      .sort((a, b) => a.tab_order - b.tab_order)
      .map((l) => l.name);
    return fail('layout_missing', `no layout named ${JSON.stringify(value)}; layouts: ${names.join(', ')}`);
  }
  return layout;
}

/** The page setup of a plot: the layout's, with the request's `paper`, `orientation`, `fit`, `scale`, `center` over it. */
function setupOf(stored: PageSetup | undefined, r: Record<string, unknown>): PageSetup | undefined {
  const given = ['paper', 'orientation', 'fit', 'scale', 'center'].some((k) => r[k] !== undefined);
  if (!given) return stored;
  const base: PageSetup = stored && findPaperOf(stored) ? stored : DEFAULT_PLOT_SETUP;
  const paper = r.paper === undefined ? undefined : parsePaper(r.paper);
  const setup: PageSetup = {
    ...base,
    ...(paper ? { paper: paper.media, size: [paper.mm.width, paper.mm.height] as [number, number] } : {}),
    orientation: r.orientation === undefined ? base.orientation : parseOrientation(r.orientation),
    fit: r.fit === undefined ? base.fit : r.fit === true,
    center: r.center === undefined ? base.center : r.center === true,
    scale: r.scale === undefined ? base.scale : parseScale(r.scale),
  };
  if (r.scale !== undefined && r.fit === undefined) setup.fit = false;
  return setup;
}

const findPaperOf = (setup: PageSetup) => findPaper(setup.paper) ?? (setup.size ? setup : undefined);

/** One sheet of a plot, laid out and drawn (no marks: nothing of the layout prints). */
interface PlotPage {
  layout: Layout | undefined;
  layoutName: string;
  window: Bounds | undefined;
  placement: Placement;
  marks: PageMark[];
  skipped: Record<string, number>;
  clip: Bounds | undefined;
}

/**
 * Lays out and draws one layout (or a model space window). `blank`: a layout with nothing that prints
 * gives a page without marks (a sheet of `layout: "all"`); otherwise that is `nothing_to_plot`.
 */
async function plotPage(
  doc: DocumentState,
  layout: Layout | undefined,
  window: Bounds | undefined,
  r: Record<string, unknown>,
  blank: boolean,
  tick: Tick,
): Promise<PlotPage> {
  const space = layout?.block ?? MODEL_SPACE;
  const layoutName = layout?.name ?? 'Model';
  const scene = await plotSceneSliced(doc.model, space, tick, new Set(), window);
  const inWindow = window ? scene.entities.filter((e) => overlaps(e.bounds, window)) : scene.entities;
  const area = window ?? unionBounds(inWindow.map((e) => e.bounds));
  const where = window ? `window ${JSON.stringify(r.window)} of model space` : `layout ${layoutName}`;
  const setup = setupOf(layout?.page_setup, r);
  const page = (placement: Placement, marks: PageMark[]): PlotPage => ({
    layout,
    layoutName,
    window,
    placement,
    marks,
    skipped: scene.skipped,
    clip: window && pageBox(placement, window),
  });
  if (!area || inWindow.length === 0) {
    if (blank) return page(placePlot(setup, { min: [0, 0, 0], max: [1, 1, 0] }), []);
    const skipped = Object.entries(scene.skipped).map(([type, n]) => `${n} ${type}`);
    return fail(
      'nothing_to_plot',
      `nothing to plot in ${where}: no entity that prints is there (layers off, frozen or not plotted are left out${skipped.length ? `; not drawable: ${skipped.join(', ')}` : ''})`,
    );
  }
  // Paper space is drawn in paper units: at a fixed scale its origin is the sheet's (printable) corner, as
  // AutoCAD plots a layout; model space and windows start at what is plotted.
  const paperSpace = !window && space.toUpperCase() !== MODEL_SPACE.toUpperCase();
  const placement = placePlot(setup, area, paperSpace ? [0, 0] : undefined);
  const marks = await pageMarksSliced(scene, placement, tick, window);
  if (marks.length === 0 && !blank) {
    return fail(
      'nothing_to_plot',
      `nothing of ${where} falls on the ${placement.paper} ${placement.orientation} sheet at ${placement.scale}; set the page setup to fit (page_setup_set fit: true) or another scale`,
    );
  }
  return page(placement, marks);
}

/** The bytes of `pages` in `format`: a PDF of one page per sheet, or the SVG of one sheet. */
async function plotBytes(
  doc: DocumentState,
  pages: readonly PlotPage[],
  format: PlotFormat,
  tick: Tick,
): Promise<Buffer> {
  const title =
    pages.length === 1 ? `${doc.title} - ${pages[0]?.window ? 'window' : pages[0]?.layoutName}` : doc.title;
  const images = await readPlotImages(
    pages.flatMap((p) => p.marks),
    doc.path,
  );
  const what = pages.map((p) => (p.window ? 'a window of model space' : `layout ${p.layoutName}`)).join(', ');
  try {
    if (format === 'pdf') {
      return await plotPdfPages(
        pages.map((p) => ({ marks: p.marks, placement: p.placement, ...(p.clip ? { clip: p.clip } : {}) })),
        { title, images, tick },
      );
    }
    const [only] = pages as [PlotPage];
    return Buffer.from(
      plotSvg(only.marks, only.placement, { title, images, ...(only.clip ? { clip: only.clip } : {}) }),
      'utf8',
    );
  } catch (error) {
    if (error instanceof EditorError) throw error;
    return fail(
      'plot_failed',
      `cannot draw the ${format.toUpperCase()} of ${what}: ${(error as Error).message}`,
    );
  }
}

/** What the answer says of one plotted sheet. */
function pageResult(page: PlotPage) {
  const { placement } = page;
  return {
    layout: page.window ? null : page.layoutName,
    page: placement.page,
    paper: placement.paper,
    orientation: placement.orientation,
    scale: placement.scale,
    fit: placement.fit,
    center: placement.center,
    page_setup: placement.defaulted ? 'default' : 'layout',
    entities: page.marks.length,
    skipped: page.skipped,
  };
}

const plotWritten = (
  doc: DocumentState,
  path: string,
  format: PlotFormat,
  file: WrittenFile,
  entities: number,
  layout: string | null,
  window: PlotWindow | null,
) =>
  editorEvent('PlotWritten', {
    document_id: doc.id,
    path,
    format,
    bytes: file.bytes,
    sha256: file.sha256,
    entities,
    layout,
    window,
  });

type PlotWindow = [number, number, number, number];

/** `<stem>-<layout>.<ext>` beside `path`: the file of one sheet of a per-page plot. */
function perPagePath(path: string, layout: string, format: PlotFormat): string {
  const ext = extname(path);
  const stem = ext.toLowerCase() === `.${format}` ? path.slice(0, -ext.length) : path;
  return `${stem}-${layout.replace(/[^\p{L}\p{N}_-]/gu, '_')}.${format}`;
}

/**
 * `plot`: a layout (default `Model`), every layout (`layout: "all"`), or a `window` [x1, y1, x2, y2] of
 * model space, to a PDF or SVG file.
 *
 * Body: `path` (required; relative to the service's working directory), `format` (`pdf` | `svg`; default:
 * the path's extension), `layout` (a layout name, or `all`) or `window` (model space, plotted with the
 * Model layout's page setup), `per_page` (one file per layout, `<path stem>-<layout>.<ext>`, listed in
 * `files`), `overwrite` (replace existing files; `file_exists` otherwise), and `paper`, `orientation`,
 * `fit`, `scale`, `center` to plot with other settings than the layout's page setup.
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
 * A plot with nothing on the sheet is refused (`nothing_to_plot`) rather than written blank; with
 * `layout: "all"` a layout without anything that prints is a blank sheet (its `entities` is 0), and only
 * a drawing where no layout prints anything is refused. Every file is recorded (PlotWritten); the
 * document does not change, so it is no undo step.
 */
async function plot(ctx: OpContext): Promise<OpOutcome> {
  const doc = docOf(ctx);
  const r = ctx.request;
  const path = pathArgument(r.path);
  const format = formatOf(r.format, path);
  const all = typeof r.layout === 'string' && r.layout.trim().toLowerCase() === 'all';
  if (r.window !== undefined && r.layout !== undefined && String(r.layout).toUpperCase() !== 'MODEL') {
    fail('invalid_request', 'window plots model space: leave layout out (or give "Model") with a window');
  }
  const window = r.window === undefined ? undefined : windowArea(r.window);
  const layouts = all
    ? Object.values(doc.model.layouts).sort((a, b) => a.tab_order - b.tab_order)
    : [
        r.layout === undefined
          ? Object.values(doc.model.layouts).find((l) => l.block.toUpperCase() === MODEL_SPACE.toUpperCase())
          : layoutOf(doc.model.layouts, r.layout),
      ];
  refuseLargeSpaces(
    doc.model,
    window ? [MODEL_SPACE] : layouts.map((layout) => layout?.block ?? MODEL_SPACE),
    'the plot',
  );
  // Seconds of work at 100,000 entities: in slices, so others are answered meanwhile and cancel stops it.
  const tick = slices('the plot', ctx.signal);
  const pages: PlotPage[] = [];
  for (const layout of layouts) pages.push(await plotPage(doc, layout, window, r, all, tick));
  if (all && pages.every((p) => p.marks.length === 0)) {
    fail('nothing_to_plot', 'nothing to plot in any layout: no entity that prints is in any of them');
  }
  const perPage = r.per_page === true;
  if (!perPage && pages.length > 1 && format !== 'pdf') {
    fail('invalid_format', 'an SVG holds one sheet: plot every layout to a PDF, or with per_page: true');
  }
  const pageSizes = pages.map((p) => [p.placement.page.width, p.placement.page.height]);
  const windowOfResult = window
    ? ([window.min[0], window.min[1], window.max[0], window.max[1]] as PlotWindow)
    : null;
  if (!perPage) {
    await refuseExisting(path, r.overwrite);
    const written = await writeOutputFile(path, await plotBytes(doc, pages, format, tick), 'plot_failed');
    const entities = pages.reduce((n, p) => n + p.marks.length, 0);
    const first = pages[0] as PlotPage;
    const result = {
      path,
      format,
      ...pageResult(first),
      ...(all ? { layout: 'all', layouts: pages.map(pageResult) } : {}),
      window: windowOfResult,
      entities,
      pages: pages.length,
      page_sizes: pageSizes,
      bytes: written.bytes,
    };
    return {
      events: [
        plotWritten(doc, path, format, written, entities, all ? 'all' : result.layout, windowOfResult),
      ],
      result,
    };
  }
  // One file per sheet: every name is checked before any file is written, and the files of this plot
  // are removed again when one of them cannot be written.
  const paths = pages.map((p) => perPagePath(path, p.layoutName, format));
  for (const file of paths) await refuseExisting(file, r.overwrite);
  const files: Array<Record<string, unknown>> = [];
  const events = [];
  const done: string[] = [];
  try {
    for (const [i, page] of pages.entries()) {
      const file = paths[i] as string;
      const written = await writeOutputFile(file, await plotBytes(doc, [page], format, tick), 'plot_failed');
      done.push(file);
      files.push({ path: file, ...pageResult(page), bytes: written.bytes });
      events.push(
        plotWritten(
          doc,
          file,
          format,
          written,
          page.marks.length,
          page.window ? null : page.layoutName,
          windowOfResult,
        ),
      );
    }
  } catch (error) {
    await Promise.all(done.map((file) => unlink(file).catch(() => undefined)));
    throw error;
  }
  return { events, result: { files, pages: files.length, page_sizes: pageSizes, format } };
}

export const plotOps = {
  plot: { kind: 'mutation', document: 'required', run: plot, files: everyRequest, cancellable: true },
} satisfies OpGroup;
