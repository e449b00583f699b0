/**
 * A PDF page as pixels, through poppler's `pdftoppm` (Debian poppler-utils): grey levels of a PGM the
 * test reads itself, so "the page is not blank where the entities are" can be checked without libraries.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestContext } from 'vitest';

const run = promisify(execFile);

let available: boolean | undefined;
/** Whether pdftoppm is installed (asked once). */
export function pdftoppmAvailable(): boolean {
  if (available === undefined) {
    try {
      execFileSync('pdftoppm', ['-v'], { stdio: 'ignore' });
      available = true;
    } catch {
      available = false;
    }
  }
  return available;
}

/** Skips the test, with the reason printed, when pdftoppm is not installed. */
export function needPdftoppm(ctx: TestContext): void {
  if (pdftoppmAvailable()) return;
  console.warn('skipped: pdftoppm (Debian poppler-utils) is not installed; .ci/run installs it');
  ctx.skip();
}

export interface Gray {
  width: number;
  height: number;
  /** 0 black .. maxval white, row by row from the top. */
  at(x: number, y: number): number;
  maxval: number;
}

/** Parses a binary PGM (P5, 8-bit): header tokens (comments skipped), then one byte per pixel. */
export function parsePgm(data: Buffer): Gray {
  const tokens: string[] = [];
  let i = 0;
  while (tokens.length < 4) {
    while (i < data.length && /\s/.test(String.fromCharCode(data[i] as number))) i++;
    if (data[i] === 0x23) {
      while (i < data.length && data[i] !== 0x0a) i++;
      continue;
    }
    let token = '';
    while (i < data.length && !/\s/.test(String.fromCharCode(data[i] as number)))
      token += String.fromCharCode(data[i++] as number);
    tokens.push(token);
  }
  const [magic, w, h, max] = tokens;
  if (magic !== 'P5') throw new Error(`not a binary PGM: ${magic}`);
  const width = Number(w);
  const height = Number(h);
  const maxval = Number(max);
  if (maxval > 255) throw new Error('16-bit PGM not handled');
  const pixels = data.subarray(i + 1, i + 1 + width * height);
  return { width, height, maxval, at: (x, y) => pixels[y * width + x] as number };
}

/** Renders page 1 of a PDF in grey at `dpi` and reads it back. */
export async function renderPdf(pdf: string, dpi = 30): Promise<Gray> {
  const dir = await mkdtemp(join(tmpdir(), 'chronicle-plot-'));
  try {
    await run('pdftoppm', ['-gray', '-r', String(dpi), '-singlefile', pdf, join(dir, 'page')]);
    return parsePgm(await readFile(join(dir, 'page.pgm')));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Pixels darker than `threshold` (of 255) in the box [x0, x1) x [y0, y1) given as fractions of the page. */
export function darkPixels(
  gray: Gray,
  box: { x0: number; x1: number; y0: number; y1: number },
  threshold = 128,
): number {
  let dark = 0;
  for (let y = Math.floor(box.y0 * gray.height); y < Math.ceil(box.y1 * gray.height); y++) {
    for (let x = Math.floor(box.x0 * gray.width); x < Math.ceil(box.x1 * gray.width); x++) {
      if (gray.at(x, y) < (threshold * gray.maxval) / 255) dark++;
    }
  }
  return dark;
}

/** The number of pages of a PDF, as pdfinfo would count them: its `/Type /Page` objects. */
export function pdfPages(pdf: Buffer): number {
  return (pdf.toString('latin1').match(/\/Type \/Page\b/g) ?? []).length;
}
