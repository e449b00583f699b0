import { editorEvent } from '../../../streams/editor.js';
import { dictGet, dictHas } from '../dict.js';
import { EditorError, fail } from '../errors.js';
import { type Bounds, bounds } from '../geometry/index.js';
import { documentContext } from '../geometry/types.js';
import { cancelledResult, cancelPick, type PickOp, pickFields, pickOptions } from '../picks.js';
import { handleList } from '../request.js';
import { entitiesOf } from './entities.js';
import { operationStatus } from './info.js';
import { docOf, type OpContext, type OpGroup, type OpOutcome } from './types.js';

/** Margin around what `view_focus` frames, as a share of its size, so nothing sits on the edge. */
const FOCUS_MARGIN = 0.05;
/** View height when what is framed has no extent (one point): a unit square around it. */
const POINT_VIEW = 1;

/** `window` as [x1, y1, x2, y2] in any corner order; `invalid_point` otherwise. */
function windowOf(value: unknown): [number, number, number, number] {
  if (
    !Array.isArray(value) ||
    value.length !== 4 ||
    !value.every((n) => typeof n === 'number' && Number.isFinite(n))
  ) {
    return fail('invalid_point', `window must be [x1, y1, x2, y2] (4 numbers), got ${JSON.stringify(value)}`);
  }
  const [x1, y1, x2, y2] = value as [number, number, number, number];
  return [Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)];
}

/** A `window` that encloses an area, as bounds (a line or a point cannot be plotted or captured). */
export function windowArea(value: unknown): Bounds {
  const [x1, y1, x2, y2] = windowOf(value);
  if (!(x2 > x1 && y2 > y1))
    return fail(
      'invalid_point',
      `window ${JSON.stringify(value)} encloses no area: its corners must differ in x and in y`,
    );
  return { min: [x1, y1, 0], max: [x2, y2, 0] };
}

/**
 * `view_focus`: centres the view on `handles` (their joint extent) or on a `window`, and sizes it to
 * fit with a small margin. Recorded as a ViewFocused event (the viewer follows it); not an undo step.
 */
function viewFocus(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  const { handles: rawHandles, window: rawWindow } = ctx.request;
  if ((rawHandles === undefined) === (rawWindow === undefined)) {
    fail(
      'invalid_request',
      'view_focus needs either handles (an array of handles) or window [x1, y1, x2, y2]',
    );
  }
  let box: [number, number, number, number];
  let handles: string[] = [];
  if (rawWindow !== undefined) {
    box = windowOf(rawWindow);
  } else {
    handles = handleList(rawHandles);
    if (handles.length === 0) fail('invalid_handles', 'handles must name at least one entity');
    const geometry = documentContext(doc.model);
    let min = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
    let max = [Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY];
    for (const entity of entitiesOf(doc, handles)) {
      const b = bounds(entity, geometry);
      if (!b) continue;
      min = [Math.min(min[0] as number, b.min[0]), Math.min(min[1] as number, b.min[1])];
      max = [Math.max(max[0] as number, b.max[0]), Math.max(max[1] as number, b.max[1])];
    }
    if (!Number.isFinite(min[0] as number)) {
      fail('no_extent', `none of the entities ${handles.join(', ')} has an extent to focus on`);
    }
    box = [min[0] as number, min[1] as number, max[0] as number, max[1] as number];
  }
  const [x1, y1, x2, y2] = box;
  const width = x2 - x1;
  const height = y2 - y1;
  const center: [number, number] = [(x1 + x2) / 2, (y1 + y2) / 2];
  const size = width === 0 && height === 0 ? POINT_VIEW : Math.max(width, height) * (1 + 2 * FOCUS_MARGIN);
  return {
    events: [editorEvent('ViewFocused', { document_id: doc.id, center, height: size, width: size })],
    result: { center, height: size, width: size, handles },
  };
}

/**
 * `getpoint` and `user_select` wait for a person to pick in the viewer of the GUI-hosted editor. A
 * headless editor has nobody to ask: they are refused with `gui_required` (409) and nothing is recorded.
 */
const headless =
  (op: PickOp) =>
  (ctx: OpContext): OpOutcome | undefined =>
    ctx.gui
      ? undefined
      : fail(
          'gui_required',
          `${op} needs a person picking in the GUI-hosted editor's viewer; this editor runs headless`,
        );

