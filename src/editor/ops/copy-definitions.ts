import type { DocumentState } from '../../../projections/editor-session.js';
import { IMAGE_DICT, imageDefFile, imageDefReactorRecord, withReactor } from '../dxf/image-records.js';
import { dictionaryEntries, dictionaryRecord, withDictionaryEntries } from '../dxf/records.js';
import { rootEntry } from '../dxf/structure.js';
import { normalizeHandle } from '../dxf/values.js';
import type { DxfTag, ImageEntity, RawRecord } from '../model.js';
import type { StepBuilder } from './steps.js';

/**
 * The objects an IMAGE or an underlay (PDFUNDERLAY, DWFUNDERLAY, DGNUNDERLAY) of another document
 * refers to, brought into the target as ezdxf's `add_image_def` / `add_underlay_def` make them: the
 * definition (IMAGEDEF, or PDF/DWF/DGN DEFINITION) in its dictionary under the root dictionary (made when
 * the target has none), listing the copies among its reactors; each copied IMAGE gets an IMAGEDEF_REACTOR
 * of its own. A definition the target already has for the same file (and pixel size, or page) is used
 * instead of a second one.
 */

/** Where each kind of definition lives: its dictionary under the root dictionary and its object type. */
interface DefinitionKind {
  dictionary: string;
  type: string;
}

const IMAGE_KIND: DefinitionKind = { dictionary: IMAGE_DICT, type: 'IMAGEDEF' };

/** The underlay entities and their definitions, as DXF names them. */
export const UNDERLAY_KINDS: Readonly<Record<string, DefinitionKind>> = {
  PDFUNDERLAY: { dictionary: 'ACAD_PDFDEFINITIONS', type: 'PDFDEFINITION' },
  DWFUNDERLAY: { dictionary: 'ACAD_DWFDEFINITIONS', type: 'DWFDEFINITION' },
  DGNUNDERLAY: { dictionary: 'ACAD_DGNDEFINITIONS', type: 'DGNDEFINITION' },
};

const t = (code: number, value: string): DxfTag => ({ code, value });

/** The tags of a record outside its application (102) groups, which name objects of its document. */
function ownTags(tags: readonly DxfTag[]): DxfTag[] {
  const out: DxfTag[] = [];
  let inGroup = false;
  for (const x of tags) {
    if (x.code === 102) inGroup = x.value.startsWith('{');
    else if (!inGroup) out.push(x);
  }
  return out;
}

/** What makes two definitions the same: their file, and the pixel size (image) or page (underlay). */
function sameFile(kind: DefinitionKind, a: RawRecord, b: RawRecord): boolean {
  if (kind === IMAGE_KIND) {
    const [x, y] = [imageDefFile(a), imageDefFile(b)];
    return x.filename === y.filename && x.pixels[0] === y.pixels[0] && x.pixels[1] === y.pixels[1];
  }
  const file = (r: RawRecord) => {
    const own = ownTags(r.tags);
    return `${own.find((x) => x.code === 1)?.value ?? ''}\u0000${own.find((x) => x.code === 2)?.value ?? ''}`;
  };
  return file(a) === file(b);
}

/** A dictionary of the target as this step leaves it: its record before (null when made) and its entries. */
interface PendingDictionary {
  before: RawRecord | null;
  record: RawRecord;
  entries: [string, string][];
  changed: boolean;
}

interface DefinitionCopier {
  /** The copy (handle `handle`) of IMAGE `image` for the target: its definition and a reactor of its own. */
  image(image: ImageEntity, handle: string): ImageEntity;
  /** The tags of the copy (handle `handle`) of an underlay `dxfType` for the target: its definition's handle. */
  underlay(dxfType: string, tags: DxfTag[], handle: string): DxfTag[];
  /** Pushes the dictionaries and definitions changed onto the step (once, after the copies). */
  finish(): void;
  /** Names (dictionary keys) of the image definitions added to the target. */
  readonly imageDefs: string[];
  /** Names (dictionary keys) of the underlay definitions added to the target. */
  readonly underlayDefs: string[];
}

