import { dictGet, dictSet } from '../dict.js';
import type { Point3, XdataItem } from '../model.js';
import type { TagWriter } from './tag-writer.js';
import type { TagList } from './tags.js';
import { formatInt, formatReal } from './values.js';

type Xdata = Record<string, XdataItem[]>;

const isPointCode = (code: number) => code >= 1010 && code <= 1013;
const isRealCode = (code: number) => code >= 1040 && code <= 1059;
const isIntCode = (code: number) => code >= 1060 && code <= 1071;

/**
 * Reads the xdata of one entity or record: tags[start..end) begin with a `1001 APPID` tag; each app's
 * items run to the next 1001. Points (1010-1013 with their y and z tags) become one item.
 */
export function readXdata(t: TagList, start: number, end: number, decode: (s: string) => string): Xdata {
  const xdata: Xdata = {};
  let items: XdataItem[] | undefined;
  const codes = t.codes;
  for (let i = start; i < end; i++) {
    const code = codes[i] as number;
    if (code === 1001) {
      const app = t.value(i).trim();
      items = dictGet(xdata, app) ?? [];
      dictSet(xdata, app, items);
      continue;
    }
    if (!items) continue;
    if (isPointCode(code)) {
      const point: Point3 = [t.real(i), 0, 0];
      if (i + 1 < end && codes[i + 1] === code + 10) point[1] = t.real(++i);
      if (i + 1 < end && codes[i + 1] === code + 20) point[2] = t.real(++i);
      items.push({ code, value: point });
    } else if (isRealCode(code)) {
      items.push({ code, value: t.real(i) });
    } else if (isIntCode(code)) {
      items.push({ code, value: t.int(i) });
    } else {
      items.push({ code, value: decode(t.value(i)) });
    }
  }
  return xdata;
}

export function writeXdata(w: TagWriter, xdata: Xdata | undefined): void {
  if (!xdata) return;
  for (const [app, items] of Object.entries(xdata)) {
    if (items.length === 0) continue;
    w.tag(1001, app);
    for (const item of items) {
      const { code, value } = item;
      if (Array.isArray(value)) {
        w.tag(code, formatReal(value[0]));
        w.tag(code + 10, formatReal(value[1]));
        w.tag(code + 20, formatReal(value[2]));
      } else if (typeof value === 'number') {
        w.tag(code, isIntCode(code) ? formatInt(value) : formatReal(value));
      } else {
        w.tag(code, value);
      }
    }
  }
}

/** APPID names an xdata record uses. */
export function xdataApps(xdata: Xdata | undefined): string[] {
  return xdata ? Object.entries(xdata).flatMap(([app, items]) => (items.length > 0 ? [app] : [])) : [];
}
