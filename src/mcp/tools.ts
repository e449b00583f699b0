/**
 * The MCP tools: their input schemas (zod, published as JSON Schema), what each tells an agent, and
 * what each does with the editor (backend.ts). Every failure is a tool error carrying the protocol's
 * `code` and message, as the REST surface answers them; bad arguments are `invalid_arguments`.
 */
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Answer } from '../../streams/editor.js';
import { EDITOR_OPS, type EditorOp, QUERY_LIMIT_MAX } from '../editor/capabilities.js';
import type { EditorErrorCode } from '../editor/errors.js';
import { editorOps } from '../editor/ops/index.js';
import type { AuditPath, EditorBackend } from './backend.js';

const opsWhere = (test: (kind: string, document: string) => boolean): EditorOp[] =>
  EDITOR_OPS.filter((name) => test(editorOps[name].kind, editorOps[name].document)).sort();

/** Ops that read: answered without changing anything (the capture tool has its own). */
export const READ_OPS = opsWhere((kind) => kind !== 'mutation').filter((op) => op !== 'capture');
/** Ops that change the session: one request_id each, recorded, most of them an undo step. */
export const EXECUTE_OPS = opsWhere((kind) => kind === 'mutation');
/** Mutations that act on a document given by `document_id`: the tool fills in the active one. */
const ON_DOCUMENT: ReadonlySet<string> = new Set(
  opsWhere((kind, document) => kind === 'mutation' && document === 'required'),
);

let requests = 0;
/** A request_id for a mutation the agent sent without one. */
const mintRequestId = () => `mcp-${process.pid}-${++requests}`;

export type ToolResult = CallToolResult;

const json = (value: unknown) => JSON.stringify(value);

function success(structured: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text: json(structured) }], structuredContent: structured };
}

/**
 * A tool error: the protocol's code and message, and the answer's other fields (completed_steps...). The
 * code is passed on as the editor answered it: an attached editor may be of another build.
 */
function toolError(code: string, error: string, extra: Record<string, unknown>): ToolResult {
  const structured = { ...extra, ok: false, code, error };
  return {
    isError: true,
    content: [{ type: 'text', text: `${code}: ${error}` }],
    structuredContent: structured,
  };
}

/** A tool error of the server's own, with a code of the editor's catalogue. */
export const failure = (code: EditorErrorCode, error: string): ToolResult => toolError(code, error, {});

const withoutState = (answer: Answer): Record<string, unknown> => {
  const { state: _state, ...rest } = answer;
  return rest;
};

function fromAnswer(
  answer: Answer,
  shape: (a: Answer) => Record<string, unknown> = withoutState,
): ToolResult {
  if (!answer.ok) {
    const { ok: _ok, code, error, ...extra } = withoutState(answer);
    return toolError(String(code ?? 'internal_error'), String(error ?? 'the editor failed'), extra);
  }
  return success(shape(answer));
}

/** The active document's id, from the session state; undefined when no document is open. */
async function activeDocument(backend: EditorBackend): Promise<Answer | number> {
  const state = await backend.dispatch({ protocol: 1, op: 'state' });
  if (!state.ok) return state;
  return typeof state.document_id === 'number'
    ? state.document_id
    : { ok: false, code: 'document_required', error: 'no document is open: create or open one first' };
}

// Shared argument schemas.
const documentId = z
  .number()
  .int()
  .min(0)
  .describe('A document of the session (its id from `sessions` or read `state`); default: the active one');
const sessionId = z
  .string()
  .min(1)
  .describe('An editor session of the store (from `sessions`); default: the running one');
const revision = z.number().int().min(0);
const handles = z.array(z.string()).describe('Entity handles (hex strings)');
const box = z.array(z.number()).length(4).describe('[x1, y1, x2, y2] in drawing units');
const offset = z.number().int().min(0).describe('First row to answer (paging)');
/** The most rows any paged read answers (query, records, history, diff): each refuses more. */
const LIMIT_MAX = QUERY_LIMIT_MAX;
const limit = z.number().int().min(1).max(LIMIT_MAX).describe('Most rows to answer (paging)');
const where = z
  .array(
    z.object({
      path: z.string().describe('JSON pointer into the entity, e.g. /radius or /layer'),
      op: z
        .string()
        .describe('eq, ne, lt, lte, gt, gte, contains, starts_with, ends_with, in, exists, not_exists'),
      value: z.unknown().optional(),
    }),
  )
  .describe('Property filters, all of which must hold');
