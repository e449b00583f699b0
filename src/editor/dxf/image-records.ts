import { dictSet } from '../dict.js';
import type { DxfDocumentModel, DxfTag, Entity, RawRecord } from '../model.js';
import { ownerOf } from './records.js';
import { formatReal, normalizeHandle } from './values.js';

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

/** Where an IMAGE's own tags are in its `extra`: after the AcDbRasterImage marker, up to the next one. */
function rasterSegment(extra: readonly DxfTag[]): [number, number] {
  const marker = extra.findIndex((x) => x.code === 100 && x.value === 'AcDbRasterImage');
  if (marker < 0) return [extra.length, extra.length];
  const next = extra.findIndex((x, i) => i > marker && x.code === 100);
  return [marker + 1, next < 0 ? extra.length : next];
}

/** The reactor handle (group code 360 of AcDbRasterImage; not an extension dictionary's) of an IMAGE. */
function reactorTag(extra: readonly DxfTag[]): string | undefined {
  const [from, to] = rasterSegment(extra);
  const tag = extra.slice(from, to).find((x) => x.code === 360);
  return tag ? normalizeHandle(tag.value) : undefined;
}

/**
 * The IMAGE an IMAGEDEF_REACTOR reacts for: its owner, or, when it has none before its subclass marker (as
 * netDxf writes it), the image handle of AcDbRasterImageDefReactor.
 */
function reactorImage(record: RawRecord): string {
  const owner = ownerOf(record.tags);
  if (owner !== '0') return owner;
  const marker = record.tags.findIndex((x) => x.code === 100 && x.value === 'AcDbRasterImageDefReactor');
  const image = marker < 0 ? undefined : record.tags.slice(marker).find((x) => x.code === 330);
  return image ? normalizeHandle(image.value) : '0';
}

/** Whether `def` lists `reactor` among its reactors. */
const listsReactor = (def: RawRecord, reactor: string): boolean => {
  let inReactors = false;
  for (const x of def.tags) {
    if (x.code === 102) inReactors = x.value === '{ACAD_REACTORS';
    else if (inReactors && x.code === 330 && normalizeHandle(x.value) === reactor) return true;
  }
  return false;
};

/**
 * Gives every IMAGE of `doc` whose IMAGEDEF exists a reactor of its own, as readers expect: an image
 * copied (same tags, new handle) or created without one gets a new IMAGEDEF_REACTOR, listed by its
 * definition; an image without a definition loses a reactor pointer that is not its own. A reactor the
 * file has for the image is its own, whichever way it names the image (`reactorImage`), so reading and
 * saving a drawing never adds one. Works on a shallow copy for writing: replaces `entities` and
 * `objects` instead of editing them.
 */
export function ensureImageReactors(doc: DxfDocumentModel, alloc: () => string): void {
  let objects: RawRecord[] | undefined;
  let entities: Record<string, Entity> | undefined;
  let index: Map<string, number> | undefined;
  let reactorOf: Map<string, string> | undefined;
  for (const e of Object.values(doc.entities)) {
    if (e.type !== 'Image') continue;
    index ??= new Map(doc.objects.map((o, i) => [o.handle ?? '', i]));
    reactorOf ??= new Map(
      doc.objects
        .filter((o) => o.type === 'IMAGEDEF_REACTOR' && o.handle !== undefined)
        .map((o) => [reactorImage(o), o.handle as string]),
    );
    const list = objects ?? doc.objects;
    const current = reactorTag(e.extra ?? []);
    const reactor = current === undefined ? undefined : list[index.get(current) ?? -1];
    const defAt = index.get(e.image_def) ?? -1;
    const def = list[defAt];
    if (reactor?.type === 'IMAGEDEF_REACTOR' && reactorImage(reactor) === e.handle) {
      // Its own reactor, which its definition may not list (then it does from now on).
      if (def?.type === 'IMAGEDEF' && current !== undefined && !listsReactor(def, current)) {
        objects ??= [...doc.objects];
        objects[defAt] = { ...def, tags: withReactor(def, current) };
      }
      continue;
    }
    if (def?.type !== 'IMAGEDEF' && current === undefined) continue;
    const extra = [...(e.extra ?? [])];
    if (!extra.some((x) => x.code === 100 && x.value === 'AcDbRasterImage')) {
      extra.push(t(100, 'AcDbRasterImage'));
    }
    const [from, to] = rasterSegment(extra);
    const own = extra.slice(from, to).filter((x) => x.code !== 360);
    objects ??= [...doc.objects];
    entities ??= { ...doc.entities };
    if (def?.type === 'IMAGEDEF') {
      // A reactor of the file for this image that the image does not point at is taken, else one is made.
      const found = reactorOf.get(e.handle);
      const handle = found ?? alloc();
      // Where AutoCAD has it: after the fade (283) when there is one, else at the end of the subclass.
      const fade = own.findIndex((x) => x.code === 283);
      own.splice(fade >= 0 ? fade + 1 : own.length, 0, t(360, handle));
      const listed = objects[defAt] as RawRecord;
      if (!listsReactor(listed, handle)) objects[defAt] = { ...listed, tags: withReactor(listed, handle) };
      if (found === undefined) {
        index.set(handle, objects.length);
        objects.push(imageDefReactorRecord(handle, e.handle));
      }
    }
    dictSet(entities, e.handle, { ...e, extra: [...extra.slice(0, from), ...own, ...extra.slice(to)] });
  }
  if (objects) doc.objects = objects;
  if (entities) doc.entities = entities;
}
