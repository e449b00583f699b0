import type { DxfTag } from '../../../src/editor/model.js';

/** DXF text from group-code/value pairs, LF line ends, codes right-aligned as writers do. */
export function dxf(...pairs: [number, string | number][]): string {
  return `${pairs.map(([code, value]) => `${String(code).padStart(3, ' ')}\n${value}`).join('\n')}\n`;
}

/** A minimal R12 file: an ENTITIES section only. */
export const section = (name: string, ...pairs: [number, string | number][]): [number, string | number][] => [
  [0, 'SECTION'],
  [2, name],
  ...pairs,
  [0, 'ENDSEC'],
];

export const EOF: [number, string][] = [[0, 'EOF']];

export const toCrlf = (text: string) => text.replace(/\n/g, '\r\n');

export const tagsOf = (pairs: [number, string | number][]): DxfTag[] =>
  pairs.map(([code, value]) => ({ code, value: String(value) }));