/** The filters of a query (read `query`, and `at`), as the dispatcher takes them. */
const queryFilters = {
  type: z
    .string()
    .optional()
    .describe('Entity type: Line, Circle, Arc, Text, MText, Point, LwPolyline, Insert...'),
  layer: z.string().optional(),
  handles: handles.optional(),
  detail: z
    .enum(['summary', 'geometry', 'full'])
    .optional()
    .describe('How much of each entity (default geometry)'),
  fields: z.array(z.string()).optional().describe('Only these fields of each entity'),
  bounds: box.optional().describe('Entities whose box meets this window [x1, y1, x2, y2]'),
  near: z.array(z.number()).min(2).max(3).optional().describe('Rank by distance to this point [x, y]'),
  contains_point: z.array(z.number()).min(2).max(3).optional().describe('Closed curves around [x, y]'),
  intersections: z
    .array(z.string())
    .length(2)
    .optional()
    .describe('Intersection points of two curves [h1, h2]'),
  where: where.optional(),
  offset: offset.optional(),
  limit: limit.optional(),
};

interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  input: z.ZodObject;
  /** Whether its successful answers are JSON objects (an output schema); capture answers an image. */
  structured: boolean;
  /** What the tool does to the drawing, for clients that ask before running a tool (MCP annotations). */
  annotations: ToolAnnotations;
  run(args: Record<string, unknown>, backend: EditorBackend): Promise<ToolResult>;
}

/** The query string of an audit route: numbers as text, lists comma-separated, `where` as JSON. */
function queryOf(args: Record<string, unknown>, names: readonly string[]): Record<string, string> {
  const query: Record<string, string> = {};
  for (const name of names) {
    const value = new Map(Object.entries(args)).get(name);
    if (value === undefined) continue;
    query[name] =
      name === 'where'
        ? json(value)
        : Array.isArray(value)
          ? value.join(',')
          : String(value as string | number);
  }
  return query;
}

/** Runs an audit route on `document_id` (default: the active document) of `session_id` (default: running). */
async function auditOf(
  backend: EditorBackend,
  path: AuditPath,
  args: { document_id?: number | undefined; session_id?: string | undefined },
  params: Record<string, string>,
  query: Record<string, string>,
): Promise<Answer> {
  let document = args.document_id;
  if (document === undefined) {
    const active = await activeDocument(backend);
    if (typeof active !== 'number') return active;
    document = active;
  }
  return backend.audit(
    path,
    { ...params, document_id: String(document) },
    { ...query, ...(args.session_id !== undefined ? { session: args.session_id } : {}) },
  );
}

/** Documents a `sessions` answer lists per session by default: 140 open documents were 32 KB. */
const SESSION_DOCUMENTS_DEFAULT = 50;
const SESSION_DOCUMENTS_MAX = 1000;

const sessionsInput = z.strictObject({
  offset: offset.optional().describe('First document of each session to list (paging of documents)'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(SESSION_DOCUMENTS_MAX)
    .optional()
    .describe(`Most documents to list per session (default ${SESSION_DOCUMENTS_DEFAULT})`),
});

/** One page of a session's documents, with how many there are in all. */
function documentsPage(documents: unknown, offset: number, limit: number): Record<string, unknown> {
  const all = Array.isArray(documents) ? documents : [];
  return { documents: all.slice(offset, offset + limit), documents_total: all.length };
}

/** Nothing changes: reads of the drawing, its state and its history. */
const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
/** Changes the drawing (undo takes a step back, but the step may be a deletion). */
const CHANGES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};

