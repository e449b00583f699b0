/**
 * Which of a HATCH's loops it paints, and how: its hatch style picks the boundary paths (as ezdxf's
 * `rendering_paths`: nested takes all, outermost the external and outermost ones, ignore the external
 * ones only), and the loops nest by the even-odd rule — a loop inside one other is a hole, inside two an
 * island filled again. Each ring is turned by its depth (counter-clockwise at an even depth, clockwise at
 * an odd one), so a painter's non-zero rule paints exactly the even-odd area, and fills of one colour
 * sharing one path (the capture's) still add up where they overlap.
 */
import type { HatchGeometry } from './hatch.js';
import type { Vec2 } from './math.js';

/** Boundary path flags (92). */
const EXTERNAL = 1;
const OUTERMOST = 16;

/** Hatch styles (75). */
const OUTERMOST_STYLE = 1;
const IGNORE_STYLE = 2;

/** The loops the hatch's style draws (pattern lines and fill alike). */
export function renderedLoops(g: Pick<HatchGeometry, 'loops' | 'loopFlags' | 'style'>): Vec2[][] {
  if (g.style !== OUTERMOST_STYLE && g.style !== IGNORE_STYLE) return g.loops;
  const keep = g.style === IGNORE_STYLE ? EXTERNAL : EXTERNAL | OUTERMOST;
  const kept = g.loops.filter((_, i) => ((g.loopFlags[i] ?? 0) & keep) !== 0);
  // A file whose paths carry no such flags: all of them, as read.
  return kept.length > 0 ? kept : g.loops;
}

/** Twice the signed area of a ring in x and y (points of 2 or 3 numbers): positive counter-clockwise. */
export function ringArea(ring: ReadonlyArray<readonly number[]>): number {
  let twice = 0;
  for (let i = 0; i < ring.length; i++) {
    const a = ring[i] as readonly number[];
    const b = ring[(i + 1) % ring.length] as readonly number[];
    twice += (a[0] as number) * (b[1] as number) - (b[0] as number) * (a[1] as number);
  }
  return twice;
}

/** Whether `p` is inside `ring` (crossings of a ray to +x). */
function inside(p: Vec2, ring: readonly Vec2[]): boolean {
  let odd = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const a = ring[i] as Vec2;
    const b = ring[j] as Vec2;
    if (a[1] > p[1] !== b[1] > p[1] && p[0] < ((b[0] - a[0]) * (p[1] - a[1])) / (b[1] - a[1]) + a[0])
      odd = !odd;
  }
  return odd;
}

/**
 * The rings a solid hatch paints, outermost first: each loop of its style of 3 or more points, turned by
 * how many of the others hold it (even: counter-clockwise, odd: clockwise). Empty when it has none.
 */
export function fillRings(g: Pick<HatchGeometry, 'loops' | 'loopFlags' | 'style'>): Vec2[][] {
  const loops = renderedLoops(g).filter((l) => l.length >= 3 && ringArea(l) !== 0);
  const depth = loops.map((loop, i) => {
    // A point of the loop's own area (its first vertex may touch the loop around it).
    const a = loop[0] as Vec2;
    const b = loop[1] as Vec2;
    const probe: Vec2 = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
    return loops.filter((other, j) => j !== i && inside(probe, other)).length;
  });
  return loops
    .map((loop, i) => ({ loop, depth: depth[i] as number }))
    .sort((p, q) => p.depth - q.depth)
    .map(({ loop, depth: d }) => {
      const ccw = ringArea(loop) > 0;
      return ccw === (d % 2 === 0) ? loop : [...loop].reverse();
    });
}
