import { createHash, randomUUID } from 'node:crypto';
import {
  type DocumentState,
  type EditorSessionState,
  editorSessionProjection,
} from '../../projections/editor-session.js';
import { ProjectionRunner } from '../../projections/runtime.js';
import {
  type Answer,
  type Change,
  editorEvent,
  type NewEditorEvent,
  sessionStream,
} from '../../streams/editor.js';
import type { EventStore } from '../store/types.js';
import { EditorError } from './errors.js';
import type { OpDefinition, OpOutcome, OpTable } from './ops/types.js';
import { type EditorRequest, isObject } from './request.js';

export const MAX_REQUEST_ID_BYTES = 128;

/** A deterministic JSON text of a value, keys sorted: two bodies are "the same" when these match. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const bodyHash = (request: EditorRequest) => {
  const { request_id: _id, ...body } = request;
  return createHash('sha256').update(canonical(body)).digest('hex');
};

/** `changes` of an answer: the entities a step created, modified or erased. */
export function answerChanges(changes: readonly Change[]): Array<{ handle: string; kind: string }> {
  const out: Array<{ handle: string; kind: string }> = [];
  for (const c of changes) {
    if (c.kind !== 'entity') continue;
    out.push({
      handle: c.key,
      kind: c.before === null ? 'created' : c.after === null ? 'erased' : 'modified',
    });
  }
  return out;
}

const changesOf = (events: readonly NewEditorEvent[]): Change[] =>
  events.flatMap((event) => (event.data as { changes?: Change[] }).changes ?? []);

interface Running {
  request_id: string;
  op: string;
  hash: string;
  answer: Promise<Answer>;
}

/**
 * One editor session: the protocol-1 dispatcher over the event store. Mutations run one at a time in
 * arrival order; each appends its events and its answer to the session's stream, waits for the
 * session's read model to apply them, and answers from it.
 */
export class EditorSession {
  readonly sessionId: string;
  readonly version: string;
  private readonly store: EventStore;
  private readonly ops: OpTable;
  private readonly runner: ProjectionRunner<EditorSessionState>;
  private queue: Promise<unknown> = Promise.resolve();
  private streamRevision: number | 'no_stream' = 'no_stream';
  private running: Running | undefined;
  private readonly inflight = new Map<string, Running>();

  private constructor(store: EventStore, ops: OpTable, sessionId: string, version: string) {
    this.store = store;
    this.ops = ops;
    this.sessionId = sessionId;
    this.version = version;
    // No snapshots: a session's state holds whole drawings (59 MB of JSON at 100,000 entities, written
    // every few seconds, blocking the loop), and its own stream replays in well under a second.
    this.runner = new ProjectionRunner(store, editorSessionProjection(sessionId), { snapshots: false });
  }

  /** Starts a new session (or resumes `sessionId`'s stream) and records its start. */
  static async start(
    store: EventStore,
    ops: OpTable,
    options: { version: string; sessionId?: string },
  ): Promise<EditorSession> {
    const session = new EditorSession(store, ops, options.sessionId ?? randomUUID(), options.version);
    await session.runner.start();
    const revision = await store.streamRevision(sessionStream(session.sessionId));
    session.streamRevision = revision ?? 'no_stream';
    await session.append([
      editorEvent('SessionStarted', {
        session_id: session.sessionId,
        version: options.version,
        pid: process.pid,
      }),
    ]);
    return session;
  }

  get state(): EditorSessionState {
    return this.runner.state;
  }

  /** Records the end of the session and stops its read model. Waits for queued requests. */
  async close(): Promise<void> {
    await this.queue.catch(() => undefined);
    await this.append([editorEvent('SessionEnded', { session_id: this.sessionId, reason: 'shutdown' })]);
    await this.runner.stop();
  }

  /** Answers one protocol-1 request. Never throws: failures are `{ ok: false, code, error }` answers. */
  async dispatch(raw: unknown): Promise<Answer> {
    const request: EditorRequest = isObject(raw) ? raw : {};
    try {
      return await this.route(request);
    } catch (error) {
      return this.failure(request, error);
    }
  }