const readInput = z.strictObject({
  op: z.enum(READ_OPS as [EditorOp, ...EditorOp[]]).describe('The read operation'),
  parameters: z
    .object({
      document_id: documentId.optional(),
      ...queryFilters,
      app: z.string().optional().describe('xdata_get: one application'),
      collection: z.string().optional().describe('records: tables, objects, blocks...'),
      request_id: z.string().optional().describe('operation: the request to look up'),
      after: z.unknown().optional().describe('events: the cursor to read after'),
    })
    .catchall(z.unknown())
    .optional()
    .describe("The op's fields, as the protocol takes them"),
});

const executeInput = z.strictObject({
  request: z
    .object({
      op: z.enum(EXECUTE_OPS as [EditorOp, ...EditorOp[]]).describe('The mutation (or batch)'),
      request_id: z
        .string()
        .min(1)
        .max(128)
        .optional()
        .describe('Idempotency key: a retry with the same id and body answers the first answer again'),
      document_id: documentId.optional(),
      revision: revision
        .optional()
        .describe("The document's revision you read: refused with stale_state if it has moved on"),
    })
    .catchall(z.unknown())
    .describe("The protocol-1 request: op and the op's fields"),
  response_detail: z
    .enum(['compact', 'changed_entities', 'full'])
    .default('compact')
    .describe('compact: no session state; changed_entities: plus the changed entities; full: with state'),
});

const captureInput = z.strictObject({
  width: z.number().int().min(256).max(4096).optional().describe('Image width in pixels (default 1024)'),
  window: box.optional().describe("The area to show, in the layout's drawing units (default: extents)"),
  layout: z.string().optional().describe('A layout name (default Model)'),
  background: z.string().optional().describe('#rrggbb, #rgb, dark (default), white or black'),
  document_id: documentId.optional().describe('Must be the active document (default)'),
});

const historyInput = z.strictObject({
  document_id: documentId.optional(),
  session_id: sessionId.optional(),
  offset: offset.optional(),
  limit: limit.optional(),
});

const atInput = z.strictObject({
  revision: revision.describe('The revision to look at (0 = as the document was created or opened)'),
  document_id: documentId.optional(),
  session_id: sessionId.optional(),
  ...queryFilters,
});

const diffInput = z.strictObject({
  from: revision.optional().describe('Default: the revision before `to`'),
  to: revision.optional().describe('Default: the current revision'),
  document_id: documentId.optional(),
  session_id: sessionId.optional(),
  offset: offset.optional().describe('Paging of each entity list'),
  limit: limit.optional(),
});

const stepInput = z.strictObject({
  document_id: documentId.optional(),
  request_id: z.string().min(1).max(128).optional().describe('Idempotency key, as execute takes it'),
  revision: revision.optional().describe('Refused with stale_state unless the document is at this revision'),
});

