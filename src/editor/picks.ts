/**
 * The interactive picks of the GUI-hosted editor (`getpoint`, `user_select`) as pure decisions: what
 * is recorded when one is asked for, answered in the viewer, or cancelled. A pick is answered
 * `pending` at once (a REST connection must not wait for a person); its final answer is recorded as
 * the op's OperationAnswered, so `operation` and `events` report it from the log.
 */
import type { DocumentState, EditorSessionState, PendingPick } from '../../projections/editor-session.js';
import { type Answer, editorEvent, type NewEditorEvent } from '../../streams/editor.js';
import { dictGet, dictHas } from './dict.js';
import { DXF_TYPE_OF } from './dxf/entity-types.js';
import { EditorError, fail } from './errors.js';
import { documentContext } from './geometry/index.js';
import type { Entity } from './model.js';
import { entityAnswer } from './query/answer.js';
import { handleList, point } from './request.js';

export type PickOp = PendingPick['op'];

const DEFAULT_PROMPTS: Record<PickOp, string> = {
  getpoint: 'Specify a point',
  user_select: 'Select objects',
};

/**
 * The refusal of `op` while `pick` waits: `interactive_pending` for another pick (one person answers one
 * at a time), `busy` for anything else that would change the session.
 */
export function pickRefusal(pick: PendingPick, op: string): EditorError {
  if (op !== 'getpoint' && op !== 'user_select') return busyError(pick);
  return new EditorError(
    'interactive_pending',
    `${pick.op} ${pick.request_id} (${JSON.stringify(pick.prompt)}) is already waiting for the person at the viewer; wait for it, or cancel it (op cancel)`,
    { pending: { request_id: pick.request_id, op: pick.op } },
  );
}

/** The `busy` refusal of anything that would change the session while `pick` waits. */
function busyError(pick: PendingPick): EditorError {
  return new EditorError(
    'busy',
    `the editor is waiting for the person at the viewer to answer ${pick.op} ${pick.request_id} ` +
      `(${JSON.stringify(pick.prompt)}); answer it in the viewer or cancel it (op cancel)`,
    { pending: { request_id: pick.request_id, op: pick.op } },
  );
}

/** `user_select` answers entities at one of these details (`full` by default, as the reference editor). */
const PICK_DETAILS = ['summary', 'geometry', 'full'] as const;

/**
 * What a user_select answer keeps of the request besides the recorded pick: `detail` of the entities
 * answered, and the `type` / `layer` filters picks must pass (others are counted in `ignored`). They ride
 * in the pending answer's result, so the pick's events keep their shape.
 */
export function pickOptions(request: Record<string, unknown>): {
  detail: (typeof PICK_DETAILS)[number];
  type: string | null;
  layer: string | null;
} {
  const { detail = 'full', type, layer } = request;
  if (!(PICK_DETAILS as readonly unknown[]).includes(detail))
    fail('invalid_detail', `detail must be summary, geometry or full, got ${JSON.stringify(detail)}`);
  const filter = (value: unknown, name: string) => {
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string')
      return fail('invalid_request', `${name} must be a string, got ${JSON.stringify(value)}`);
    return value.trim() === '' ? null : value.trim();
  };
  return {
    detail: detail as (typeof PICK_DETAILS)[number],
    type: filter(type, 'type'),
    layer: filter(layer, 'layer'),
  };
}

/** The fields of a pick request: `prompt` (string), and for user_select `count` (whole number > 0) and `single`. */
export function pickFields(
  op: PickOp,
  request: Record<string, unknown>,
): { prompt: string; count: number | null; single: boolean } {
  const { prompt, count, single } = request;
  if (prompt !== undefined && typeof prompt !== 'string')
    fail('invalid_request', `prompt must be a string, got ${JSON.stringify(prompt)}`);
  if (op === 'getpoint')
    return { prompt: (prompt as string | undefined) || DEFAULT_PROMPTS[op], count: null, single: true };
  if (count !== undefined && !(Number.isInteger(count) && (count as number) > 0))
    fail('invalid_request', `count must be a whole number greater than 0, got ${JSON.stringify(count)}`);
  if (single !== undefined && typeof single !== 'boolean')
    fail('invalid_request', `single must be true or false, got ${JSON.stringify(single)}`);
  return {
    prompt: (prompt as string | undefined) || DEFAULT_PROMPTS[op],
    count: single === true ? 1 : ((count as number | undefined) ?? null),
    single: single === true,
  };
}

/** The pick's final answer as its OperationAnswered (same request id and body hash as its pending one). */
function finalAnswer(session: EditorSessionState, pick: PendingPick, answer: Answer): NewEditorEvent {
  const record = dictGet(session.operations, pick.request_id);
  return editorEvent('OperationAnswered', {
    request_id: pick.request_id,
    op: pick.op,
    body_hash: record?.body_hash ?? '',
    document_id: pick.document_id,
    revision: null,
    answer,
  });
}

/** Whether `entity` passes a user_select's `type` (its type or DXF name) and `layer` filters, case-insensitively. */
function passes(entity: Entity, options: ReturnType<typeof pickOptions>): boolean {
  if (options.layer !== null && entity.layer.toUpperCase() !== options.layer.toUpperCase()) return false;
  if (options.type === null) return true;
  const wanted = options.type.toUpperCase();
  const dxf = entity.type === 'Raw' ? entity.dxf_type : DXF_TYPE_OF[entity.type];
  return entity.type.toUpperCase() === wanted || dxf.toUpperCase() === wanted;
}

