import type { DxfTag, RawRecord } from '../model.js';
import { formatReal } from './values.js';

/**
 * The objects behind an IMAGE entity, as AutoCAD and ezdxf write them: the IMAGEDEF (the file and its
 * pixel size), owned by the ACAD_IMAGE_DICT dictionary under the root dictionary, and one
 * IMAGEDEF_REACTOR per IMAGE (owned by the IMAGE, listed among the IMAGEDEF's reactors), which the
 * IMAGE points to with group code 360.
 */

const t = (code: number, value: string): DxfTag => ({ code, value });

/** The name of the root dictionary's entry that holds the image definitions. */
export const IMAGE_DICT = 'ACAD_IMAGE_DICT';

export function imageDefRecord(
  handle: string,
  dictionary: string,
  reactor: string,
  filename: string,
  pixels: [number, number],
): RawRecord {
  return {
    type: 'IMAGEDEF',
    handle,
    tags: [
      t(5, handle),
      t(102, '{ACAD_REACTORS'),
      t(330, dictionary),
      t(330, reactor),
      t(102, '}'),
      t(330, dictionary),
      t(100, 'AcDbRasterImageDef'),
      t(90, '0'),
      t(1, filename),
      t(10, formatReal(pixels[0])),
      t(20, formatReal(pixels[1])),
      // Default size of one pixel with resolution unit 0 (none): one drawing unit, as AutoCAD writes.
      t(11, '1.0'),
      t(21, '1.0'),
      // Loaded; resolution unit none.
      t(280, '1'),
      t(281, '0'),
    ],
  };
}

export function imageDefReactorRecord(handle: string, image: string): RawRecord {
  return {
    type: 'IMAGEDEF_REACTOR',
    handle,
    tags: [t(5, handle), t(330, image), t(100, 'AcDbRasterImageDefReactor'), t(90, '2'), t(330, image)],
  };
}

/**
 * The IMAGE's group codes beyond position, vectors, size and definition (the model's `extra`, after
 * its subclass marker): class version, display flags (show the image, also when not aligned with the
 * screen), clipping off, brightness and contrast 50, fade 0, the reactor, and the default rectangular
 * clip boundary around all pixels (pixel centres are whole numbers, so the edges are at -0.5).
 */
export function imageExtra(reactor: string, pixels: [number, number]): DxfTag[] {
  return [
    t(100, 'AcDbRasterImage'),
    t(90, '0'),
    t(70, '3'),
    t(280, '0'),
    t(281, '50'),
    t(282, '50'),
    t(283, '0'),
    t(360, reactor),
    t(71, '1'),
    t(91, '2'),
    t(14, '-0.5'),
    t(24, '-0.5'),
    t(14, formatReal(pixels[0] - 0.5)),
    t(24, formatReal(pixels[1] - 0.5)),
  ];
}

/** An IMAGEDEF's file name (group code 1) and pixel size (10, 20). */
export function imageDefFile(record: RawRecord): { filename: string; pixels: [number, number] } {
  let filename = '';
  const pixels: [number, number] = [0, 0];
  let inGroup = false;
  for (const x of record.tags) {
    if (x.code === 102) inGroup = x.value.startsWith('{');
    else if (inGroup) continue;
    else if (x.code === 1) filename = x.value;
    else if (x.code === 10) pixels[0] = Number(x.value);
    else if (x.code === 20) pixels[1] = Number(x.value);
  }
  return { filename, pixels };
}

/** An IMAGEDEF's tags with `reactor` added to its ACAD_REACTORS group (made after the handle if absent). */
export function withReactor(record: RawRecord, reactor: string): DxfTag[] {
  const tags = record.tags;
  const open = tags.findIndex((x) => x.code === 102 && x.value === '{ACAD_REACTORS');
  if (open >= 0) {
    const close = tags.findIndex((x, i) => i > open && x.code === 102);
    const at = close >= 0 ? close : tags.length;
    return [...tags.slice(0, at), t(330, reactor), ...tags.slice(at)];
  }
  const handleAt = tags.findIndex((x) => x.code === 5);
  const at = handleAt + 1;
  return [...tags.slice(0, at), t(102, '{ACAD_REACTORS'), t(330, reactor), t(102, '}'), ...tags.slice(at)];
}
