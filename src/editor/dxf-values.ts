import type { DxfTag } from './model.js';

/** The JSON value a DXF group code holds: numbers for numeric codes, text for the rest. */
function tagValue(tag: DxfTag): string | number | boolean {
  const c = tag.code;
  const numeric =
    (c >= 10 && c <= 59) ||
    (c >= 60 && c <= 99) ||
    (c >= 140 && c <= 147) ||
    (c >= 170 && c <= 175) ||
    (c >= 270 && c <= 289) ||
    (c >= 370 && c <= 389) ||
    (c >= 400 && c <= 409) ||
    (c >= 1010 && c <= 1071);
  if (c >= 290 && c <= 299) return tag.value.trim() === '1';
  if (numeric) {
    const n = Number(tag.value);
    return Number.isFinite(n) ? n : tag.value;
  }
  return tag.value;
}

/** A header variable's tags as one value: a point (10/20/30) as an array, a single tag as its value. */
export function headerValue(tags: readonly DxfTag[]): unknown {
  if (tags.length === 1) return tagValue(tags[0] as DxfTag);
  if (tags.every((t) => t.code >= 10 && t.code <= 39)) return tags.map(tagValue);
  return tags.map((t) => ({ code: t.code, value: tagValue(t) }));
}
