/** Reading a capture's pixels in tests: the PNG decoded (pngjs), and which pixels are of a colour. */
import { PNG } from 'pngjs';

export interface Picture {
  width: number;
  height: number;
  /** RGBA, row by row. */
  data: Buffer;
}

export const decodePng = (bytes: Uint8Array): Picture => {
  const png = PNG.sync.read(Buffer.from(bytes));
  return { width: png.width, height: png.height, data: png.data };
};

export const rgbAt = (p: Picture, x: number, y: number): [number, number, number] => {
  const i = (y * p.width + x) * 4;
  return [p.data[i] as number, p.data[i + 1] as number, p.data[i + 2] as number];
};

/** Red as a red entity draws it on any background, anti-aliased edges included: red well above green and blue. */
export const reddish = ([r, g, b]: readonly number[]) =>
  (r as number) > (g as number) + 50 && (r as number) > (b as number) + 50;

/** The selection's highlight (#4aa3ff) and its anti-aliased edges: blue well above red. */
export const bluish = ([r, , b]: readonly number[]) => (b as number) > (r as number) + 80;

/** Every pixel for which `test` holds, as [x, y]. */
export function pixelsWhere(
  p: Picture,
  test: (rgb: [number, number, number]) => boolean,
): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  for (let y = 0; y < p.height; y++)
    for (let x = 0; x < p.width; x++) if (test(rgbAt(p, x, y))) found.push([x, y]);
  return found;
}

/** The capture of the red line test: 2 pixels per unit, 256 x 200 pixels. */
export const RED_LINE_CAPTURE = { width: 256, window: [-14, -50, 114, 50] };

/**
 * Checks the picture of a red line from (0,0) to (100,0) captured as RED_LINE_CAPTURE (the line on row
 * 100, columns 28 to 228): red along that row, nowhere else. Answers what is wrong, or undefined.
 */
export function redLineProblem(p: Picture): string | undefined {
  if (p.width !== 256 || p.height !== 200) return `size ${p.width}x${p.height}, not 256x200`;
  const red = pixelsWhere(p, reddish);
  const stray = red.filter(([x, y]) => y < 98 || y > 101 || x < 26 || x > 230);
  if (stray.length > 0) return `red pixels off the line: ${JSON.stringify(stray.slice(0, 5))}`;
  const columns = new Set(red.map(([x]) => x));
  const missing = [];
  for (let x = 30; x <= 226; x++) if (!columns.has(x)) missing.push(x);
  if (missing.length > 0) return `no red in columns ${missing.slice(0, 10).join(', ')}`;
  return undefined;
}