/** A mutation: request_id minted when absent, the active document when the op needs one. */
async function mutate(
  backend: EditorBackend,
  request: Record<string, unknown>,
  detail: 'compact' | 'changed_entities' | 'full',
): Promise<ToolResult> {
  const sent: Record<string, unknown> = { protocol: 1, ...request };
  if (sent.request_id === undefined) sent.request_id = mintRequestId();
  if (sent.document_id === undefined && ON_DOCUMENT.has(String(sent.op))) {
    const active = await activeDocument(backend);
    if (typeof active === 'number') sent.document_id = active;
  }
  const answer = await backend.dispatch(sent);
  if (!answer.ok || detail === 'full') return fromAnswer(answer, (a) => ({ ...a }));
  const state = answer.state as { document_id?: unknown; revision?: unknown } | undefined;
  const compact: Record<string, unknown> = { ...withoutState(answer), revision: state?.revision ?? null };
  if (compact.document_id === undefined) compact.document_id = state?.document_id ?? null;
  if (detail === 'compact') return success(compact);
  const changed = (answer.changes as Array<{ handle: string; kind: string }> | undefined) ?? [];
  const live = changed.filter((c) => c.kind !== 'erased').map((c) => c.handle);
  if (live.length === 0) return success({ ...compact, entities: [] });
  const query = await backend.dispatch({
    protocol: 1,
    op: 'query',
    handles: live,
    detail: 'geometry',
    limit: 10_000,
  });
  return success({ ...compact, entities: query.ok ? (query.entities ?? []) : [] });
}

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'sessions',
    title: 'Editor sessions',
    description: `Start here. The running editor session (its session_id; \`connection\` own, or attached to the editor at \`url\`; the open documents with their revisions, the active document_id and its revision, the selection) and every session of the store, running, ended or crashed, with their documents. Documents are paged: \`limit\` per session (default ${SESSION_DOCUMENTS_DEFAULT}, at most ${SESSION_DOCUMENTS_MAX}) from \`offset\`, \`documents_total\` says how many there are. The active document's \`revision\` is what execute's \`revision\` check and history, at and diff take.`,
    input: sessionsInput,
    structured: true,
    annotations: READ_ONLY,
    run: async (args, backend) => {
      const { offset = 0, limit = SESSION_DOCUMENTS_DEFAULT } = args as z.infer<typeof sessionsInput>;
      const state = await backend.dispatch({ protocol: 1, op: 'state' });
      if (!state.ok) return fromAnswer(state);
      const sessions = await backend.audit('/sessions', {}, {});
      if (!sessions.ok) return fromAnswer(sessions);
      const view = (state.state ?? {}) as Record<string, unknown>;
      const rows = Array.isArray(sessions.sessions) ? (sessions.sessions as Record<string, unknown>[]) : [];
      return success({
        ok: true,
        // This server's own session, or the session of the editor it is attached to (at `url`).
        connection: backend.mode,
        ...(backend.url ? { url: backend.url } : {}),
        ...view,
        ...documentsPage(view.documents, offset, limit),
        mode: state.mode,
        sessions: rows.map((row) => ({ ...row, ...documentsPage(row.documents, offset, limit) })),
        count: sessions.count,
        offset,
        limit,
      });
    },
  },
  {
    name: 'read',
    title: 'Read the drawing',
    description:
      "Run one read operation of the editor and get its answer; nothing changes. `op`: state (session, documents, revisions, selection), capabilities (ops, entity types, query operators, limits), query (entities; filters type, layer, handles, bounds [x1,y1,x2,y2], near [x,y], contains_point [x,y], intersections [h1,h2], where [{path:'/radius', op:'gt', value:5}], fields, detail summary|geometry|full, offset, limit), entities (counts by type), xdata_get (handles, app), layers, header, records (collection, type, offset, limit), get_selection, measure (handles: length, area, bounds), commands (the command line's grammar and examples), history (this session's operations), events (answers after a cursor), operation (one request's status by request_id). `parameters`: the op's fields.",
    input: readInput,
    structured: true,
    annotations: READ_ONLY,
    run: async (args, backend) => {
      const { op, parameters } = args as z.infer<typeof readInput>;
      const answer = await backend.dispatch({ ...parameters, protocol: 1, op });
      // `state` answers the state itself; other reads leave it out (read it with op state).
      return fromAnswer(answer, op === 'state' || op === 'hello' ? (a) => ({ ...a }) : withoutState);
    },
  },
  {
    name: 'execute',
    title: 'Change the drawing',
    description:
      "Run one mutation, or a batch of up to 64, through the editor's dispatcher — the same validation, undo and answers as its REST API. `request`: {op, ...fields}. Give a `request_id` (up to 128 bytes) to make a retry safe: the same id with the same body answers the first answer instead of running again (another body: request_id_reused); without one the server mints one. Give the `revision` you read (sessions or read state) to be refused with stale_state if the document moved on. `document_id` defaults to the active document. Examples: {op:'entities_create', entities:[{type:'Line', start:[0,0], end:[100,0], color:1, layer:'FRAME'}]}; {op:'run', cmd:'LINE 0,0 10,0; CIRCLE 5,5 2'}; {op:'entities_transform', handles:['2A'], action:'move', vector:[5,0]}; {op:'entities_delete', handles:['2A']}; {op:'batch', atomic:true, steps:[{op:'entities_create', entities:[...]}, ...]} (atomic: one undo step, all or nothing). Each answer lists `changes` (handles created, modified, erased) and the new `revision`; verify with capture, audit with history and diff, go back with undo.",
    input: executeInput,
    structured: true,
    annotations: CHANGES,
    run: async (args, backend) => {
      const { request, response_detail } = args as z.infer<typeof executeInput>;
      return mutate(backend, request, response_detail);
    },
  },
  {
    name: 'capture',
    title: 'Look at the drawing',
    description:
      "A PNG of the active document as the plot draws it — its Model layout or another `layout`, the extents of what prints or a `window` [x1,y1,x2,y2] — `width` pixels wide (256 to 4096, default 1024), in layer colours on the viewer's dark background (or `background` white...), the current selection highlighted in blue. Entities smaller than two pixels show as one pixel, text too small to read as a stroke. Use it to check a change by eye. Answers the image and, as text, the area shown and what was drawn.",
    input: captureInput,
    structured: false,
    annotations: READ_ONLY,
    run: async (args, backend) => {
      const answer = await backend.dispatch({ ...args, protocol: 1, op: 'capture' });
      if (!answer.ok) return fromAnswer(answer);
      const { data, ...info } = answer.result as { data: string; mime_type: string };
      return {
        content: [
          { type: 'image', data, mimeType: info.mime_type },
          { type: 'text', text: json({ document_id: answer.document_id, ...info }) },
        ],
      };
    },
  },
  {
    name: 'history',
    title: 'Revisions of a document',
    description:
      "A document's revisions, oldest first, from the event log: each with its op, request_id, time and change counts, undone and abandoned ones marked; `revision` is the current one, `node` where undo/redo stand. Default: the active document of the running session; `session_id` reads a past session's.",
    input: historyInput,
    structured: true,
    annotations: READ_ONLY,
    run: async (args, backend) => {
      const a = args as z.infer<typeof historyInput>;
      return fromAnswer(
        await auditOf(backend, '/documents/:document_id/history', a, {}, queryOf(a, ['offset', 'limit'])),
      );
    },
  },
  {
    name: 'at',
    title: 'A document as it was',
    description:
      "The entities of a document as they were at `revision` (time travel over the event log; nothing changes), filtered as read's query: type, layer, handles, bounds, near, contains_point, intersections, where, fields, detail, offset, limit.",
    input: atInput,
    structured: true,
    annotations: READ_ONLY,
    run: async (args, backend) => {
      const a = args as z.infer<typeof atInput>;
      const names = Object.keys(queryFilters);
      return fromAnswer(
        await auditOf(
          backend,
          '/documents/:document_id/at/:revision/entities',
          a,
          { revision: String(a.revision) },
          queryOf(a, names),
        ),
      );
    },
  },
  {
    name: 'diff',
    title: 'What changed',
    description:
      'What changed between two revisions of a document: entities added, removed and changed (each with before and after), and table records (layers, blocks...). Default: `to` the current revision, `from` the one before it — what the last step did.',
    input: diffInput,
    structured: true,
    annotations: READ_ONLY,
    run: async (args, backend) => {
      const a = args as z.infer<typeof diffInput>;
      let { from, to } = a;
      if (to === undefined) {
        const history = await auditOf(backend, '/documents/:document_id/history', a, {}, { limit: '1' });
        if (!history.ok) return fromAnswer(history);
        to = Number(history.revision);
      }
      from ??= Math.max(0, to - 1);
      return fromAnswer(
        await auditOf(
          backend,
          '/documents/:document_id/diff',
          a,
          {},
          { from: String(from), to: String(to), ...queryOf(a, ['offset', 'limit']) },
        ),
      );
    },
  },
  ...(['undo', 'redo'] as const).map(
    (op): ToolDefinition => ({
      name: op,
      title: op === 'undo' ? 'Undo the last step' : 'Redo the last undone step',
      description:
        op === 'undo'
          ? 'Take back the last step of the active (or given) document: it moves onto the redo stack and a new revision records the undo. Answers what it changed and the new revision. nothing_to_undo when there is none.'
          : 'Apply again the last undone step of the active (or given) document (until a new change abandons it). Answers what it changed and the new revision. nothing_to_redo when there is none.',
      input: stepInput,
      structured: true,
      annotations: CHANGES,
      run: (args, backend) => mutate(backend, { ...args, op }, 'compact'),
    }),
  ),
];
