/**
 * Worker thread of `rasterize`: SVG text in, PNG bytes out, with resvg. Parsing, drawing and PNG encoding
 * of a 2048-pixel capture take a few hundred milliseconds of one core: here they take none of the
 * editor's event loop.
 */
import { execFileSync } from 'node:child_process';
import { parentPort } from 'node:worker_threads';
import { Resvg } from '@resvg/resvg-js';
import { encodePng } from './png.js';
import type { RasterJob, RasterReply } from './raster.js';

const port = parentPort;
if (!port) throw new Error('raster-worker runs as a worker thread');

/**
 * The font files fontconfig knows, listed once for the worker's life; undefined where fc-list is not to be
 * had. resvg's `loadSystemFonts` finds the same files through fontconfig's configuration, but reads that
 * configuration and scans the font directories again for every capture with text, the slowest part of a
 * small capture; given the list, it only reads the files: a line of text is ready in 14 ms instead of 25
 * (34 font files, a loaded machine). The same fonts, so the same pictures, byte for byte.
 */
let systemFonts: string[] | undefined | null = null;

function fontFiles(): string[] | undefined {
  if (systemFonts !== null) return systemFonts;
  try {
    const listed = execFileSync('fc-list', ['-f', '%{file}\\n'], { encoding: 'utf8', timeout: 10_000 });
    const files = [...new Set(listed.split('\n').filter((f) => f !== ''))].sort();
    systemFonts = files.length > 0 ? files : undefined;
  } catch {
    systemFonts = undefined;
  }
  return systemFonts;
}

/** resvg's font options: none without text; with text, the system's fonts (listed once, else looked up). */
function fontOptions(text: boolean) {
  if (!text) return { loadSystemFonts: false };
  const files = fontFiles();
  return files ? { loadSystemFonts: false, fontFiles: files } : { loadSystemFonts: true };
}

port.on('message', (job: RasterJob) => {
  let reply: RasterReply;
  try {
    const t0 = performance.now();
    // System fonts only when there is text to draw: looking them up is the slowest part of a small capture.
    const svg = Buffer.from(job.svg.buffer, job.svg.byteOffset, job.svg.byteLength);
    const resvg = new Resvg(svg, { font: fontOptions(job.fonts), logLevel: 'off' });
    const t1 = performance.now();
    const image = resvg.render();
    const t2 = performance.now();
    // Our own encoding: `asPng` takes twice as long for a larger file (png.ts).
    const png = encodePng(image.pixels, image.width, image.height);
    const t3 = performance.now();
    reply = {
      id: job.id,
      ok: true,
      png: new Uint8Array(png),
      width: image.width,
      height: image.height,
      ms: { parse: t1 - t0, render: t2 - t1, encode: t3 - t2 },
    };
  } catch (error) {
    reply = { id: job.id, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
