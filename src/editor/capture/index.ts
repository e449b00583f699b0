/**
 * A capture: a PNG of a document's layout (or a window of it) drawn from the plot's scene. The scene is
 * built in slices of a few milliseconds (the event loop keeps answering other callers), kept per document
 * revision and layout (the next capture of an unchanged drawing starts from it), drawn as compact SVG
 * (svg.ts), in slices too, and rasterised by resvg in a worker thread (raster.ts). A cancel (`signal`)
 * stops it at its next slice, or stops the rasteriser.
 */
import type { DocumentState } from '../../../projections/editor-session.js';
import { dictGet } from '../dict.js';
import type { Bounds } from '../geometry/index.js';
import { plotContext } from '../plot/scene.js';
import { documentIndex } from '../query/document-index.js';
import { slices, stopIfCancelled } from '../slices.js';
import { type FlatScene, FlatSceneBuilder, type PieceCache, pieceCache } from './flat-scene.js';
import { rasterize } from './raster.js';
import { type CaptureColors, captureSvg } from './svg.js';
import { type CaptureView, captureView } from './view.js';

export { DEFAULT_WIDTH, MAX_WIDTH, MIN_WIDTH } from './view.js';

/** Longest stretch the scene is built before the loop answers others (ms), as the session's commits do. */
const SLICE_MS = 8;
/** Who a cancelled capture's answer names. */
const WHAT = 'the capture';
/** The model space block, whose window captures are culled with the document's spatial index. */
const MODEL_SPACE = '*MODEL_SPACE';

export interface CaptureRequest {
  /** The layout block drawn (`*Model_Space`, `*Paper_Space0`...). */
  space: string;
  width: number;
  /** The area shown, in the layout's coordinates; default: the extents of what prints. */
  window: Bounds | undefined;
  colors: CaptureColors;
  /** Handles drawn highlighted. */
  selection: readonly string[];
}

interface Capture {
  png: Uint8Array;
  view: CaptureView;
  entities: number;
  dots: number;
  texts: number;
  highlighted: number;
  skipped: Record<string, number>;
  /** Where the time went, in milliseconds: building the scene (0 when kept), the SVG, the rasteriser's parts. */
  ms: { scene: number; svg: number; parse: number; render: number; encode: number };
  /** The scene was the one kept for this revision. */
  cached: boolean;
  /** Entities of a scene built anew taken from the pieces kept for the document. */
  reused: number;
  /** The revision of the document drawn. */
  revision: number;
}

/** The last whole scene of each document: right while its revision and layout are the same. */
const kept = new WeakMap<DocumentState, { revision: number; space: string; scene: FlatScene }>();
/** Each document's entities as scene pieces (flat-scene.ts): a changed drawing redraws only what changed. */
const pieces = new WeakMap<DocumentState, PieceCache>();

const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Attempts at building a scene between mutations before it is built in one go. */
const ATTEMPTS = 3;

/**
 * The scene of `space`: all of it, or (`handles`) only those entities. Built in slices, letting the loop
 * answer others in between; a mutation decided meanwhile (the revision moved) starts it again, since a
 * scene is the document at one revision. The last attempt runs in one go: nothing can come between.
 * (A copy of the model's collections to build from instead costs 0.1 s at 100,000 entities, every time.)
 * A cancel (`signal`) stops it between two slices, or before the last attempt.
 */
async function buildScene(
  doc: DocumentState,
  space: string,
  signal: AbortSignal | undefined,
  handles?: ReadonlySet<string>,
  window?: Bounds,
): Promise<{ scene: FlatScene; revision: number }> {
  for (let attempt = 1; ; attempt++) {
    stopIfCancelled(WHAT, signal);
    const revision = doc.revision;
    const model = doc.model;
    const order = [...model.order];
    const cache = pieceCache(model, pieces.get(doc));
    pieces.set(doc, cache);
    const builder = new FlatSceneBuilder(plotContext(model, space), cache, {
      whole: !handles,
      ...(window ? { rayBox: window } : {}),
    });
    let slice = performance.now();
    let n = 0;
    let moved = false;
    for (const handle of order) {
      if (handles && !handles.has(handle)) continue;
      builder.add(handle, dictGet(model.entities, handle));
      // The clock is read every 64 entities: reading it costs more than most entities do.
      if (attempt < ATTEMPTS && (++n & 63) === 0 && performance.now() - slice > SLICE_MS) {
        await breathe();
        stopIfCancelled(WHAT, signal);
        slice = performance.now();
        if (doc.revision !== revision || doc.model !== model) {
          moved = true;
          break;
        }
      }
    }
    if (!moved) return { scene: builder.finish(), revision };
  }
}

async function sceneOf(
  doc: DocumentState,
  request: CaptureRequest,
  signal: AbortSignal | undefined,
): Promise<{ scene: FlatScene; revision: number; cached: boolean }> {
  const space = request.space.toUpperCase();
  const last = kept.get(doc);
  if (last && last.revision === doc.revision && last.space === space)
    return { scene: last.scene, revision: last.revision, cached: true };
  const window = request.window;
  if (window && space === MODEL_SPACE) {
    // Only what the index finds in the window: a window of a large drawing costs what is in it.
    const found = documentIndex(doc).search({
      minX: window.min[0],
      minY: window.min[1],
      maxX: window.max[0],
      maxY: window.max[1],
    });
    // XLINEs and RAYs have no bounds, so the index has none of them: they are cut at the window.
    const shown = new Set(found);
    for (const handle of doc.model.order) {
      const type = dictGet(doc.model.entities, handle)?.type;
      if (type === 'XLine' || type === 'Ray') shown.add(handle);
    }
    return { ...(await buildScene(doc, space, signal, shown, window)), cached: false };
  }
  const built = await buildScene(doc, space, signal);
  kept.set(doc, { ...built, space });
  return { ...built, cached: false };
}

/** Captures `doc` as `request` asks; `cancelled` once `signal` is aborted. */
export async function captureDocument(
  doc: DocumentState,
  request: CaptureRequest,
  signal?: AbortSignal,
): Promise<Capture> {
  const t0 = performance.now();
  const { scene, revision, cached } = await sceneOf(doc, request, signal);
  const t1 = performance.now();
  const view = captureView(request.width, request.window, scene.extents);
  const drawing = await captureSvg(
    scene,
    view,
    request.colors,
    new Set(request.selection),
    slices(WHAT, signal),
  );
  const t2 = performance.now();
  stopIfCancelled(WHAT, signal);
  const raster = await rasterize(drawing.bytes, drawing.texts > 0, signal);
  return {
    png: raster.png,
    view,
    entities: drawing.entities,
    dots: drawing.dots,
    texts: drawing.texts,
    highlighted: drawing.highlighted,
    skipped: { ...scene.skipped },
    ms: { scene: t1 - t0, svg: t2 - t1, ...raster.ms },
    cached,
    reused: cached ? 0 : scene.reused,
    revision,
  };
}