/**
 * GUI-hosted, a pick is answered `pending` at once with its request_id (a REST connection must not wait
 * for a person) and recorded as PickRequested; the person's answer, or a cancel, is recorded later as
 * the op's final answer. Every other mutation is `busy` meanwhile (the dispatcher checks that).
 */
const requestPick =
  (op: PickOp) =>
  (ctx: OpContext): OpOutcome => {
    const doc = docOf(ctx);
    const requestId = ctx.request.request_id as string;
    const fields = pickFields(op, ctx.request);
    // detail and filters of a user_select stay in this pending answer, read back when the person answers.
    const options = op === 'user_select' ? pickOptions(ctx.request) : {};
    return {
      events: [editorEvent('PickRequested', { request_id: requestId, op, document_id: doc.id, ...fields })],
      result: { op, ...fields, ...options },
      fields: { status: 'pending' },
    };
  };

/** The request id a cancel names (`target_request_id`, else `id`), undefined when it names none. */
function cancelTarget(ctx: OpContext): string | undefined {
  const id = ctx.request.target_request_id ?? ctx.request.id;
  if (id === undefined) return undefined;
  if (typeof id !== 'string' || !(dictHas(ctx.session.operations, id) || ctx.pending?.(id)))
    throw new EditorError('unknown_operation', `no operation with request_id ${JSON.stringify(id)}`);
  return id;
}

/** What a cancel answers when what it names is not a pending pick: nothing cancelled, and why. */
function nothingToCancel(ctx: OpContext, id: string | undefined): OpOutcome {
  const status = id === undefined ? undefined : operationStatusOf(ctx, id);
  const reason =
    id === undefined
      ? 'no getpoint or user_select is pending'
      : `${id} is not a pending getpoint or user_select (it is ${status})`;
  return { events: [], result: { cancelled: false, count: 0, reason } };
}

function operationStatusOf(ctx: OpContext, id: string): string {
  const running = ctx.pending?.(id);
  if (running) return running.status;
  const recorded = dictGet(ctx.session.operations, id);
  return recorded ? operationStatus(recorded.answer) : 'unknown';
}

/**
 * `cancel` without anything pending to cancel answers at once (it never waits behind a slow
 * mutation); one that names the pending pick, or a pick still queued, goes through the queue.
 */
function cancelAtOnce(ctx: OpContext): OpOutcome | undefined {
  const id = cancelTarget(ctx);
  const pick = ctx.session.pick;
  if (pick && (id === undefined || id === pick.request_id)) return undefined;
  // A running plot, capture or query stops at its next slice and answers `cancelled`; this answers at once.
  const by = typeof ctx.request.request_id === 'string' ? `cancel ${ctx.request.request_id}` : 'cancel';
  const stopped = ctx.cancelRunning?.(id, by);
  if (stopped)
    return {
      events: [],
      result: {
        cancelled: true,
        count: stopped.count,
        cancelled_request_id: stopped.request_id,
        op: stopped.op,
      },
      fields: { status: 'cancelled' },
    };
  const queued = id !== undefined && ctx.pending?.(id);
  if (queued && (queued.op === 'getpoint' || queued.op === 'user_select')) return undefined;
  return nothingToCancel(ctx, id);
}

/**
 * `cancel`: ends the pending `getpoint` / `user_select` (the one named, else whichever is pending). It
 * answers as the pick settles, as the reference editor does: status `cancelled`, `result.cancelled: true`,
 * and `cancelled_request_id` naming the pick.
 */
function cancel(ctx: OpContext): OpOutcome {
  const id = cancelTarget(ctx);
  const pick = ctx.session.pick;
  if (!pick || (id !== undefined && id !== pick.request_id)) return nothingToCancel(ctx, id);
  const by = typeof ctx.request.request_id === 'string' ? `cancel ${ctx.request.request_id}` : 'cancel';
  return {
    events: cancelPick(ctx.session, pick, by),
    result: { ...cancelledResult(pick.op), cancelled_request_id: pick.request_id, op: pick.op },
    fields: { status: 'cancelled' },
  };
}

export const interactionOps = {
  view_focus: { kind: 'mutation', document: 'required', run: viewFocus },
  getpoint: {
    kind: 'mutation',
    document: 'active',
    atOnce: headless('getpoint'),
    run: requestPick('getpoint'),
  },
  user_select: {
    kind: 'mutation',
    document: 'active',
    atOnce: headless('user_select'),
    run: requestPick('user_select'),
  },
  cancel: { kind: 'mutation', document: 'none', whilePicking: true, atOnce: cancelAtOnce, run: cancel },
} satisfies OpGroup;
