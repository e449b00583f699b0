import { dictGet, dictHas } from '../dict.js';
import { modeledTableRecords } from '../dxf/index.js';
import { headerValue } from '../dxf-values.js';
import { currentLayer } from '../entity-input.js';
import { EditorError, fail } from '../errors.js';
import { formatHandle } from '../handles.js';
import type { RawRecord } from '../model.js';
import { nameKey } from '../names.js';
import { docOf, type OpContext, type OpGroup, type OpOutcome } from './types.js';

/**
 * `state` (and its alias `hello`): the dispatcher adds the session's state to every answer under `state`;
 * this op also answers it at the top level, as the reference editor does (`document_id`, `session_id`,
 * `version`, `revision`, `documents`...), with `selection` as the handles in pick order and `operation`
 * as the request id of the operation running or pending (the `state` object keeps the fuller forms).
 */
function state(ctx: OpContext): OpOutcome {
  const view = ctx.stateView?.() ?? {};
  const active = ctx.session.active === null ? undefined : ctx.session.documents[String(ctx.session.active)];
  const operation = view.operation as { request_id?: unknown } | null | undefined;
  // Written out rather than spread: this is the hottest read of the REST surface (GET /state). The
  // answer's `document_id` is the dispatcher's (the active document); repeating it here would redefine a
  // key of the answer object, which costs V8 its fast properties.
  return {
    events: [],
    fields: {
      protocol: 1,
      mode: ctx.gui ? 'gui' : 'headless',
      session_id: view.session_id,
      version: view.version,
      revision: view.revision,
      geometry_revision: view.geometry_revision,
      hand_seed: active ? formatHandle(active.model.handseed) : null,
      documents: view.documents,
      selection: active ? [...active.selection] : [],
      operation: operation?.request_id ?? null,
    },
  };
}

/**
 * The status an answer reports: its own `status` when it has one (`pending` picks, `cancelled`
 * ones), else `completed` or `failed`.
 */
export function operationStatus(answer: { ok: boolean; status?: unknown }): string {
  if (typeof answer.status === 'string') return answer.status;
  return answer.ok ? 'completed' : 'failed';
}

/**
 * `operation`: a mutation by request_id: running (or queued), or its recorded answer; a capture or
 * query running beside the queue answers `running` too (they are never recorded). The answer's
 * `status` is the operation's own (`running`, `pending`, `completed`, `cancelled`, `failed`), as the
 * reference editor answers it, and `result` holds the operation's result fields with `request_id`, `op`,
 * `status` and its whole `answer`.
 */
function operation(ctx: OpContext): OpOutcome {
  const id = ctx.request.request_id ?? ctx.request.id;
  const recorded = typeof id === 'string' ? dictGet(ctx.session.operations, id) : undefined;
  // A mutation still running or queued is known too: only an id never sent is unknown_operation.
  const pending = typeof id === 'string' && !recorded ? ctx.pending?.(id) : undefined;
  if (pending) {
    return {
      events: [],
      result: { request_id: id, op: pending.op, status: pending.status },
      fields: { status: pending.status === 'queued' ? 'queued' : 'running' },
    };
  }
  if (!recorded) {
    throw new EditorError('unknown_operation', `no operation with request_id ${JSON.stringify(id ?? null)}`);
  }
  const status = operationStatus(recorded.answer);
  const own = recorded.answer.result;
  return {
    events: [],
    result: {
      ...(typeof own === 'object' && own !== null && !Array.isArray(own) ? own : {}),
      request_id: recorded.request_id,
      op: recorded.op,
      status,
      answer: recorded.answer,
    },
    fields: { status },
    document_id: recorded.document_id,
  };
}