  private async route(request: EditorRequest): Promise<Answer> {
    if (request.protocol !== 1) {
      throw new EditorError(
        'protocol_mismatch',
        `protocol must be 1, got ${JSON.stringify(request.protocol ?? null)}`,
      );
    }
    if (request.session_id !== undefined && request.session_id !== this.sessionId) {
      throw new EditorError(
        'session_changed',
        `session ${JSON.stringify(request.session_id)} is not this editor's session (${this.sessionId})`,
      );
    }
    const opName = typeof request.op === 'string' ? request.op : '';
    const op = this.ops[opName];
    if (op?.kind === 'immediate') {
      const ctx = this.context(request);
      return this.answer(request, await op.run(ctx), ctx.doc);
    }
    if (op?.kind === 'read') return this.enqueue(() => this.runChecked(request, opName, op));

    const requestId = request.request_id;
    if (
      typeof requestId !== 'string' ||
      requestId.length === 0 ||
      Buffer.byteLength(requestId) > MAX_REQUEST_ID_BYTES
    ) {
      throw new EditorError(
        'request_id_required',
        `a mutation needs a request_id string of 1 to ${MAX_REQUEST_ID_BYTES} bytes`,
      );
    }
    const hash = bodyHash(request);
    const earlier = this.inflight.get(requestId) ?? this.state.operations[requestId];
    if (earlier) {
      const earlierHash = 'hash' in earlier ? earlier.hash : earlier.body_hash;
      if (earlierHash !== hash) {
        throw new EditorError(
          'request_id_reused',
          `request_id ${requestId} was used before with a different body`,
        );
      }
      return 'answer' in earlier && earlier.answer instanceof Promise
        ? earlier.answer
        : this.withState(earlier.answer as Answer);
    }
    const running: Running = {
      request_id: requestId,
      op: opName,
      hash,
      // The state is read once the mutation has stopped running, so the answer does not report its own
      // operation as `running`, and an idempotent retry (answered with the state of its moment) matches it.
      answer: this.enqueue(async () =>
        this.withState(await this.runMutation(request, requestId, hash, opName, op)),
      ),
    };
    this.inflight.set(requestId, running);
    try {
      return await running.answer;
    } finally {
      this.inflight.delete(requestId);
    }
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Document, revision and op checks, in the order the protocol gives them. */
  private resolve(request: EditorRequest, opName: string, op: OpDefinition | undefined) {
    const docId = request.document_id;
    let doc: DocumentState | undefined;
    if (docId !== undefined) {
      doc = typeof docId === 'number' ? this.state.documents[String(docId)] : undefined;
      if (!doc) throw new EditorError('document_closed', `document ${JSON.stringify(docId)} is not open`);
      if (doc.id !== this.state.active && op?.document !== 'open') {
        throw new EditorError(
          'document_not_active',
          `document ${doc.id} is open but not the active document`,
        );
      }
    } else if (op && op.document !== 'none') {
      const active = this.state.active === null ? undefined : this.state.documents[String(this.state.active)];
      if ((op.kind === 'mutation' && op.document !== 'active') || !active) {
        throw new EditorError(
          'document_required',
          `${opName} needs a document_id (open or create a document first)`,
        );
      }
      doc = active;
    }
    if (request.revision !== undefined && doc && request.revision !== doc.revision) {
      throw new EditorError(
        'stale_state',
        `document ${doc.id} is at revision ${doc.revision}, not ${JSON.stringify(request.revision)}`,
      );
    }
    if (!op)
      throw new EditorError('unknown_operation', `unknown operation ${JSON.stringify(request.op ?? null)}`);
    return { op, ctx: this.context(request, doc) };
  }

  private async runChecked(
    request: EditorRequest,
    opName: string,
    op: OpDefinition | undefined,
  ): Promise<Answer> {
    const resolved = this.resolve(request, opName, op);
    return this.answer(request, await resolved.op.run(resolved.ctx), resolved.ctx.doc);
  }

  /** Runs one mutation and records its answer; the answer comes back without `state` (the caller adds it). */
  private async runMutation(
    request: EditorRequest,
    requestId: string,
    hash: string,
    opName: string,
    op: OpDefinition | undefined,
  ): Promise<Answer> {
    this.running = { request_id: requestId, op: opName, hash, answer: Promise.resolve({ ok: false }) };
    const record = (answer: Answer, events: NewEditorEvent[], documentId: number | null) => {
      const last = events.at(-1)?.data as { revision?: number } | undefined;
      return this.append([
        ...events,
        editorEvent('OperationAnswered', {
          request_id: requestId,
          op: opName,
          body_hash: hash,
          document_id: documentId,
          revision: last?.revision ?? null,
          answer,
        }),
      ]);
    };
    try {
      let outcome: OpOutcome;
      let target: DocumentState | undefined;
      try {
        const resolved = this.resolve(request, opName, op);
        target = resolved.ctx.doc;
        outcome = await resolved.op.run(resolved.ctx);
      } catch (error) {
        if (!(error instanceof EditorError)) throw error;
        const answer = this.failureBody(request, error);
        await record(answer, [], typeof request.document_id === 'number' ? request.document_id : null);
        return answer;
      }
      const documentId = outcome.document_id !== undefined ? outcome.document_id : (target?.id ?? null);
      const answer = this.answerBody(requestId, outcome, documentId);
      await record(answer, outcome.events, documentId);
      return answer;
    } finally {
      this.running = undefined;
    }
  }

  private async append(events: NewEditorEvent[]): Promise<void> {
    if (events.length === 0) return;
    const result = await this.store.append(sessionStream(this.sessionId), events, {
      expectedRevision: this.streamRevision,
    });
    this.streamRevision = result.nextRevision - 1;
    await this.runner.waitFor(result.position);
  }

  private context(request: EditorRequest, doc?: DocumentState) {
    const active = this.state.active === null ? undefined : this.state.documents[String(this.state.active)];
    return {
      request,
      session: this.state,
      doc: doc ?? active,
      sessionId: this.sessionId,
      version: this.version,
      pending: (requestId: string) => {
        const inflight = this.inflight.get(requestId);
        if (!inflight) return undefined;
        const status: 'running' | 'queued' = this.running?.request_id === requestId ? 'running' : 'queued';
        return { op: inflight.op, status };
      },
    };
  }

  private answerBody(requestId: string | undefined, outcome: OpOutcome, documentId: number | null): Answer {
    return {
      ok: true,
      status: 'completed',
      ...(requestId !== undefined ? { request_id: requestId } : {}),
      ...(documentId !== null ? { document_id: documentId } : {}),
      result: outcome.result ?? {},
      changes: answerChanges(outcome.changes ?? changesOf(outcome.events)),
      ...outcome.fields,
    };
  }

  private answer(request: EditorRequest, outcome: OpOutcome, doc: DocumentState | undefined): Answer {
    const requestId = typeof request.request_id === 'string' ? request.request_id : undefined;
    const documentId =
      outcome.document_id !== undefined ? outcome.document_id : (doc?.id ?? this.state.active);
    return this.withState(this.answerBody(requestId, outcome, documentId));
  }

  private failureBody(request: EditorRequest, error: EditorError): Answer {
    return {
      ok: false,
      code: error.code,
      error: error.message,
      ...(typeof request.request_id === 'string' ? { request_id: request.request_id } : {}),
      ...error.details,
    };
  }

  private failure(request: EditorRequest, error: unknown): Answer {
    if (error instanceof EditorError) return this.withState(this.failureBody(request, error));
    const message = error instanceof Error ? error.message : String(error);
    return this.withState({ ok: false, code: 'internal_error', error: message });
  }

  /** The answer plus the session's current `state`. */
  withState(answer: Answer): Answer {
    return { ...answer, state: this.stateView() };
  }

  /** The `state` op's answer body. */
  stateView(): Record<string, unknown> {
    const s = this.state;
    const active = s.active === null ? undefined : s.documents[String(s.active)];
    return {
      session_id: this.sessionId,
      version: this.version,
      document_id: s.active,
      revision: active?.revision ?? null,
      documents: s.tabs.map((id) => {
        const d = s.documents[String(id)] as DocumentState;
        return {
          id: d.id,
          title: d.title,
          path: d.path,
          dirty: d.revision !== d.saved_revision,
          revision: d.revision,
        };
      }),
      selection: active
        ? { document_id: active.id, handles: [...active.selection], count: active.selection.length }
        : null,
      operation: this.running
        ? { request_id: this.running.request_id, op: this.running.op, status: 'running' }
        : null,
    };
  }
}
