import { hash } from 'node:crypto';
import { type EditorRequest, isObject } from './request.js';

/**
 * The canonical text of a value, keys sorted: two request bodies are "the same" when these match.
 * Recorded as every mutation's `body_hash` and compared with a retry's, also after a resume, so the text
 * never changes: an `undefined` member or item is written `null` (as is anything JSON.stringify gives
 * no text for), an array hole nothing. One string built in one pass: the map/sort/join form it replaces
 * took a fifth of a one-entity POST's dispatch time in strings and arrays made to be joined.
 */
export function canonicalText(value: unknown): string {
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) text += ',';
      if (i in value) text += canonicalText(value[i]);
    }
    return `${text}]`;
  }
  if (isObject(value)) return membersText(value, undefined);
  return JSON.stringify(value) ?? 'null';
}

/** An object's members in key order, without the member `skip`. */
function membersText(value: Record<string, unknown>, skip: string | undefined): string {
  const keys = Object.keys(value);
  if (keys.length > 1) keys.sort();
  let text = '{';
  for (const key of keys) {
    if (key === skip) continue;
    if (text.length > 1) text += ',';
    text += JSON.stringify(key);
    text += ':';
    text += canonicalText(value[key]);
  }
  return `${text}}`;
}

/** The SHA-256 (hex) of a request's canonical text without its `request_id`. */
export const bodyHash = (request: EditorRequest): string =>
  hash('sha256', membersText(request, 'request_id'), 'hex');
