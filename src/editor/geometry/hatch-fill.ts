/**
 * Which of a HATCH's loops it paints, and how: its hatch style picks the boundary paths (as ezdxf's
 * `rendering_paths`: nested takes all, outermost the external and outermost ones, ignore the external
 * ones only), and the loops nest by the even-odd rule — a loop inside one other is a hole, inside two an
 * island filled again. Each ring is turned by its depth (counter-clockwise at an even depth, clockwise at
 * an odd one), so a painter's non-zero rule paints exactly the even-odd area, and fills of one colour
 * sharing one path (the capture's) still add up where they overlap.
 */
import type { Vec2 } from './math.js';

/** What a hatch's fill is made of: its loops, their path flags and its hatch style (HatchGeometry has them). */
export interface HatchRings {
  /** Closed loops of the boundary, in world x and y. */
  loops: Vec2[][];
  /** Each loop's boundary path flags (92): 1 external, 16 outermost. */
  loopFlags: number[];
  /** The hatch style (75): 0 nested (odd parity), 1 outermost, 2 ignore islands. */
  style: number;
}

/** Boundary path flags (92). */
const EXTERNAL = 1;
const OUTERMOST = 16;

/** Hatch styles (75). */
const OUTERMOST_STYLE = 1;
const IGNORE_STYLE = 2;

/** The loops the hatch's style draws (pattern lines and fill alike). */
export function renderedLoops(g: HatchRings): Vec2[][] {
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
export function fillRings(g: HatchRings): Vec2[][] {
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

/**
 * A gradient fill (the tags from 450 on): its name (LINEAR, CYLINDER, INVCYLINDER, SPHERICAL,
 * INVSPHERICAL, HEMISPHERICAL, INVHEMISPHERICAL, CURVED, INVCURVED), its angle in degrees (460, stored
 * in radians) and its two colours as `#rrggbb` (421 true colours; a one-colour gradient's second is the
 * grey of its tint, as ezdxf's drawing add-on makes it).
 */
interface HatchGradient {
  name: string;
  angle: number;
  colors: [string, string];
}

const hex = (rgb: number) => `#${(rgb & 0xffffff).toString(16).padStart(6, '0')}`;

/** The hatch's gradient, when its tags hold one (450 = 1 with two colours); undefined otherwise. */
export function hatchGradient(
  tags: ReadonlyArray<{ code: number; value: string }>,
): HatchGradient | undefined {
  const at = tags.findIndex((t) => t.code === 450);
  if (at < 0 || Number(tags[at]?.value) !== 1) return undefined;
  let name = 'LINEAR';
  let angle = 0;
  let oneColor = false;
  let tint = 0;
  const colors: number[] = [];
  for (const t of tags.slice(at + 1)) {
    const n = Number(t.value);
    if (t.code === 460 && Number.isFinite(n)) angle = (n * 180) / Math.PI;
    else if (t.code === 452) oneColor = n === 1;
    else if (t.code === 462 && Number.isFinite(n)) tint = n;
    else if (t.code === 421 && Number.isFinite(n)) colors.push(n);
    else if (t.code === 470) name = t.value.trim().toUpperCase() || name;
  }
  const first = colors[0];
  if (first === undefined) return undefined;
  const grey = Math.round(Math.min(1, Math.max(0, tint)) * 255);
  const second = oneColor ? (grey << 16) | (grey << 8) | grey : (colors[1] ?? 0xffffff);
  return { name, angle, colors: [hex(first), hex(second)] };
}

/** A gradient laid over an area: `from` to `to` is its axis (linear) or its centre and a point of its rim (radial). */
export interface GradientPaint {
  kind: 'linear' | 'radial';
  from: readonly [number, number];
  to: readonly [number, number];
  /** Offsets 0 to 1 along the axis (or out from the centre), with their colours. */
  stops: Array<[number, string]>;
}

/**
 * How a gradient paints the area of `points` (drawing coordinates) when its frame is turned by `turn`
 * degrees more (a block reference's rotation): LINEAR (and CURVED, drawn straight) runs from its first
 * colour to its second along its angle across the area, INVCURVED the other way; CYLINDER has its second
 * colour along the middle and its first at both sides, INVCYLINDER the reverse; SPHERICAL its second colour
 * at the middle of the area fading out to its first at the corners, HEMISPHERICAL the same about the middle
 * of the area's lower side (turned with the angle), the INV ones the reverse.
 */
export function gradientPaint(
  g: HatchGradient,
  points: ReadonlyArray<readonly number[]>,
  turn = 0,
): GradientPaint | undefined {
  if (points.length === 0) return undefined;
  const r = ((g.angle + turn) * Math.PI) / 180;
  const u = [Math.cos(r), Math.sin(r)] as const;
  const v = [-u[1], u[0]] as const;
  let [s0, s1, t0, t1] = [Infinity, -Infinity, Infinity, -Infinity];
  for (const p of points) {
    const x = p[0] as number;
    const y = p[1] as number;
    const s = x * u[0] + y * u[1];
    const t = x * v[0] + y * v[1];
    [s0, s1, t0, t1] = [Math.min(s0, s), Math.max(s1, s), Math.min(t0, t), Math.max(t1, t)];
  }
  const at = (s: number, t: number): [number, number] => [s * u[0] + t * v[0], s * u[1] + t * v[1]];
  const [c1, c2] = g.colors;
  const inverse = g.name.startsWith('INV');
  const [a, b] = inverse ? [c2, c1] : [c1, c2];
  const sm = (s0 + s1) / 2;
  const tm = (t0 + t1) / 2;
  if (g.name.includes('SPHERICAL')) {
    const hemi = g.name.includes('HEMI');
    const centre = at(sm, hemi ? t0 : tm);
    const reach = Math.hypot((s1 - s0) / 2, hemi ? t1 - t0 : (t1 - t0) / 2);
    return {
      kind: 'radial',
      from: centre,
      to: [centre[0] + reach, centre[1]],
      stops: [
        [0, b],
        [1, a],
      ],
    };
  }
  const axis = { kind: 'linear' as const, from: at(s0, tm), to: at(s1, tm) };
  if (g.name.includes('CYLINDER'))
    return {
      ...axis,
      stops: [
        [0, a],
        [0.5, b],
        [1, a],
      ],
    };
  return {
    ...axis,
    stops: [
      [0, a],
      [1, b],
    ],
  };
}
