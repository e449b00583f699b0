/**
 * The audit routes: extra GET routes under /api/v1 that read the log rather than run an op — every
 * session of the store, a session's events, a document's history (the undo tree), its entities as of
 * a revision, and the difference between two revisions. Same envelope and error style as the spec's
 * routes: `{ ok, code, error }`, the status derived from the code.
 */

import type { EditorSessionsState, SessionSummary } from '../../../projections/editor-sessions.js';
import { sessionStatus } from '../../../projections/editor-sessions.js';
import type { OnDemandProjection } from '../../../projections/on-demand.js';
import { type Answer, sessionStream } from '../../../streams/editor.js';
import { dictGet } from '../../editor/dict.js';
import { EditorError, type EditorErrorCode } from '../../editor/errors.js';
import { documentContext } from '../../editor/geometry/index.js';
import {
  type DocumentHistory,
  diffDocuments,
  headRevision,
  type SessionHistories,
  type SessionHistory,
  treeStatus,
} from '../../editor/history/index.js';
import { documentIndex } from '../../editor/query/document-index.js';
import { runQuery } from '../../editor/query/index.js';
import type { QueryRequest } from '../../editor/query/request.js';
import type { EventStore, RecordedEvent } from '../../store/types.js';
import { failureAnswer, type JsonAnswer } from './answer.js';
import { ENTITY_QUERY_PARAMS, entitiesQuery, type RouteInput } from './routes.js';
import { statusOfCode } from './status.js';

/** What an audit route answers: JSON, as the dispatcher's answers are (MCP reads the body as one). */
type AuditAnswer = JsonAnswer<Answer>;

/** What the audit routes read: the store, the sessions read model and the session histories. */
export interface AuditContext {
  store: EventStore;
  /** The running session's id: the default of `session`, and `running` in GET /sessions. */
  sessionId: () => string;
  sessions: OnDemandProjection<EditorSessionsState>;
  histories: SessionHistories;
  /** Whether a process is alive (a session of another process with no end is running, else crashed). */
  alive?: (pid: number) => boolean;
}

/** A row of the audit route table: what OpenAPI describes. */
interface AuditRouteInfo {
  method: 'GET';
  path: string;
  summary: string;
  queryParams: readonly string[];
}

export const AUDIT_ROUTES: readonly AuditRouteInfo[] = [
  {
    method: 'GET',
    path: '/sessions',
    summary: 'Every editor session of the store: start, end or crash, documents',
    queryParams: [],
  },
  {
    method: 'GET',
    path: '/sessions/:session_id/events',
    summary: "A session's events, paged (from, limit), filtered by document, type, request_id",
    queryParams: ['from', 'limit', 'document', 'type', 'request_id', 'data'],
  },
  {
    method: 'GET',
    path: '/documents/:document_id/history',
    summary: "A document's revisions and undo tree (session: default the running one)",
    queryParams: ['session', 'offset', 'limit'],
  },
  {
    method: 'GET',
    path: '/documents/:document_id/at/:revision/entities',
    summary: 'Query entities as of a revision (the parameters of GET /entities)',
    queryParams: ['session', ...ENTITY_QUERY_PARAMS],
  },
  {
    method: 'GET',
    path: '/documents/:document_id/diff',
    summary: 'Entities (and tables) added, removed and changed between two revisions',
    queryParams: ['session', 'from', 'to', 'offset', 'limit'],
  },
];

const EVENTS_LIMIT_DEFAULT = 100;
const EVENTS_LIMIT_MAX = 1000;
const HISTORY_LIMIT_DEFAULT = 1000;
const HISTORY_LIMIT_MAX = 10_000;

const fail = (code: EditorErrorCode, message: string): never => {
  throw new EditorError(code, message);
};

/** A whole number from a query value, the fallback when absent; `invalid_query` otherwise. */
function wholeParam(query: Record<string, string>, name: string, fallback: number, max: number): number {
  const value = query[name];
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value))
    return fail('invalid_query', `${name} must be a whole number, got ${JSON.stringify(value)}`);
  const n = Number(value);
  if (n > max) fail('invalid_query', `${name} must be at most ${max}, got ${n}`);
  return n;
}

function limitParam(query: Record<string, string>, fallback: number, max: number): number {
  const limit = wholeParam(query, 'limit', fallback, Number.MAX_SAFE_INTEGER);
  if (limit < 1 || limit > max) fail('invalid_query', `limit must be 1 to ${max}, got ${limit}`);
  return limit;
}

/** A revision from the path or the query: `invalid_revision` unless a whole number. */
function revisionParam(value: string | undefined, name: string): number {
  if (value === undefined) return fail('invalid_revision', `${name} is required (a revision number)`);
  if (!/^\d+$/.test(value))
    return fail(
      'invalid_revision',
      `${name} must be a revision number (0 or more), got ${JSON.stringify(value)}`,
    );
  return Number(value);
}

function ensureRevision(doc: DocumentHistory, revision: number, name: string): number {
  const head = headRevision(doc);
  if (revision > head) {
    fail(
      'revision_absent',
      `document ${doc.document_id} has revisions 0 to ${head}; ${name} ${revision} does not exist`,
    );
  }
  return revision;
}