export function definitionCopier(
  from: DocumentState,
  target: DocumentState,
  step: StepBuilder,
): DefinitionCopier {
  const imageDefs: string[] = [];
  const underlayDefs: string[] = [];
  const root = target.model.objects[0];
  const rootEntries = root?.type === 'DICTIONARY' ? dictionaryEntries(root) : [];
  let rootChanged = false;
  const dictionaries = new Map<string, PendingDictionary>();
  // Objects of the target this step adds (definitions, reactors) or lists more reactors in: before (null
  // when new) and after, pushed in the order first touched.
  const objects = new Map<string, { before: RawRecord | null; after: RawRecord }>();
  // Source definition handle -> target definition handle.
  const mapped = new Map<string, string>();
  const objectOf = (doc: DocumentState, handle: string) =>
    doc.model.objects.find((o) => o.handle !== undefined && normalizeHandle(o.handle) === handle);

  function dictionary(name: string): PendingDictionary | undefined {
    const known = dictionaries.get(name);
    if (known) return known;
    if (root?.type !== 'DICTIONARY' || !root.handle) return undefined;
    const existing = rootEntry(target.model, name);
    let pending: PendingDictionary;
    if (existing) {
      pending = { before: existing, record: existing, entries: dictionaryEntries(existing), changed: false };
    } else {
      const [handle] = step.handles(1) as [string];
      rootEntries.push([name, handle]);
      rootEntries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      rootChanged = true;
      pending = {
        before: null,
        record: dictionaryRecord(handle, root.handle, []),
        entries: [],
        changed: true,
      };
    }
    dictionaries.set(name, pending);
    return pending;
  }

  /** The target's definition for source definition `sourceHandle` of `kind`, copied in when it lacks one. */
  function definition(kind: DefinitionKind, sourceHandle: string): string | undefined {
    const key = normalizeHandle(sourceHandle);
    const known = mapped.get(key);
    if (known !== undefined) return known;
    const source = objectOf(from, key);
    if (source?.type !== kind.type) return undefined;
    const dict = dictionary(kind.dictionary);
    if (!dict) return undefined;
    const current = (handle: string) => objects.get(handle)?.after ?? objectOf(target, handle);
    const same = dict.entries.find(([, h]) => {
      const def = current(h);
      return def?.type === kind.type && sameFile(kind, def, source);
    });
    if (same) {
      mapped.set(key, same[1]);
      return same[1];
    }
    // Its name in the source's dictionary, made free in the target's as embed_image does (NAME_2...).
    const sourceDict = rootEntry(from.model, kind.dictionary);
    const wanted =
      (sourceDict ? dictionaryEntries(sourceDict).find(([, h]) => h === key)?.[0] : undefined) ??
      (kind === IMAGE_KIND
        ? imageDefFile(source).filename
        : ownTags(source.tags).find((x) => x.code === 2)?.value) ??
      kind.type;
    const taken = (n: string) => dict.entries.some(([k]) => k.toUpperCase() === n.toUpperCase());
    let name = wanted;
    for (let n = 2; taken(name); n++) name = `${wanted}_${n}`;
    const [handle] = step.handles(1) as [string];
    const dictHandle = dict.record.handle as string;
    // Its own tags (no reactors, no extension dictionary of the source), owned by the target's dictionary.
    const body = ownTags(source.tags).filter((x) => x.code !== 5 && x.code !== 330);
    const tags = [
      t(5, handle),
      t(102, '{ACAD_REACTORS'),
      t(330, dictHandle),
      t(102, '}'),
      t(330, dictHandle),
      ...body,
    ];
    objects.set(handle, { before: null, after: { type: kind.type, handle, tags } });
    dict.entries.push([name, handle]);
    dict.changed = true;
    (kind === IMAGE_KIND ? imageDefs : underlayDefs).push(name);
    mapped.set(key, handle);
    return handle;
  }

  /** Lists `reactor` among the reactors of target definition `handle`. */
  function addReactor(handle: string, reactor: string): void {
    const pending = objects.get(handle);
    const def = pending?.after ?? objectOf(target, handle);
    if (!def) return;
    objects.set(handle, {
      before: pending ? pending.before : def,
      after: { ...def, tags: withReactor(def, reactor) },
    });
  }

  return {
    imageDefs,
    underlayDefs,
    image(image, handle) {
      const def = definition(IMAGE_KIND, image.image_def);
      // The source's reactor pointer (360) and application groups name objects of the source.
      let inGroup = false;
      let inRaster = false;
      const extra: DxfTag[] = [];
      for (const x of image.extra ?? []) {
        if (x.code === 102) {
          inGroup = x.value.startsWith('{');
          continue;
        }
        if (inGroup) continue;
        if (x.code === 100) inRaster = x.value === 'AcDbRasterImage';
        if (inRaster && x.code === 360) continue;
        extra.push(x);
      }
      if (def === undefined) return { ...image, handle, image_def: '0', extra };
      const [reactor] = step.handles(1) as [string];
      objects.set(reactor, { before: null, after: imageDefReactorRecord(reactor, handle) });
      addReactor(def, reactor);
      // Where AutoCAD writes the pointer: after the fade (283), else at the end of AcDbRasterImage.
      const marker = extra.findIndex((x) => x.code === 100 && x.value === 'AcDbRasterImage');
      if (marker < 0) extra.push(t(100, 'AcDbRasterImage'), t(360, reactor));
      else {
        const next = extra.findIndex((x, i) => i > marker && x.code === 100);
        const end = next < 0 ? extra.length : next;
        const fade = extra.findIndex((x, i) => i > marker && i < end && x.code === 283);
        extra.splice(fade >= 0 ? fade + 1 : end, 0, t(360, reactor));
      }
      return { ...image, handle, image_def: def, extra };
    },
    underlay(dxfType, tags, handle) {
      const kind = UNDERLAY_KINDS[dxfType];
      if (!kind) return tags;
      let inReference = false;
      return tags.flatMap((x) => {
        if (x.code === 100) inReference = x.value === 'AcDbUnderlayReference';
        if (!inReference || x.code !== 340) return [x];
        const def = definition(kind, x.value);
        if (def === undefined) return [];
        addReactor(def, handle);
        return [t(340, def)];
      });
    },
    finish() {
      if (rootChanged && root?.handle)
        step.push({
          kind: 'object',
          key: root.handle,
          before: root,
          after: { ...root, tags: withDictionaryEntries(root, rootEntries) },
        });
      for (const dict of dictionaries.values()) {
        if (!dict.changed) continue;
        const key = dict.record.handle as string;
        step.push({
          kind: 'object',
          key,
          before: dict.before,
          after: { ...dict.record, tags: withDictionaryEntries(dict.record, dict.entries) },
        });
      }
      for (const [key, { before, after }] of objects) step.push({ kind: 'object', key, before, after });
    },
  };
}
