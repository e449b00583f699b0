/**
 * The interactive picks of the GUI-hosted editor (`getpoint`, `user_select`) as pure decisions: what
 * is recorded when one is asked for, answered in the viewer, or cancelled. A pick is answered
 * `pending` at once (a REST connection must not wait for a person); its final answer is recorded as
 * the op's OperationAnswered, so `operation` and `events` report it from the log.
 */
import type { EditorSessionState, PendingPick } from '../../projections/editor-session.js';
import { type Answer, editorEvent, type NewEditorEvent } from '../../streams/editor.js';
import { dictGet, dictHas } from './dict.js';
import { EditorError, fail } from './errors.js';
import { handleList, point } from './request.js';

export type PickOp = PendingPick['op'];

export const DEFAULT_PROMPTS: Record<PickOp, string> = {
  getpoint: 'Specify a point',
  user_select: 'Select objects',
};

/** The `busy` refusal of anything that would change the session while `pick` waits. */
export function busyError(pick: PendingPick): EditorError {
  return new EditorError(
    'busy',
    `the editor is waiting for the person at the viewer to answer ${pick.op} ${pick.request_id} ` +
      `(${JSON.stringify(pick.prompt)}); answer it in the viewer or cancel it (op cancel)`,
    { pending: { request_id: pick.request_id, op: pick.op } },
  );
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

/** The events of the person's answer to `pick`: a point for getpoint, handles (pick order) for user_select. */
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
    if (missing.length > 0)
      fail('entity_absent', `no entity with handle ${missing.join(', ')} in the document`);
    if (pick.count !== null && handles.length > pick.count)
      fail('invalid_handles', `this pick takes at most ${pick.count} entities, got ${handles.length}`);
    result = { handles, count: handles.length };
    data = { handles, point: null };
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

/** The events that end `pick` without an answer; `by` says who ended it. */
export function cancelPick(session: EditorSessionState, pick: PendingPick, by: string): NewEditorEvent[] {
  const answer: Answer = {
    ok: false,
    code: 'cancelled',
    status: 'cancelled',
    error: `${pick.op} ${pick.request_id} was cancelled (${by}) before the person answered it`,
    request_id: pick.request_id,
    document_id: pick.document_id,
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
export function pendingPick(session: EditorSessionState, requestId: unknown): PendingPick {
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