const ok = (fields: Record<string, unknown>): AuditAnswer => ({
  status: 200,
  body: { ok: true, status: 'completed', ...fields },
});

const isProcessAlive = (pid: number): boolean => {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is someone else's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

function sessionRow(summary: SessionSummary, ctx: AuditContext) {
  const current = ctx.sessionId();
  const status = sessionStatus(summary, current, ctx.alive ?? isProcessAlive);
  const runs = summary.runs.map((run, i) => ({
    ...run,
    end:
      run.ended_at !== null
        ? 'ended'
        : i === summary.runs.length - 1 && status === 'running'
          ? 'running'
          : 'crashed',
  }));
  const last = summary.runs.at(-1);
  return {
    session_id: summary.session_id,
    status,
    current: summary.session_id === current,
    started_at: summary.runs[0]?.started_at ?? null,
    ended_at: last?.ended_at ?? null,
    crashed: status === 'crashed',
    version: last?.version ?? null,
    pid: last?.pid ?? null,
    events: summary.events,
    last_at: summary.last_at,
    runs,
    documents: Object.values(summary.documents).sort((a, b) => a.document_id - b.document_id),
  };
}

async function listSessions(ctx: AuditContext): Promise<AuditAnswer> {
  const rows = Object.values((await ctx.sessions.read()).sessions)
    .sort((a, b) => a.first_position - b.first_position)
    .map((summary) => sessionRow(summary, ctx));
  return ok({ sessions: rows, count: rows.length });
}

const OP_OF_TYPE: Readonly<Record<string, string>> = {
  DocumentCreated: 'new',
  DocumentOpened: 'open',
  EntitiesLoaded: 'open',
  StepUndone: 'undo',
  StepRedone: 'redo',
};

async function sessionEvents(ctx: AuditContext, input: RouteInput): Promise<AuditAnswer> {
  const sessionId = input.params.session_id ?? '';
  const q = input.query;
  const from = wholeParam(q, 'from', 0, Number.MAX_SAFE_INTEGER);
  const limit = limitParam(q, EVENTS_LIMIT_DEFAULT, EVENTS_LIMIT_MAX);
  const document =
    q.document === undefined ? undefined : wholeParam(q, 'document', 0, Number.MAX_SAFE_INTEGER);
  const withData = q.data === 'true' || q.data === '1';
  const stream = sessionStream(sessionId);
  const last = sessionId === '' ? undefined : await ctx.store.streamRevision(stream).catch(() => undefined);
  if (last === undefined)
    fail('session_absent', `no editor session ${JSON.stringify(sessionId)} in this store`);
  const matches = (event: RecordedEvent) => {
    const data = event.data as { document_id?: unknown };
    if (document !== undefined && data.document_id !== document) return false;
    if (q.type !== undefined && event.type !== q.type) return false;
    if (q.request_id !== undefined && event.metadata.requestId !== q.request_id) return false;
    return true;
  };
  // A mutation's events end with its OperationAnswered (one append): its op names them all.
  const ops = new Map<string, string>();
  const found: RecordedEvent[] = [];
  let next: number | null = null;
  for await (const event of ctx.store.readStream(stream, { from })) {
    if (event.type === 'OperationAnswered') {
      const data = event.data as { request_id: string; op: string };
      ops.set(data.request_id, data.op);
    }
    if (found.length === limit) {
      next = event.revision;
      break;
    }
    if (matches(event)) found.push(event);
  }
  const pending = found.at(-1)?.metadata.requestId;
  if (next !== null && pending !== undefined && !ops.has(pending)) {
    for await (const event of ctx.store.readStream(stream, { from: next })) {
      if (event.metadata.requestId !== pending) break;
      if (event.type === 'OperationAnswered') ops.set(pending, (event.data as { op: string }).op);
    }
  }
  const rows = found.map((event) => {
    const data = event.data as { document_id?: unknown; revision?: unknown; op?: unknown };
    const requestId = event.metadata.requestId ?? null;
    const op =
      (requestId !== null ? ops.get(requestId) : undefined) ??
      (typeof data.op === 'string' ? data.op : dictGet(OP_OF_TYPE, event.type)) ??
      null;
    return {
      stream_revision: event.revision,
      position: event.position,
      type: event.type,
      at: event.metadata.at,
      request_id: requestId,
      op,
      document_id: typeof data.document_id === 'number' ? data.document_id : null,
      document_revision: typeof data.revision === 'number' ? data.revision : null,
      ...(withData ? { data: event.data } : {}),
    };
  });
  return ok({ session_id: sessionId, events: rows, count: rows.length, next_from: next });
}

/** The session (`session`, else the running one) and the document of the path, caught up with the log. */
async function documentHistory(
  ctx: AuditContext,
  input: RouteInput,
): Promise<{ sessionId: string; history: SessionHistory; doc: DocumentHistory }> {
  const sessionId = input.query.session ?? ctx.sessionId();
  const raw = input.params.document_id ?? '';
  if (!/^\d+$/.test(raw))
    fail('invalid_query', `document_id must be a document number, got ${JSON.stringify(raw)}`);
  const history = sessionId === '' ? undefined : await ctx.histories.load(sessionId);
  if (!history) return fail('session_absent', `no editor session ${JSON.stringify(sessionId)} in this store`);
  const doc = history.documents[String(Number(raw))];
  if (!doc) return fail('document_absent', `session ${sessionId} has no document ${raw}`);
  return { sessionId, history, doc };
}

async function history(ctx: AuditContext, input: RouteInput): Promise<AuditAnswer> {
  const { sessionId, doc } = await documentHistory(ctx, input);
  const offset = wholeParam(input.query, 'offset', 0, Number.MAX_SAFE_INTEGER);
  const limit = limitParam(input.query, HISTORY_LIMIT_DEFAULT, HISTORY_LIMIT_MAX);
  const tree = treeStatus(doc);
  const page = doc.revisions.slice(offset, offset + limit).map((row) => ({
    ...row,
    undone: tree.undone.has(row.revision),
    abandoned: tree.abandoned.has(row.revision),
  }));
  const next = offset + page.length < doc.revisions.length ? offset + page.length : null;
  return ok({
    session_id: sessionId,
    document_id: doc.document_id,
    title: doc.title,
    path: doc.path,
    revision: headRevision(doc),
    node: tree.node,
    closed: doc.closed ? { at: doc.closed.at, discarded: doc.closed.discarded } : null,
    saves: doc.saves,
    count: doc.revisions.length,
    returned: page.length,
    next_offset: next,
    revisions: page,
  });
}

async function entitiesAt(ctx: AuditContext, input: RouteInput): Promise<AuditAnswer> {
  const revision = revisionParam(input.params.revision, 'revision');
  let where: unknown;
  if (input.query.where !== undefined) {
    try {
      where = JSON.parse(input.query.where);
    } catch (error) {
      fail('invalid_where', `where must be a JSON array: ${(error as Error).message}`);
    }
  }
  const { sessionId, doc } = await documentHistory(ctx, input);
  ensureRevision(doc, revision, 'revision');
  const state = ctx.histories.documentAt(sessionId, doc, revision);
  const answer = runQuery(
    state.model,
    documentIndex(state),
    entitiesQuery(input.query, where) as QueryRequest,
    documentContext(state.model),
  );
  return ok({ session_id: sessionId, document_id: doc.document_id, revision, ...answer });
}

async function diff(ctx: AuditContext, input: RouteInput): Promise<AuditAnswer> {
  const from = revisionParam(input.query.from, 'from');
  const to = revisionParam(input.query.to, 'to');
  const offset = wholeParam(input.query, 'offset', 0, Number.MAX_SAFE_INTEGER);
  const limit = limitParam(input.query, HISTORY_LIMIT_DEFAULT, HISTORY_LIMIT_MAX);
  const { sessionId, doc } = await documentHistory(ctx, input);
  ensureRevision(doc, from, 'from');
  ensureRevision(doc, to, 'to');
  const changes = diffDocuments(
    ctx.histories.documentAt(sessionId, doc, from),
    ctx.histories.documentAt(sessionId, doc, to),
  );
  const { entities, ...tables } = changes;
  const counts = Object.fromEntries(
    Object.entries(changes).map(([name, d]) => [
      name,
      { added: d.added.length, removed: d.removed.length, changed: d.changed.length },
    ]),
  );
  return ok({
    session_id: sessionId,
    document_id: doc.document_id,
    from,
    to,
    counts,
    // Entity lists can be a whole drawing long: each is paged by offset and limit; tables are not.
    entities: {
      added: entities.added.slice(offset, offset + limit),
      removed: entities.removed.slice(offset, offset + limit),
      changed: entities.changed.slice(offset, offset + limit),
    },
    ...tables,
  });
}

type Handler = (ctx: AuditContext, input: RouteInput) => Promise<AuditAnswer>;

const HANDLERS: Readonly<Record<string, Handler>> = {
  '/sessions': (ctx) => listSessions(ctx),
  '/sessions/:session_id/events': sessionEvents,
  '/documents/:document_id/history': history,
  '/documents/:document_id/at/:revision/entities': entitiesAt,
  '/documents/:document_id/diff': diff,
};

/**
 * The audit routes bound to `ctx`: an editor error answers `{ ok: false, code, error }` with its code's
 * status; anything else thrown is the listener's 500 `internal_error`, as for every route.
 */
export function auditRoutes(
  ctx: AuditContext,
): Array<AuditRouteInfo & { handle: (input: RouteInput) => Promise<AuditAnswer> }> {
  return AUDIT_ROUTES.map((route) => ({
    ...route,
    handle: async (input: RouteInput): Promise<AuditAnswer> => {
      try {
        return await (HANDLERS[route.path] as Handler)(ctx, input);
      } catch (error) {
        if (error instanceof EditorError)
          return failureAnswer(statusOfCode(error.code), error.code, error.message);
        throw error;
      }
    },
  }));
}
