/**
 * The ATTRIB entities an Insert carries (raw tags, each from its `0 ATTRIB` tag): when the Insert moves,
 * its attributes move with it. Each ATTRIB is read as the Text it is, transformed as Text, written back.
 * An ATTDEF (kept raw) is the same text with its tag (2) shown: read and moved the same way.
 */
import type { DxfTag, InsertEntity, Point3, TextEntity } from '../model.js';

const num = (tag: DxfTag | undefined) => {
  const n = tag ? Number(tag.value) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
};

/** Top-level tags of one ATTRIB: those before an embedded multiline-text object (101). */
function ownEnd(group: readonly DxfTag[]): number {
  const at = group.findIndex((t) => t.code === 101);
  return at < 0 ? group.length : at;
}

function readPoint(group: readonly DxfTag[], end: number, code: number): Point3 | undefined {
  const find = (c: number) => num(group.slice(0, end).find((t) => t.code === c));
  const x = find(code);
  const y = find(code + 10);
  return x === undefined || y === undefined ? undefined : [x, y, find(code + 20) ?? 0];
}

function asText(group: readonly DxfTag[]): TextEntity | undefined {
  return textOf(group, group.slice(0, ownEnd(group)).find((t) => t.code === 1)?.value ?? '');
}

function textOf(group: readonly DxfTag[], value: string): TextEntity | undefined {
  const end = ownEnd(group);
  const own = group.slice(0, end);
  const position = readPoint(group, end, 10);
  const height = num(own.find((t) => t.code === 40));
  if (!position || height === undefined) return undefined;
  const extra: DxfTag[] = [];
  for (const [from, to] of [
    [71, 71],
    [72, 72],
    [74, 73],
    [41, 41],
  ] as const) {
    const tag = own.find((t) => t.code === from);
    if (tag) extra.push({ code: to, value: tag.value });
  }
  const text: TextEntity = {
    type: 'Text',
    handle: '',
    space: '',
    layer: '',
    color: 256,
    linetype: 'BYLAYER',
    lineweight: -1,
    value,
    position,
    height,
    rotation: num(own.find((t) => t.code === 50)) ?? 0,
    style: '',
    extra,
  };
  const align = readPoint(group, end, 11);
  if (align) text.align_point = align;
  return text;
}

/** Sets (or adds after `after`) the first own tag with `code`. */
function put(group: DxfTag[], end: number, code: number, value: number, after: number): number {
  const at = group.findIndex((t, i) => i < end && t.code === code);
  if (at >= 0) {
    group[at] = { code, value: String(value) };
    return end;
  }
  const anchor = group.findIndex((t, i) => i < end && t.code === after);
  group.splice(anchor < 0 ? end : anchor + 1, 0, { code, value: String(value) });
  return end + 1;
}

function writeBack(group: DxfTag[], before: TextEntity, after: TextEntity): void {
  let end = ownEnd(group);
  const point = (code: number, p: Point3) => {
    end = put(group, end, code, p[0], code);
    end = put(group, end, code + 10, p[1], code);
    if (group.some((t, i) => i < end && t.code === code + 20))
      end = put(group, end, code + 20, p[2], code + 10);
  };
  point(10, after.position);
  if (after.align_point) point(11, after.align_point);
  end = put(group, end, 40, after.height, 40);
  if (after.rotation !== before.rotation) end = put(group, end, 50, after.rotation, 40);
  const flags = after.extra?.find((t) => t.code === 71)?.value;
  const was = before.extra?.find((t) => t.code === 71)?.value;
  if (flags !== undefined && flags !== was) put(group, end, 71, Number(flags), 50);
}

/** The attributes' tags with every ATTRIB transformed by `transformText`; other tags as they were. */
export function transformAttribs(
  tags: readonly DxfTag[],
  transformText: (t: TextEntity) => TextEntity,
): DxfTag[] {
  const out: DxfTag[] = [];
  let i = 0;
  while (i < tags.length) {
    let j = i + 1;
    while (j < tags.length && tags[j]?.code !== 0) j++;
    const group = tags.slice(i, j);
    const text = group[0]?.code === 0 && group[0].value === 'ATTRIB' ? asText(group) : undefined;
    if (text) writeBack(group, text, transformText(text));
    out.push(...group);
    i = j;
  }
  return out;
}

/** A text-like entity's tags (ATTRIB, ATTDEF, from its `0` tag or from after it) as the Text it draws. */
interface TagText {
  text: TextEntity;
  /** Flag 1 of code 70: the attribute is not shown. */
  invisible: boolean;
}

/**
 * The Text of one ATTRIB's or ATTDEF's tags, with its own handle, layer, colour and lineweight: what it
 * shows is its value (1), or for an ATTDEF (`showTag`) its tag (2), as CAD programs draw a definition.
 */
export function tagText(group: readonly DxfTag[], layer: string, showTag = false): TagText | undefined {
  // Own tags only: an embedded multiline-text object (101) has its own 8, 62, 70...
  const own = group.slice(0, ownEnd(group));
  const value = (code: number) => own.find((t) => t.code === code)?.value;
  const read = textOf(group, value(showTag ? 2 : 1) ?? '');
  if (!read) return undefined;
  const text: TextEntity = {
    ...read,
    handle: value(5) ?? '',
    layer: value(8) ?? layer,
    color: Number(value(62) ?? 256),
    lineweight: Number(value(370) ?? -1),
  };
  const style = value(7);
  if (style !== undefined) text.style = style;
  return { text, invisible: (Number(value(70) ?? 0) & 1) !== 0 };
}

/** The ATTRIBs an Insert carries, read as the Text entities they are, with their own layer, colour and visibility. */
export function insertAttribs(insert: InsertEntity): TagText[] {
  const out: TagText[] = [];
  const tags = insert.attribs ?? [];
  let i = 0;
  while (i < tags.length) {
    let j = i + 1;
    while (j < tags.length && tags[j]?.code !== 0) j++;
    const group = tags.slice(i, j);
    i = j;
    if (group[0]?.value !== 'ATTRIB') continue;
    const read = tagText(group, insert.layer);
    if (read) out.push(read);
  }
  return out;
}

/** One text-like entity's tags with its text transformed by `transformText` (a copy; the input is kept). */
export function transformTextTags(
  tags: readonly DxfTag[],
  transformText: (t: TextEntity) => TextEntity,
): DxfTag[] {
  const group = [...tags];
  const text = asText(group);
  if (text) writeBack(group, text, transformText(text));
  return group;
}