function layers(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  const counts = new Map<string, number>();
  // Entities name their layer in any case (files from elsewhere do): counted under the folded name.
  for (const entity of Object.values(doc.model.entities)) {
    const key = nameKey(entity.layer);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const list = Object.values(doc.model.layers)
    .sort((a, b) => a.name.localeCompare(b.name))
    .map(({ extra: _extra, ...layer }) => ({ ...layer, entities: counts.get(nameKey(layer.name)) ?? 0 }));
  const current = currentLayer(doc.model);
  return {
    events: [],
    result: { layers: list, count: list.length, current },
    // The reference editor answers `layers` (and `current`) at the top level.
    fields: { layers: list, current, items: list, count: list.length },
  };
}

/**
 * `header`: every header variable of the drawing in `result.values`; at the top level, the few the
 * reference editor answers there (current layer and text style, insertion units, point display, linetype scale).
 */
function header(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  // fromEntries makes own entries: a header variable a file named __proto__ is an entry like any other.
  const values: Record<string, unknown> = Object.fromEntries(
    Object.entries(doc.model.header).map(([name, tags]) => [name, headerValue(tags)]),
  );
  const value = (name: string) => (dictHas(values, name) ? values[name] : null);
  return {
    events: [],
    result: { version: doc.model.version, values, count: Object.keys(values).length },
    fields: {
      current_layer: currentLayer(doc.model),
      current_text_style: value('$TEXTSTYLE'),
      insertion_units: value('$INSUNITS'),
      pdmode: value('$PDMODE'),
      pdsize: value('$PDSIZE'),
      ltscale: value('$LTSCALE'),
    },
  };
}

/** A whole number from a JSON number or a digit string (the REST layer forwards strings); `invalid_query` otherwise. */
export function wholeNumber(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (!Number.isInteger(n) || (n as number) < 0)
    fail('invalid_query', `${name} must be a whole number, got ${JSON.stringify(value)}`);
  return n as number;
}

/** `offset`/`limit` as the REST layer forwards them (strings) or as numbers; `invalid_query` otherwise. */
export function paging(request: Record<string, unknown>, defaultLimit: number, maxLimit: number) {
  const offset = wholeNumber(request.offset, 'offset', 0);
  const limit = wholeNumber(request.limit, 'limit', defaultLimit);
  if (limit > maxLimit) fail('invalid_query', `limit must be at most ${maxLimit}, got ${limit}`);
  return { offset, limit };
}

/** `records`: DXF table records and objects, raw, by collection and type, paged. */
function records(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  const collection =
    typeof ctx.request.collection === 'string' ? ctx.request.collection.toLowerCase() : undefined;
  const type = typeof ctx.request.type === 'string' ? ctx.request.type.toUpperCase() : undefined;
  if (collection !== undefined && collection !== 'tables' && collection !== 'objects') {
    fail(
      'invalid_query',
      `collection must be "tables" or "objects", got ${JSON.stringify(ctx.request.collection)}`,
    );
  }
  const all: Array<RawRecord & { collection: string; table?: string }> = [];
  if (collection !== 'objects') {
    // LAYER and BLOCK_RECORD are modeled (layers, blocks): listed as the save writes them.
    const tables = { ...modeledTableRecords(doc.model), ...doc.model.tables };
    for (const [table, list] of Object.entries(tables))
      for (const r of list) all.push({ ...r, collection: 'tables', table });
  }
  if (collection !== 'tables') for (const r of doc.model.objects) all.push({ ...r, collection: 'objects' });
  const matching = type ? all.filter((r) => r.type === type || r.table === type) : all;
  const { offset, limit } = paging(ctx.request, 1000, 10000);
  const page = matching.slice(offset, offset + limit);
  const next = offset + page.length < matching.length ? offset + page.length : null;
  const found = { records: page, count: matching.length, returned: page.length, next_offset: next };
  return { events: [], result: found, fields: { ...found, collection: collection ?? 'all' } };
}

export const infoOps = {
  state: { kind: 'immediate', document: 'none', run: state },
  hello: { kind: 'immediate', document: 'none', run: state },
  operation: { kind: 'immediate', document: 'none', run: operation },
  layers: { kind: 'read', document: 'required', run: layers },
  header: { kind: 'read', document: 'required', run: header },
  records: { kind: 'read', document: 'required', run: records },
} satisfies OpGroup;
