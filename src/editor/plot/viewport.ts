/**
 * A paper space VIEWPORT (kept raw by the editor) as a plot reads it: the rectangle it occupies on the
 * sheet, the part of model space it shows and at what scale, and the layers frozen in it.
 */
import { compose, type Matrix, scaling, translation } from '../geometry/matrix.js';
import type { DxfDocumentModel, RawEntity } from '../model.js';

interface Viewport {
  /** Centre, width and height on the sheet, paper space units. */
  center: [number, number];
  width: number;
  height: number;
  /** Model space point at the viewport's centre, and the model height it shows. */
  viewCenter: [number, number];
  viewHeight: number;
  /** Layers frozen in this viewport only, upper case. */
  frozen: Set<string>;
  /**
   * Whether the plot can draw what it shows: a plan view (looking down z) without twist. Other views
   * (3D directions, twisted views) are drawn as their frame only.
   */
  plan: boolean;
}

/**
 * The viewport a VIEWPORT entity is, or undefined for one that shows nothing on a plot: switched off
 * (status 0), the layout's own overall viewport (id 1), or without a size.
 */
export function readViewport(model: DxfDocumentModel, e: RawEntity): Viewport | undefined {
  if (e.dxf_type.toUpperCase() !== 'VIEWPORT') return undefined;
  const first = (code: number) => {
    const tag = e.tags.find((t) => t.code === code);
    const n = tag ? Number(tag.value) : Number.NaN;
    return Number.isFinite(n) ? n : undefined;
  };
  const width = first(40) ?? 0;
  const height = first(41) ?? 0;
  const viewHeight = first(45) ?? 0;
  if (first(68) === 0 || first(69) === 1 || !(width > 0 && height > 0 && viewHeight > 0)) return undefined;
  const byHandle = new Map(Object.values(model.layers).map((l) => [l.handle.toUpperCase(), l.name]));
  const frozen = new Set<string>();
  for (const tag of e.tags) {
    if (tag.code !== 331) continue;
    const name = byHandle.get(tag.value.trim().toUpperCase());
    if (name) frozen.add(name.toUpperCase());
  }
  const direction = [first(16) ?? 0, first(26) ?? 0, first(36) ?? 1];
  const target = [first(17) ?? 0, first(27) ?? 0];
  const plan =
    Math.abs(direction[0] as number) < 1e-12 &&
    Math.abs(direction[1] as number) < 1e-12 &&
    (direction[2] as number) > 0 &&
    Math.abs(first(51) ?? 0) < 1e-9;
  return {
    center: [first(10) ?? 0, first(20) ?? 0],
    width,
    height,
    // The view centre is in display coordinates, relative to the view target.
    viewCenter: [(first(12) ?? 0) + (target[0] as number), (first(22) ?? 0) + (target[1] as number)],
    viewHeight,
    frozen,
    plan,
  };
}

/** Model space to paper space through the viewport: its view centre onto its centre, at height / view height. */
export function viewportMatrix(v: Viewport): Matrix {
  return compose(
    compose(
      translation([-v.viewCenter[0], -v.viewCenter[1], 0]),
      scaling([0, 0, 0], v.height / v.viewHeight),
    ),
    translation([v.center[0], v.center[1], 0]),
  );
}
