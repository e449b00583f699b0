/**
 * A plot as SVG, written directly (it is text): one element per drawn entity — the entity's only part, or a
 * `<g>` of its parts — carrying `data-handle`, `data-type` and `data-layer`, sized in millimetres.
 */

import type { PlotFileOptions } from './file-options.js';
import type { PlotImages } from './images.js';
import { num, type PageMark, type PagePart } from './marks.js';
import type { Placement } from './page.js';
import { svgGradient } from './svg-gradient.js';
import { CAP_HEIGHT, FONT_FAMILY } from './text-font.js';

const escapeXml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);

const ANCHOR = { 0: 'start', 0.5: 'middle', 1: 'end' } as const;

/** What elements share across the document: a serial for clip path ids (one per viewport), the image files. */
interface Ids {
  next: number;
  images: PlotImages;
}

function partElement(part: PagePart, attributes: string, ids: Ids): string {
  switch (part.kind) {
    case 'image': {
      const image = part.file ? ids.images.get(part.file) : undefined;
      if (!image)
        return `<path${attributes} d="${part.frame}" stroke="${part.color}" stroke-width="${num(part.width)}"/>`;
      return `<image${attributes} x="0" y="0" width="1" height="1" preserveAspectRatio="none" transform="matrix(${part.matrix.map(num).join(' ')})" href="data:${image.mime};base64,${image.bytes.toString('base64')}"/>`;
    }
    case 'clip': {
      const id = `clip-${ids.next++}`;
      const { min, max } = part.box;
      const rect = `<rect x="${num(min[0])}" y="${num(min[1])}" width="${num(max[0] - min[0])}" height="${num(max[1] - min[1])}"/>`;
      const inner = part.parts.map((p) => partElement(p, '', ids)).join('');
      return `<g${attributes} clip-path="url(#${id})"><clipPath id="${id}">${rect}</clipPath>${inner}</g>`;
    }
    case 'path':
      // A wipeout hides what lies under it in the sheet's white.
      if (part.mask) return `<path${attributes} d="${part.d}" stroke="none" fill="#ffffff"/>`;
      if (part.gradient) {
        const id = `gradient-${ids.next++}`;
        return `${svgGradient(id, part.gradient, num)}<path${attributes} d="${part.d}" stroke="none" fill="url(#${id})"/>`;
      }
      return `<path${attributes} d="${part.d}" stroke="${part.color}" stroke-width="${num(part.width)}"${part.fill ? ` fill="${part.color}"` : ''}${part.dash ? ` stroke-dasharray="${part.dash.map(num).join(' ')}"` : ''}/>`;
    case 'dot':
      return `<circle${attributes} cx="${num(part.x)}" cy="${num(part.y)}" r="${num(part.r)}" fill="${part.color}"/>`;
    case 'text': {
      const lines = part.lines.map(
        (line) =>
          `<tspan x="${num(line.x)}" y="${num(-line.y)}" text-anchor="${ANCHOR[line.anchor]}">${escapeXml(line.text)}</tspan>`,
      );
      return `<text${attributes} transform="matrix(${part.matrix.map(num).join(' ')})" font-family="${FONT_FAMILY}" font-size="${num(1 / CAP_HEIGHT)}" fill="${part.color}" stroke="none">${lines.join('')}</text>`;
    }
  }
}

function entityElement(mark: PageMark, ids: Ids): string {
  const attributes = ` data-handle="${escapeXml(mark.handle)}" data-type="${escapeXml(mark.type)}" data-layer="${escapeXml(mark.layer)}"`;
  const [only] = mark.parts;
  if (only && mark.parts.length === 1) return partElement(only, attributes, ids);
  return `<g${attributes}>${mark.parts.map((p) => partElement(p, '', ids)).join('')}</g>`;
}

/** The SVG document of `marks` on the page `placement` lays out. */
export function plotSvg(marks: readonly PageMark[], placement: Placement, options: PlotFileOptions): string {
  const { title, clip, images } = options;
  const { width, height } = placement.page;
  const ids: Ids = { next: 0, images };
  const clipDef = clip
    ? `<defs><clipPath id="plot-window"><rect x="${num(clip.min[0])}" y="${num(clip.min[1])}" width="${num(clip.max[0] - clip.min[0])}" height="${num(clip.max[1] - clip.min[1])}"/></clipPath></defs>`
    : '';
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${num(width)}mm" height="${num(height)}mm" viewBox="0 0 ${num(width)} ${num(height)}">`,
    `<title>${escapeXml(title)}</title>`,
    clipDef,
    `<rect class="paper" x="0" y="0" width="${num(width)}" height="${num(height)}" fill="#ffffff"/>`,
    `<g class="drawing" fill="none" stroke-linecap="round" stroke-linejoin="round"${clip ? ' clip-path="url(#plot-window)"' : ''}>`,
    ...marks.map((mark) => entityElement(mark, ids)),
    '</g>',
    '</svg>',
    '',
  ]
    .filter((line) => line !== '')
    .join('\n');
}