/** The options a user_select was asked with, from its pending answer (defaults for one recorded before them). */
function askedOptions(session: EditorSessionState, pick: PendingPick): ReturnType<typeof pickOptions> {
  const result = dictGet(session.operations, pick.request_id)?.answer.result;
  try {
    return pickOptions(
      typeof result === 'object' && result !== null ? (result as Record<string, unknown>) : {},
    );
  } catch {
    return { detail: 'full', type: null, layer: null };
  }
}

/**
 * The events of the person's answer to `pick`: a point for getpoint; for user_select the handles in pick
 * order that pass its filters (the others counted in `ignored`) and those entities at its `detail`.
 */
export function completePick(
  session: EditorSessionState,
  requestId: unknown,
  input: { point?: unknown; handles?: unknown },
): { events: NewEditorEvent[]; result: Record<string, unknown> } {
  const pick = pendingPick(session, requestId);
  const doc = session.documents[String(pick.document_id)];
  let result: Record<string, unknown>;
  let data: { point: [number, number, number] | null; handles: string[] | null };
  if (pick.op === 'getpoint') {
    const p = point(input.point, 'point');
    result = { point: p };
    data = { point: p, handles: null };
  } else {
    const handles = [...new Set(handleList(input.handles))];
    const missing = handles.filter((h) => !dictHas(doc?.model.entities, h));
    if (missing.length > 0 || !doc)
      fail('entity_absent', `no entity with handle ${missing.join(', ')} in the document`);
    if (pick.count !== null && handles.length > pick.count)
      fail('invalid_handles', `this pick takes at most ${pick.count} entities, got ${handles.length}`);
    const options = askedOptions(session, pick);
    const model = (doc as DocumentState).model;
    const kept = handles.filter((h) => passes(dictGet(model.entities, h) as Entity, options));
    const context = documentContext(model);
    result = {
      cancelled: false,
      handles: kept,
      count: kept.length,
      ignored: handles.length - kept.length,
      entities: kept.map((h) => entityAnswer(dictGet(model.entities, h) as Entity, options.detail, context)),
    };
    data = { handles: kept, point: null };
  }
  const answer: Answer = {
    ok: true,
    status: 'completed',
    request_id: pick.request_id,
    document_id: pick.document_id,
    result,
    changes: [],
  };
  return {
    events: [
      editorEvent('PickCompleted', {
        request_id: pick.request_id,
        op: pick.op,
        document_id: pick.document_id,
        ...data,
      }),
      finalAnswer(session, pick, answer),
    ],
    result: { request_id: pick.request_id, op: pick.op, ...result },
  };
}

/** What a cancelled pick settles with, as the reference editor answers it. */
export const cancelledResult = (op: PickOp): Record<string, unknown> =>
  op === 'getpoint' ? { cancelled: true } : { cancelled: true, count: 0, handles: [], entities: [] };

/**
 * The events that end `pick` without an answer; `by` says who ended it. The pick settles `ok` with
 * status `cancelled` and `result.cancelled: true`.
 */
export function cancelPick(session: EditorSessionState, pick: PendingPick, by: string): NewEditorEvent[] {
  const answer: Answer = {
    ok: true,
    status: 'cancelled',
    request_id: pick.request_id,
    document_id: pick.document_id,
    result: { ...cancelledResult(pick.op), by },
    changes: [],
  };
  return [
    editorEvent('PickCancelled', {
      request_id: pick.request_id,
      op: pick.op,
      document_id: pick.document_id,
      by,
    }),
    finalAnswer(session, pick, answer),
  ];
}

/** The pending pick `requestId` names (any pending one when it is undefined); `no_pick_pending` otherwise. */
function pendingPick(session: EditorSessionState, requestId: unknown): PendingPick {
  const pick = session.pick;
  if (!pick) return fail('no_pick_pending', 'no getpoint or user_select is waiting for an answer');
  if (requestId !== undefined && requestId !== pick.request_id) {
    fail(
      'no_pick_pending',
      `${JSON.stringify(requestId)} is not the pending pick (${pick.op} ${pick.request_id} is)`,
    );
  }
  return pick;
}

/**
 * The person's selection in the viewer, in the order picked: a SelectionChanged of source `viewer`.
 * Only on the active document, and not while a pick waits (the viewer's clicks answer the pick then).
 */
export function viewerSelection(
  session: EditorSessionState,
  documentId: unknown,
  rawHandles: unknown,
): { events: NewEditorEvent[]; result: Record<string, unknown> } {
  if (session.pick) throw busyError(session.pick);
  const doc = typeof documentId === 'number' ? session.documents[String(documentId)] : undefined;
  if (!doc) return fail('document_closed', `document ${JSON.stringify(documentId ?? null)} is not open`);
  if (doc.id !== session.active)
    fail('document_not_active', `document ${doc.id} is open but not the active document`);
  const handles = [...new Set(handleList(rawHandles))];
  const missing = handles.filter((h) => !dictHas(doc.model.entities, h));
  if (missing.length > 0)
    fail('entity_absent', `no entity with handle ${missing.join(', ')} in the document`);
  return {
    events: [editorEvent('SelectionChanged', { document_id: doc.id, handles, source: 'viewer' })],
    result: { document_id: doc.id, handles, count: handles.length },
  };
}
