/**
 * A step too large for one event, cut into parts that fit. The store refuses an event over 4 MiB; a
 * step's size grows with what it changed (each erased entity travels whole, for undo), so deleting or
 * moving tens of thousands of entities at once needs several events. The first part is the step
 * event itself with the first changes; each further part is a StepContinued of the same document and
 * revision. They are appended in one write, so a reader finds all of them or none.
 */

import {
  type Change,
  editorEvent,
  isStepEvent,
  type NewEditorEvent,
  type StepData,
} from '../../streams/editor.js';
import { EventTooLargeError } from '../store/errors.js';
import { serializeEventBody } from '../store/validate.js';

/**
 * Bytes of changes per part: half the store's limit, so the step's other fields (its `result` may
 * list every handle it made) and the metadata fit beside them.
 */
const PART_BYTES = 2 * 1024 * 1024;

/** `event` as one event if its changes fit in `partBytes`, else cut into parts in the changes' order. */
export function stepParts(event: NewEditorEvent, partBytes = PART_BYTES): NewEditorEvent[] {
  if (!isStepEvent(event.type)) return [event];
  const data = event.data as StepData;
  const parts: Change[][] = [[]];
  let bytes = 0;
  for (const change of data.changes) {
    // The store's limit is in UTF-8 bytes, which a string's length does not give beyond ASCII.
    const size = Buffer.byteLength(JSON.stringify(change));
    const current = parts[parts.length - 1] as Change[];
    if (current.length > 0 && bytes + size > partBytes) {
      parts.push([change]);
      bytes = size;
    } else {
      current.push(change);
      bytes += size;
    }
  }
  if (parts.length === 1) return [event];
  const [first, ...rest] = parts as [Change[], ...Change[][]];
  return [
    { ...event, data: { ...data, changes: first } } as NewEditorEvent,
    ...rest.map((changes, i) =>
      editorEvent('StepContinued', {
        document_id: data.document_id,
        revision: data.revision,
        part: i + 1,
        changes,
      }),
    ),
  ];
}

/**
 * The event with its stored body, or, for a step too large for one event, its parts with theirs. A
 * part still too large (one change over the limit) throws the store's EventTooLargeError.
 */
export function sizedParts<E extends NewEditorEvent>(
  event: E,
  at: string,
): Array<{ event: E; body: string }> {
  try {
    return [{ event, body: serializeEventBody(event, at) }];
  } catch (error) {
    if (!(error instanceof EventTooLargeError) || !isStepEvent(event.type)) throw error;
    return stepParts(event).map((part) => {
      const sized = { ...event, type: part.type, data: part.data } as E;
      try {
        return { event: sized, body: serializeEventBody(sized, at) };
      } catch (partError) {
        // Named after the step: the continuation is ours, the step is what the caller asked for.
        if (!(partError instanceof EventTooLargeError)) throw partError;
        throw new EventTooLargeError(event.type, partError.size, partError.limit);
      }
    });
  }
}
