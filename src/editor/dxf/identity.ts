import { randomUUID } from 'node:crypto';
import type { DxfDocumentModel, DxfTag } from '../model.js';

const GUID = /^\{?([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})\}?$/;
const NIL = '00000000-0000-0000-0000-000000000000';

/** A GUID in the 36-character form, uppercase; undefined when `value` is not one (or is the nil GUID). */
export function parseGuid(value: string | undefined): string | undefined {
  const m = value === undefined ? null : GUID.exec(value.trim());
  const guid = m?.[1]?.toUpperCase();
  return guid && guid !== NIL ? guid : undefined;
}

export const newGuid = (): string => randomUUID().toUpperCase();

/** The header value DXF stores a GUID as: in braces. */
export const guidHeaderTags = (guid: string): DxfTag[] => [{ code: 2, value: `{${guid}}` }];

/**
 * The document's file identity: its $FINGERPRINTGUID, 36 characters, stable across save and open;
 * undefined for a drawing that has none yet (a file written without one, a new drawing before its first
 * `file_identity`).
 */
export function fingerprintGuid(doc: DxfDocumentModel): string | undefined {
  return parseGuid(doc.header.$FINGERPRINTGUID?.[0]?.value);
}
