/**
 * What part of a drawing a capture shows and at what size: a window as given, or the extents of what
 * prints with a margin, on an image `width` pixels wide whose height follows the area's proportions.
 * Pure.
 */
import type { Bounds } from '../geometry/index.js';

export const MIN_WIDTH = 256;
export const MAX_WIDTH = 4096;
/** The tallest image: an area taller than wide is widened rather than drawn past this. */
const MAX_HEIGHT = 4096;
export const DEFAULT_WIDTH = 1024;
/** Around the extents, this fraction of their larger side on every side, so edge strokes show whole. */
const MARGIN = 0.04;

export interface CaptureView {
  /** The drawing area shown, in drawing units; its proportions are the image's. */
  area: Bounds;
  width: number;
  height: number;
  /** Pixels per drawing unit. */
  scale: number;
}

/**
 * The view of `window` (exactly) or of `extents` (with a margin; a blank drawing shows 0,0 to 100,100),
 * `width` pixels wide.
 */
export function captureView(
  width: number,
  window: Bounds | undefined,
  extents: Bounds | undefined,
): CaptureView {
  let [x1, y1, x2, y2] = window
    ? [window.min[0], window.min[1], window.max[0], window.max[1]]
    : extents
      ? [extents.min[0], extents.min[1], extents.max[0], extents.max[1]]
      : [0, 0, 100, 100];
  if (!window) {
    // A lone point or a straight line has no area: the margin gives it one.
    const pad = Math.max(x2 - x1, y2 - y1) * MARGIN || 1;
    x1 -= pad;
    y1 -= pad;
    x2 += pad;
    y2 += pad;
  }
  let height = Math.max(1, Math.round((width * (y2 - y1)) / (x2 - x1)));
  if (height > MAX_HEIGHT) {
    // Too tall for the width asked: the area widens (centred) to the proportions of the tallest image.
    height = MAX_HEIGHT;
    const wide = ((y2 - y1) * width) / height;
    const middle = (x1 + x2) / 2;
    x1 = middle - wide / 2;
    x2 = middle + wide / 2;
  }
  return { area: { min: [x1, y1, 0], max: [x2, y2, 0] }, width, height, scale: width / (x2 - x1) };
}
