import type { Bounds } from '../geometry/index.js';
import type { PlotImages } from './images.js';

/** What the file writers need besides the marks and the page. */
export interface PlotFileOptions {
  /** The document's title line. */
  title: string;
  /** Page millimetres to cut everything at (a plotted window), when given. */
  clip?: Bounds;
  /** The image files the marks' images show. */
  images: PlotImages;
}
