/** Small 2D numeric helpers shared by the geometry modules. Angles are degrees unless named `...Rad`. */

export type Vec2 = readonly [number, number];

export const TAU = 2 * Math.PI;

/** Cosine and sine of an angle in degrees, exact for multiples of 90 (so a quarter turn leaves no 6e-17 behind). */
export function cosSinDeg(degrees: number): [number, number] {
  const quarter = degrees / 90;
  if (Number.isInteger(quarter)) {
    const q = ((quarter % 4) + 4) % 4;
    return q === 0 ? [1, 0] : q === 1 ? [0, 1] : q === 2 ? [-1, 0] : [0, -1];
  }
  const rad = (degrees * Math.PI) / 180;
  return [Math.cos(rad), Math.sin(rad)];
}

/** An angle in degrees brought into [0, 360), with float noise within 1e-9 of a whole degree snapped. */
export function normalizeDegrees(degrees: number): number {
  let r = degrees % 360;
  if (r < 0) r += 360;
  const whole = Math.round(r);
  if (Math.abs(r - whole) < 1e-9) r = whole;
  return r >= 360 || r === 0 ? 0 : r;
}

/** Direction of a vector in degrees, in [0, 360). */
export function angleOf(x: number, y: number): number {
  return normalizeDegrees((Math.atan2(y, x) * 180) / Math.PI);
}

/** An angle in radians brought into [0, 2π). */
export function normalizeRad(rad: number): number {
  let r = rad % TAU;
  if (r < 0) r += TAU;
  return r >= TAU ? 0 : r;
}

export function hypot2(x: number, y: number): number {
  return Math.sqrt(x * x + y * y);
}

/** Tolerance for "the same point" at the scale of the given magnitudes: relative 1e-9, never below 1e-9. */
export function epsFor(...magnitudes: number[]): number {
  let m = 1;
  for (const v of magnitudes) {
    const a = Math.abs(v);
    if (a > m) m = a;
  }
  return m * 1e-9;
}
