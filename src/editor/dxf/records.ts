import type { DxfTag, RawRecord } from '../model.js';
import { normalizeHandle } from './values.js';

const t = (code: number, value: string): DxfTag => ({ code, value });

/** The name (group code 2) of a table record, '' when it has none. */
export function recordName(record: RawRecord): string {
  for (const x of record.tags) if (x.code === 2) return x.value;
  return '';
}

export function findRecord(records: readonly RawRecord[] | undefined, name: string): RawRecord | undefined {
  const key = name.toUpperCase();
  return records?.find((r) => recordName(r).toUpperCase() === key);
}

/** The first owner tag (330 outside a 102 group) of a record's tags, normalized; '0' when none. */
export function ownerOf(tags: readonly DxfTag[]): string {
  let inGroup = false;
  for (const x of tags) {
    if (x.code === 102) inGroup = x.value.startsWith('{');
    else if (x.code === 330 && !inGroup) return normalizeHandle(x.value);
    else if (x.code === 100) return '0';
  }
  return '0';
}

function tableRecord(type: string, subclass: string, handle: string, body: DxfTag[]): RawRecord {
  const handleCode = type === 'DIMSTYLE' ? 105 : 5;
  return {
    type,
    handle,
    tags: [t(handleCode, handle), t(330, '0'), t(100, 'AcDbSymbolTableRecord'), t(100, subclass), ...body],
  };
}

export function linetypeRecord(handle: string, name: string): RawRecord {
  return tableRecord('LTYPE', 'AcDbLinetypeTableRecord', handle, [
    t(2, name),
    t(70, '0'),
    t(3, name === 'Continuous' ? 'Solid line' : ''),
    t(72, '65'),
    t(73, '0'),
    t(40, '0.0'),
  ]);
}

export function textStyleRecord(handle: string, name: string): RawRecord {
  return tableRecord('STYLE', 'AcDbTextStyleTableRecord', handle, [
    t(2, name),
    t(70, '0'),
    t(40, '0.0'),
    t(41, '1.0'),
    t(50, '0.0'),
    t(71, '0'),
    t(42, '2.5'),
    t(3, 'txt'),
    t(4, ''),
  ]);
}

export function dimstyleRecord(handle: string, name: string): RawRecord {
  return tableRecord('DIMSTYLE', 'AcDbDimStyleTableRecord', handle, [t(2, name), t(70, '0')]);
}

export function viewportRecord(handle: string): RawRecord {
  return tableRecord('VPORT', 'AcDbViewportTableRecord', handle, [
    t(2, '*Active'),
    t(70, '0'),
    t(10, '0.0'),
    t(20, '0.0'),
    t(11, '1.0'),
    t(21, '1.0'),
    t(12, '0.0'),
    t(22, '0.0'),
    t(13, '0.0'),
    t(23, '0.0'),
    t(14, '0.5'),
    t(24, '0.5'),
    t(15, '0.5'),
    t(25, '0.5'),
    t(16, '0.0'),
    t(26, '0.0'),
    t(36, '1.0'),
    t(17, '0.0'),
    t(27, '0.0'),
    t(37, '0.0'),
    t(40, '1000.0'),
    t(41, '1.34'),
    t(42, '50.0'),
    t(43, '0.0'),
    t(44, '0.0'),
    t(50, '0.0'),
    t(51, '0.0'),
    t(71, '0'),
    t(72, '1000'),
    t(73, '1'),
    t(74, '3'),
    t(75, '0'),
    t(76, '0'),
    t(77, '0'),
    t(78, '0'),
  ]);
}

export function appidRecord(handle: string, name: string): RawRecord {
  return tableRecord('APPID', 'AcDbRegAppTableRecord', handle, [t(2, name), t(70, '0')]);
}

/** A hard-owner DICTIONARY with the given entries. */
export function dictionaryRecord(handle: string, owner: string, entries: [string, string][]): RawRecord {
  return {
    type: 'DICTIONARY',
    handle,
    tags: [
      t(5, handle),
      t(330, owner),
      t(100, 'AcDbDictionary'),
      t(281, '1'),
      ...entries.flatMap(([name, h]) => [t(3, name), t(350, h)]),
    ],
  };
}

/** ACAD_PLOTSTYLENAME: a dictionary with default whose only entry is the `Normal` placeholder. */
export function plotStyleNameRecords(dictHandle: string, owner: string, placeholder: string): RawRecord[] {
  return [
    {
      type: 'ACDBDICTIONARYWDFLT',
      handle: dictHandle,
      tags: [
        t(5, dictHandle),
        t(330, owner),
        t(100, 'AcDbDictionary'),
        t(281, '1'),
        t(3, 'Normal'),
        t(350, placeholder),
        t(100, 'AcDbDictionaryWithDefault'),
        t(340, placeholder),
      ],
    },
    { type: 'ACDBPLACEHOLDER', handle: placeholder, tags: [t(5, placeholder), t(330, dictHandle)] },
  ];
}

const isEntryCode = (code: number) => code === 350 || code === 360;

/** A dictionary's entries: name (3) and target handle (350 or 360), in order. */
export function dictionaryEntries(record: RawRecord): [string, string][] {
  const out: [string, string][] = [];
  const tags = record.tags;
  for (let i = 0; i < tags.length - 1; i++) {
    const a = tags[i] as DxfTag;
    const b = tags[i + 1] as DxfTag;
    if (a.code === 3 && isEntryCode(b.code)) {
      out.push([a.value, normalizeHandle(b.value)]);
      i++;
    }
  }
  return out;
}

/**
 * The dictionary's tags with its entries replaced: the new entries go where the first entry was (or
 * before its xdata, or at the end); every other tag stays.
 */
export function withDictionaryEntries(record: RawRecord, entries: [string, string][], code = 350): DxfTag[] {
  const out: DxfTag[] = [];
  const tags = record.tags;
  let placed = false;
  const place = () => {
    if (placed) return;
    placed = true;
    for (const [name, h] of entries) out.push(t(3, name), t(code, h));
  };
  for (let i = 0; i < tags.length; i++) {
    const a = tags[i] as DxfTag;
    const b = tags[i + 1];
    if (a.code === 3 && b && isEntryCode(b.code)) {
      place();
      i++;
      continue;
    }
    if (a.code >= 1000) place();
    out.push(a);
  }
  place();
  return out;
}

/** The dictionary's tags without the entries whose target is not kept. */
export function withoutDeadEntries(
  record: RawRecord,
  alive: (handle: string) => boolean,
): DxfTag[] | undefined {
  const tags = record.tags;
  let out: DxfTag[] | undefined;
  for (let i = 0; i < tags.length; i++) {
    const a = tags[i] as DxfTag;
    const b = tags[i + 1];
    if (a.code === 3 && b && isEntryCode(b.code) && !alive(normalizeHandle(b.value))) {
      out ??= tags.slice(0, i);
      i++;
      continue;
    }
    out?.push(a);
  }
  return out;
}
