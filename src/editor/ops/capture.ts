import {
  type CaptureRequest,
  captureDocument,
  DEFAULT_WIDTH,
  MAX_WIDTH,
  MIN_WIDTH,
} from '../capture/index.js';
import { EditorError, fail } from '../errors.js';
import { refuseLargeSpaces } from '../expansion.js';
import { resolveTarget } from '../target.js';
import { MODEL_SPACE } from './entities.js';
import { windowArea } from './interaction.js';
import { layoutOf } from './plot.js';
import type { OpContext, OpDefinition, OpGroup, OpOutcome } from './types.js';

/** The viewer's background: a capture looks like what the person at the viewer sees. */
const DEFAULT_BACKGROUND = '#1e2227';
const NAMED_BACKGROUNDS = new Map([
  ['dark', DEFAULT_BACKGROUND],
  ['white', '#ffffff'],
  ['black', '#000000'],
]);

function widthOf(value: unknown): number {
  if (value === undefined) return DEFAULT_WIDTH;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < MIN_WIDTH || value > MAX_WIDTH)
    return fail(
      'invalid_width',
      `width must be a whole number of pixels from ${MIN_WIDTH} to ${MAX_WIDTH}, got ${JSON.stringify(value)}`,
    );
  return value;
}

/** `#rgb`, `#rrggbb` or dark, white, black, as `#rrggbb`; `invalid_background` otherwise. */
export function backgroundOf(value: unknown): string {
  if (value === undefined) return DEFAULT_BACKGROUND;
  const text = typeof value === 'string' ? value.trim().toLowerCase() : '';
  const named = NAMED_BACKGROUNDS.get(text);
  if (named) return named;
  if (/^#[0-9a-f]{6}$/.test(text)) return text;
  if (/^#[0-9a-f]{3}$/.test(text)) return `#${[...text.slice(1)].map((c) => c + c).join('')}`;
  return fail(
    'invalid_background',
    `background must be #rrggbb, #rgb, "dark", "white" or "black", got ${JSON.stringify(value)}`,
  );
}

/** ACI 7 draws white on a dark background and black on a light one (relative luminance at 0.5). */
export function foregroundOn(background: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(background.slice(i, i + 2), 16) / 255) as [
    number,
    number,
    number,
  ];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.5 ? '#ffffff' : '#000000';
}

/**
 * `capture`: a PNG of the active document as the plot draws it — its Model layout (or `layout`), the
 * extents of what prints or a `window` of that layout's coordinates — `width` pixels wide (256 to 4096,
 * default 1024; the height follows the area, at most 4096), on `background` (default the viewer's dark
 * grey; ACI 7 shows white on a dark one, black on a light one), the selection highlighted as the
 * viewer shows it. Answers the image as base64 in `result.data` (`mime_type` image/png) with its size,
 * the area shown (`window`) and what was drawn; `POST /api/v1/capture` answers the PNG itself.
 * Entities smaller than a pixel show as one pixel of their colour, text too small to read as a stroke
 * along its line, images as their frames. Reads the read model: never an undo step, never recorded.
 * While it runs `state.operation` shows it and `cancel` stops it: it answers `cancelled`.
 */
async function capture(ctx: OpContext): Promise<OpOutcome> {
  const { doc } = resolveTarget(ctx.session, ctx.request, 'capture', captureOp);
  if (!doc) return fail('document_required', 'capture needs a document (open or create one first)');
  const r = ctx.request;
  const width = widthOf(r.width);
  const background = backgroundOf(r.background);
  const window = r.window === undefined ? undefined : windowArea(r.window);
  const layout =
    r.layout === undefined
      ? Object.values(doc.model.layouts).find((l) => l.block.toUpperCase() === MODEL_SPACE.toUpperCase())
      : layoutOf(doc.model.layouts, r.layout);
  const request: CaptureRequest = {
    space: layout?.block ?? MODEL_SPACE,
    width,
    window,
    colors: { background, foreground: foregroundOn(background) },
    selection: [...doc.selection],
  };
  refuseLargeSpaces(doc.model, [request.space], 'the capture');
  let shot: Awaited<ReturnType<typeof captureDocument>>;
  try {
    shot = await captureDocument(doc, request, ctx.signal);
  } catch (error) {
    if (error instanceof EditorError) throw error;
    return fail('capture_failed', `cannot draw the capture: ${(error as Error).message}`);
  }
  const { area } = shot.view;
  return {
    events: [],
    result: {
      format: 'png',
      mime_type: 'image/png',
      width: shot.view.width,
      height: shot.view.height,
      bytes: shot.png.byteLength,
      layout: layout?.name ?? 'Model',
      window: [area.min[0], area.min[1], area.max[0], area.max[1]],
      scale: shot.view.scale,
      background,
      revision: shot.revision,
      entities: shot.entities,
      dots: shot.dots,
      texts: shot.texts,
      highlighted: shot.highlighted,
      skipped: shot.skipped,
      data: Buffer.from(shot.png.buffer, shot.png.byteOffset, shot.png.byteLength).toString('base64'),
    },
  };
}

// Cancellable: a capture of 100,000 readable texts keeps the rasteriser busy for most of a minute.
const captureOp: OpDefinition = { kind: 'immediate', document: 'required', run: capture, cancellable: true };

export const captureOps = { capture: captureOp } satisfies OpGroup;
