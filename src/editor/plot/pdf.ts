/**
 * A plot as PDF through pdfkit: one page the size of the sheet, drawn in millimetres (a scale of 72/25.4
 * points per mm), paths stroked from the same SVG path data the SVG writer emits, text in Helvetica.
 */
import PDFDocument from 'pdfkit';
import type { GradientPaint } from '../geometry/hatch-fill.js';
import type { Tick } from '../slices.js';
import type { PlotFileOptions } from './file-options.js';
import type { PlotImages } from './images.js';
import type { PageMark, PagePart } from './marks.js';
import type { Placement } from './page.js';
import { CAP_HEIGHT, PDF_FONT } from './text-font.js';

const POINTS_PER_MM = 72 / 25.4;
/** The sheet's colour: what a WIPEOUT paints over what is under it. */
const PAPER = '#ffffff';

/** pdfkit refuses dashes of length 0 (PDF takes them: dots with round caps); a hundredth of a mm is as good. */
const DOT_DASH_MM = 0.01;

function dash(doc: PDFKit.PDFDocument, lengths: readonly number[]): void {
  // pdfkit takes an array of lengths (its typings only declare a single length).
  const pattern = lengths.map((l) => Math.max(l, DOT_DASH_MM)) as unknown as number;
  doc.dash(pattern, {});
}

/** A gradient as pdfkit's: linear along its axis, or radial from its centre to its rim. */
function pdfGradient(doc: PDFKit.PDFDocument, paint: GradientPaint): PDFKit.PDFGradient {
  const [x1, y1] = paint.from;
  const [x2, y2] = paint.to;
  const gradient =
    paint.kind === 'linear'
      ? doc.linearGradient(x1, y1, x2, y2)
      : doc.radialGradient(x1, y1, 0, x1, y1, Math.hypot(x2 - x1, y2 - y1));
  for (const [offset, color] of paint.stops) gradient.stop(offset, color);
  return gradient;
}

function drawPart(doc: PDFKit.PDFDocument, part: PagePart, images: PlotImages): void {
  switch (part.kind) {
    case 'path':
      if (part.mask) {
        doc.path(part.d).fill(PAPER);
        return;
      }
      if (part.gradient) {
        doc.path(part.d).fill(pdfGradient(doc, part.gradient));
        return;
      }
      if (part.dash) dash(doc, part.dash);
      if (part.fill) doc.path(part.d).lineWidth(part.width).fillAndStroke(part.color, part.color);
      else doc.path(part.d).lineWidth(part.width).strokeColor(part.color).stroke();
      if (part.dash) doc.undash();
      return;
    case 'dot':
      doc.circle(part.x, part.y, part.r).fillColor(part.color).fill();
      return;
    case 'text':
      doc.save();
      doc.transform(...part.matrix);
      doc.fillColor(part.color);
      for (const line of part.lines) {
        const x = line.x - line.anchor * doc.widthOfString(line.text);
        doc.text(line.text, x, -line.y, { lineBreak: false, baseline: 'alphabetic' });
      }
      doc.restore();
      return;
    case 'image': {
      const image = part.file ? images.get(part.file) : undefined;
      if (!image) {
        doc.path(part.frame).lineWidth(part.width).strokeColor(part.color).stroke();
        return;
      }
      let drawn = true;
      doc.save();
      try {
        doc.transform(...part.matrix);
        doc.image(image.bytes, 0, 0, { width: 1, height: 1 });
      } catch {
        // A file that looks like PNG or JPEG but does not decode: drawn as its frame, like a missing one.
        drawn = false;
      } finally {
        doc.restore();
      }
      if (!drawn) doc.path(part.frame).lineWidth(part.width).strokeColor(part.color).stroke();
      return;
    }
    case 'clip': {
      const { min, max } = part.box;
      doc.save();
      doc.rect(min[0], min[1], max[0] - min[0], max[1] - min[1]).clip();
      for (const inner of part.parts) drawPart(doc, inner, images);
      doc.restore();
      return;
    }
  }
}

/** One page of a plot: what is drawn on it and how it is laid out. */
interface PdfPage {
  marks: readonly PageMark[];
  placement: Placement;
  clip?: PlotFileOptions['clip'];
}

/** A PDF of several pages (every layout of a drawing), each the size of its own sheet. */
export function plotPdfPages(
  pages: readonly PdfPage[],
  options: Pick<PlotFileOptions, 'title' | 'images'> & { tick?: Tick },
): Promise<Buffer> {
  const { title, images, tick } = options;
  const sizeOf = (page: PdfPage) => [
    page.placement.page.width * POINTS_PER_MM,
    page.placement.page.height * POINTS_PER_MM,
  ];
  const first = pages[0];
  if (!first) return Promise.reject(new Error('a PDF needs at least one page'));
  const doc = new PDFDocument({
    size: sizeOf(first),
    margin: 0,
    autoFirstPage: true,
    info: { Title: title, Creator: 'chronicle plot' },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  return drawPages(doc, pages, sizeOf, images, tick).then(() => done);
}

/** Draws every page into `doc` and ends it; between parts the loop may answer others (`tick`). */
async function drawPages(
  doc: PDFKit.PDFDocument,
  pages: readonly PdfPage[],
  sizeOf: (page: PdfPage) => number[],
  images: PlotFileOptions['images'],
  tick: Tick | undefined,
): Promise<void> {
  for (const [i, page] of pages.entries()) {
    if (i > 0) doc.addPage({ size: sizeOf(page), margin: 0 });
    doc.save();
    doc.scale(POINTS_PER_MM);
    const { clip } = page;
    if (clip) doc.rect(clip.min[0], clip.min[1], clip.max[0] - clip.min[0], clip.max[1] - clip.min[1]).clip();
    doc
      .lineCap('round')
      .lineJoin('round')
      .font(PDF_FONT)
      .fontSize(1 / CAP_HEIGHT);
    for (const mark of page.marks) {
      for (const part of mark.parts) drawPart(doc, part, images);
      const turn = tick?.();
      if (turn) await turn;
    }
    doc.restore();
  }
  doc.end();
}
