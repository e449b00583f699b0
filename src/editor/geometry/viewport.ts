/**
 * VIEWPORT (kept as read: its tags), a window of paper space onto model space: bounded and queried as
 * its frame — the rectangle of width 40 and height 41 about its centre 10, in paper-space units (the
 * plot draws its border and the model it shows itself: plot/viewport.ts). The layout's own viewport
 * (id 69 = 1, the sheet itself) is no frame and bounds nothing. Not
 * transformed: ezdxf 0.18 has no `Viewport.transform`, so there is no oracle to move one against; it is
 * set apart by type as before (`not_transformable`).
 */

import type { DxfTag, LwPolylineEntity, RawEntity } from '../model.js';
import { outlineOf } from './raw-tags.js';

export const isViewportType = (dxfType: string) => dxfType.toUpperCase() === 'VIEWPORT';

const num = (tags: readonly DxfTag[], code: number): number | undefined => {
  const tag = tags.find((t) => t.code === code);
  const n = tag ? Number(tag.value) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
};

/** The frame a VIEWPORT draws (a closed polyline, its own layer, colour and style); none for the sheet's own. */
export function viewportFrame(e: RawEntity): LwPolylineEntity[] | undefined {
  const at = e.tags.findIndex((t) => t.code === 100 && t.value === 'AcDbViewport');
  const own = at < 0 ? e.tags : e.tags.slice(at + 1);
  if (num(own, 69) === 1) return [];
  const [cx, cy, w, h] = [num(own, 10), num(own, 20), num(own, 40), num(own, 41)];
  if (cx === undefined || cy === undefined || w === undefined || h === undefined) return undefined;
  const [x0, x1, y0, y1] = [cx - w / 2, cx + w / 2, cy - h / 2, cy + h / 2];
  const z = num(own, 30) ?? 0;
  return [
    outlineOf(e, [
      [x0, y0, z],
      [x1, y0, z],
      [x1, y1, z],
      [x0, y1, z],
    ]),
  ];
}
