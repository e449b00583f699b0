/**
 * Worker thread of `rasterize`: SVG text in, PNG bytes out, with resvg. Parsing, drawing and PNG encoding
 * of a 2048-pixel capture take a few hundred milliseconds of one core: here they take none of the
 * editor's event loop.
 */
import { parentPort } from 'node:worker_threads';
import { Resvg } from '@resvg/resvg-js';
import { encodePng } from './png.js';
import type { RasterJob, RasterReply } from './raster.js';

const port = parentPort;
if (!port) throw new Error('raster-worker runs as a worker thread');

port.on('message', (job: RasterJob) => {
  let reply: RasterReply;
  try {
    const t0 = performance.now();
    // System fonts only when there is text to draw: looking them up is the slowest part of a small capture.
    const svg = Buffer.from(job.svg.buffer, job.svg.byteOffset, job.svg.byteLength);
    const resvg = new Resvg(svg, { font: { loadSystemFonts: job.fonts }, logLevel: 'off' });
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
