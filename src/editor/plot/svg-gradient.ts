/**
 * A gradient as an SVG element, for the plot's SVG and the capture's: `<linearGradient>` along its axis or
 * `<radialGradient>` from its centre to its rim, in the coordinates the paths using it are written in.
 */
import type { GradientPaint } from '../geometry/hatch-fill.js';

export function svgGradient(id: string, paint: GradientPaint, num: (x: number) => string): string {
  const [x1, y1] = paint.from;
  const [x2, y2] = paint.to;
  const stops = paint.stops
    .map(([offset, color]) => `<stop offset="${num(offset)}" stop-color="${color}"/>`)
    .join('');
  if (paint.kind === 'linear')
    return `<linearGradient id="${id}" gradientUnits="userSpaceOnUse" x1="${num(x1)}" y1="${num(y1)}" x2="${num(x2)}" y2="${num(y2)}">${stops}</linearGradient>`;
  const r = Math.hypot(x2 - x1, y2 - y1);
  return `<radialGradient id="${id}" gradientUnits="userSpaceOnUse" cx="${num(x1)}" cy="${num(y1)}" r="${num(r)}">${stops}</radialGradient>`;
}
