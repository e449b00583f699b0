import { randomUUID } from 'node:crypto';
import { Subject } from 'rxjs';
import {
  type DocumentState,
  type EditorSessionState,
  editorSessionProjection,
} from '../../projections/editor-session.js';
import type { LiveRebuildOptions, LiveRebuildResult } from '../../projections/live-model.js';
import type { Projection } from '../../projections/projection.js';
import {
  type Answer,
  type Change,
  editorEvent,
  type NewEditorEvent,
  sessionStream,
} from '../../streams/editor.js';
import { EventTooLargeError } from '../store/errors.js';
import type { EventStore, RecordedEvent } from '../store/types.js';
import { knownJsonOf } from '../store/validate.js';
import { bodyHash } from './body-hash.js';
import { dictGet } from './dict.js';
import { EditorError } from './errors.js';
import { verificationDigest } from './history/verification.js';
import type { OpDefinition, OpOutcome, OpTable } from './ops/types.js';
import { cancelPick, pickRefusal } from './picks.js';
import { type Caller, type EditorRequest, isObject } from './request.js';
import { resumeEvents } from './resume/events.js';
import type { ResumeSource } from './resume/source.js';
import { sizedParts } from './step-parts.js';
import { resolveTarget } from './target.js';

const MAX_REQUEST_ID_BYTES = 128;

/** The snapshot of a session's read model as the live session had it when it ended. */
export const liveSnapshotName = (sessionId: string) => `editor-session-live:${sessionId}`;
/** Longest stretch a large commit works before it lets the event loop answer others (ms). */
const BREATH_MS = 8;

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

/** `origin_forbidden`: a web page of another origin asked for an op that reads or writes files. */
function originRefusal(opName: string, caller: Caller): EditorError {
  const page = caller.origin === undefined ? 'a web page' : `a page of ${caller.origin}`;
  return new EditorError(
    'origin_forbidden',
    `${opName} reads or writes files, which ${page} may not ask for: only programs (no Origin header), pages served from this machine (http://127.0.0.1, http://localhost, http://[::1]) and origins the editor was started with (--allow-origin) may`,
  );
}

interface Running {
  request_id: string;
  op: string;
  hash: string;
  /** `queued` until the queue reaches it, `running` from then until it is answered. */
  status: 'queued' | 'running';
  answer: Promise<Answer>;
  /** Set while a cancellable op (plot) runs: `cancel` aborts it. */
  abort?: AbortController;
}

/** A cancellable read or immediate op while it runs (capture, query): `cancel` aborts it. */
interface Working {
  request_id: string | undefined;
  op: string;
  abort: AbortController;
}

/** A mutation the queue has decided: its answer (with the state right after it) and its durability. */
interface Decided {
  answer: Answer;
  durable: Promise<void>;
}

/**
 * One editor session: the protocol-1 dispatcher over the event store. Mutations are decided one at a
 * time in arrival order; each appends its events and its answer to the session's stream and is
 * answered once they are durable.
 *
 * The session is its stream's only writer (the store's lock keeps other processes out), so it keeps
 * its read model itself: it applies each mutation's events, as their stored JSON, with the
 * projection's `evolve` the moment it appends them, and decides the next mutation against that state
 * while the append waits for its fsync. The appends of concurrent requests then share one synced
 * batch instead of paying one fsync each. Nothing is answered before it is durable; reads that go
 * through the queue wait for every earlier append; if an append fails, the state is replayed from the
 * log before the next request is decided, so it never keeps what the log does not have.
 */
export class EditorSession {
  readonly sessionId: string;
  readonly version: string;
  private readonly store: EventStore;
  private readonly ops: OpTable;
  private readonly projection: Projection<EditorSessionState>;
  private current: EditorSessionState;
  private queue: Promise<unknown> = Promise.resolve();
  private streamRevision: number | 'no_stream' = 'no_stream';
  /** The mutation being decided. */
  private running: Running | undefined;
  private readonly inflight = new Map<string, Running>();
  /** Cancellable reads and immediate ops running now, oldest first (they run beside the queue's mutation). */
  private readonly working = new Set<Working>();
  /** Settles (never rejects) once every append started so far has settled. */
  private committed: Promise<void> = Promise.resolve();
  /** Why an append failed since the state was last replayed from the log; set = replay before going on. */
  private commitFailure: { error: unknown } | undefined;
  /** A person at the viewer can answer picks (GUI-hosted); headless otherwise. */
  readonly gui: boolean;
  private readonly recorded$ = new Subject<RecordedEvent>();
  /**
   * Every event of the session once it is durable, in log order (the viewer's live updates). The
   * state may already be past it when it arrives. Subscribers must not throw, and must not be slow:
   * they run on the dispatcher's loop.
   */
  readonly recorded = this.recorded$.asObservable();

  private constructor(store: EventStore, ops: OpTable, sessionId: string, version: string, gui: boolean) {
    this.gui = gui;
    this.store = store;
    this.ops = ops;
    this.sessionId = sessionId;
    this.version = version;
    // No snapshots: a session's state holds whole drawings (59 MB of JSON at 100,000 entities), and its
    // own stream replays in well under a second.
    this.projection = editorSessionProjection(sessionId);
    this.current = this.projection.initial();
  }

  /**
   * Starts a new session (or resumes `sessionId`'s stream) and records its start. With `resume`, the
   * new session opens with the documents of another session's state (`chronicle editor --resume`).
   */
  static async start(
    store: EventStore,
    ops: OpTable,
    options: { version: string; sessionId?: string; gui?: boolean; resume?: ResumeSource },
  ): Promise<EditorSession> {
    const session = new EditorSession(
      store,
      ops,
      options.sessionId ?? randomUUID(),
      options.version,
      options.gui === true,
    );
    await session.replay();
    // A pick left pending by a session that stopped without closing (a crash) has nobody to answer it.
    const orphan = session.current.pick;
    const started = await session.commit([
      ...(orphan ? cancelPick(session.current, orphan, 'restart') : []),
      editorEvent('SessionStarted', {
        session_id: session.sessionId,
        version: options.version,
        pid: process.pid,
      }),
      ...(options.resume
        ? resumeEvents(session.sessionId, options.resume.state, options.resume.revision)
        : []),
    ]);
    await started.durable;
    return session;
  }

  get state(): EditorSessionState {
    return this.current;
  }

  /** Records the end of the session. Waits for queued requests and their appends. */
  async close(): Promise<void> {
    await this.queue.catch(() => undefined);
    await this.committed;
    // A pick still waiting ends with the session: the person's viewer goes away with it.
    const pick = this.current.pick;
    const ended = await this.commit([
      ...(pick ? cancelPick(this.current, pick, 'shutdown') : []),
      editorEvent('SessionEnded', { session_id: this.sessionId, reason: 'shutdown' }),
    ]);
    await ended.durable;
    await this.saveLiveSnapshot();
    this.recorded$.complete();
  }

  /**
   * The read model as this session has it at its end, for `chronicle replay --verify` to check a replay
   * of the log against. Written once, at the end, as its verification digest: a drawing's state is tens
   * of MB of JSON (see the constructor), and writing it whole was the editor's memory peak (433 MB at
   * 100,000 entities); the digest keeps every entity's, step's and answer's difference findable by
   * name in a few MB. Its position is the session's last event's, so a replay knows where to stop.
   */
  private async saveLiveSnapshot(): Promise<void> {
    let position = 0;
    for await (const last of this.store.readStream(sessionStream(this.sessionId), {
      direction: 'backwards',
      maxCount: 1,
    }))
      position = last.position;
    await this.store.saveSnapshot({
      name: liveSnapshotName(this.sessionId),
      version: this.projection.version,
      position,
      state: verificationDigest(this.current),
    });
  }

  /**
   * What the person did in the viewer (answered a pick, selected): decided in the queue like a
   * mutation, against the state of its moment, and recorded — but not an operation of its own (no
   * request id, no OperationAnswered). Never throws: failures are `{ ok: false, code, error }`.
   */
  async act(
    decide: (state: EditorSessionState) => { events: NewEditorEvent[]; result: Record<string, unknown> },
  ): Promise<Answer> {
    try {
      const decided = await this.enqueue(async () => {
        if (this.commitFailure !== undefined) await this.settle();
        const { events, result } = decide(this.current);
        const { durable } = await this.commit(events);
        return { durable, result };
      });
      await decided.durable;
      return { ok: true, status: 'completed', result: decided.result };
    } catch (error) {
      const { state: _state, ...answer } = this.failure({}, error);
      return answer as Answer;
    }
  }

  /** The state as the log has it: the session stream's events through the projection, from scratch. */
  private async replay(): Promise<void> {
    const stream = sessionStream(this.sessionId);
    let state = this.projection.initial();
    let revision: number | 'no_stream' = 'no_stream';
    for await (const event of this.store.readStream(stream)) {
      state = this.projection.evolve(state, event);
      revision = event.revision;
    }
    this.current = state;
    this.streamRevision = revision;
  }

  /**
   * Blue-green rebuild of this session's read model (`chronicle rebuild` reaching a running editor):
   * replays the stream into a new state while the current one keeps answering, then, in the queue — no
   * mutation being decided, every earlier append settled — applies what was appended since and swaps
   * the new state in.
   */
  async rebuild(options: LiveRebuildOptions = {}): Promise<LiveRebuildResult> {
    const started = performance.now();
    const stream = sessionStream(this.sessionId);
    const name = 'editor-models';
    const total = this.streamRevision === 'no_stream' ? 0 : this.streamRevision + 1;
    let state = this.projection.initial();
    let revision = -1;
    let events = 0;
    const apply = (event: RecordedEvent) => {
      state = this.projection.evolve(state, event);
      revision = event.revision;
      events += 1;
    };
    for await (const event of this.store.readStream(stream)) {
      if (event.revision >= total) break;
      apply(event);
      if (events % 10_000 === 0)
        options.onProgress?.({ projection: name, done: events, total, position: events });
    }
    return this.enqueue(async () => {
      await this.settle();
      for await (const event of this.store.readStream(stream, { from: revision + 1 })) apply(event);
      if (revision !== (this.streamRevision === 'no_stream' ? -1 : this.streamRevision))
        throw new Error(
          `session ${this.sessionId}: rebuilt to revision ${revision}, the log has ${this.streamRevision}`,
        );
      this.current = state;
      options.onProgress?.({ projection: name, done: events, total: events, position: events });
      return {
        events,
        position: revision,
        seconds: (performance.now() - started) / 1000,
        detail: `session ${this.sessionId} at revision ${revision}`,
      };
    });
  }

  /** Waits for every append started so far; after a failed one, replays the state from the log. */
  private async settle(): Promise<void> {
    await this.committed;
    if (this.commitFailure === undefined) return;
    await this.replay();
    this.commitFailure = undefined;
  }

  /**
   * Answers one protocol-1 request. Never throws: failures are `{ ok: false, code, error }` answers.
   * `caller`: who sent it (a REST request a web page sent may not touch files); none = a local program.
   */
  async dispatch(raw: unknown, caller?: Caller): Promise<Answer> {
    const request: EditorRequest = isObject(raw) ? raw : {};
    try {
      return await this.route(request, caller);
    } catch (error) {
      return this.failure(request, error);
    }
  }

  private async route(request: EditorRequest, caller: Caller | undefined): Promise<Answer> {
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
    const op = dictGet(this.ops, opName);
    // Refused at the door and not recorded, so the same request from a program (same id) still runs.
    if (caller?.files === false && op?.files?.(request, this.ops)) throw originRefusal(opName, caller);
    if (op?.atOnce) {
      const ctx = this.context(request);
      const outcome = op.atOnce(ctx);
      if (outcome) return this.answer(request, outcome, ctx.doc);
    }
    if (op?.kind === 'immediate') {
      const ctx = this.context(request);
      if (!op.cancellable) return this.answer(request, await op.run(ctx), ctx.doc);
      const outcome = await this.whileWorking(request, opName, (signal) => op.run({ ...ctx, signal }));
      return this.answer(request, outcome, ctx.doc);
    }
    if (op?.kind === 'read')
      return this.enqueue(async () => {
        await this.settle();
        return this.runChecked(request, opName, op);
      });

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
    const earlier = this.inflight.get(requestId) ?? dictGet(this.state.operations, requestId);
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
    // Refused before it is queued, and not recorded: busy passes, and a retry must then run.
    if (this.current.pick && op && !op.whilePicking) throw pickRefusal(this.current.pick, opName);
    const running: Running = {
      request_id: requestId,
      op: opName,
      hash,
      status: 'queued',
      answer: Promise.resolve({ ok: false }),
    };
    running.answer = this.enqueue(async () => {
      if (this.commitFailure !== undefined) await this.settle();
      return this.runMutation(request, running, op);
    }).then(async (decided) => {
      await decided.durable;
      return decided.answer;
    });
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
  private resolve(
    request: EditorRequest,
    opName: string,
    op: OpDefinition | undefined,
    signal?: AbortSignal,
  ) {
    const target = resolveTarget(this.state, request, opName, op);
    return { op: target.op, ctx: { ...this.context(request, target.doc), signal } };
  }

  private async runChecked(
    request: EditorRequest,
    opName: string,
    op: OpDefinition | undefined,
  ): Promise<Answer> {
    if (!op?.cancellable) {
      const resolved = this.resolve(request, opName, op);
      return this.answer(request, await resolved.op.run(resolved.ctx), resolved.ctx.doc);
    }
    const { outcome, doc } = await this.whileWorking(request, opName, async (signal) => {
      const resolved = this.resolve(request, opName, op, signal);
      return { outcome: await resolved.op.run(resolved.ctx), doc: resolved.ctx.doc };
    });
    return this.answer(request, outcome, doc);
  }

  /**
   * Runs a cancellable read or immediate op: `state.operation` shows it and `cancel` stops it meanwhile.
   * Its answer is made by the caller once it stopped running, so the state it carries does not show it.
   */
  private async whileWorking<T>(
    request: EditorRequest,
    opName: string,
    work: (signal: AbortSignal) => Promise<T> | T,
  ): Promise<T> {
    const requestId = typeof request.request_id === 'string' ? request.request_id : undefined;
    const entry: Working = { request_id: requestId, op: opName, abort: new AbortController() };
    this.working.add(entry);
    try {
      return await work(entry.abort.signal);
    } finally {
      this.working.delete(entry);
    }
  }

  /** The cancellable read or immediate op running under `requestId`, if any. */
  private workingNamed(requestId: string): Working | undefined {
    for (const entry of this.working) if (entry.request_id === requestId) return entry;
    return undefined;
  }

  /**
   * Decides one mutation and records its events and answer; the answer carries the state right after
   * it (read once it has stopped running, so it does not report itself as `running`, and an idempotent
   * retry, answered with the state of its moment, matches it).
   */
  private async runMutation(
    request: EditorRequest,
    running: Running,
    op: OpDefinition | undefined,
  ): Promise<Decided> {
    running.status = 'running';
    this.running = running;
    const { request_id: requestId, op: opName, hash } = running;
    const record = async (
      answer: Answer,
      events: NewEditorEvent[],
      documentId: number | null,
    ): Promise<Decided> => {
      const last = events.at(-1)?.data as { revision?: number } | undefined;
      const { durable } = await this.commit(
        [
          ...events,
          editorEvent('OperationAnswered', {
            request_id: requestId,
            op: opName,
            body_hash: hash,
            document_id: documentId,
            revision: last?.revision ?? null,
            answer,
          }),
        ],
        requestId,
      );
      this.running = undefined;
      return { answer: this.withState(answer), durable };
    };
    try {
      // A pick requested while this one was queued: refused as at the door, not recorded.
      if (this.current.pick && op && !op.whilePicking) {
        return {
          answer: this.withState(this.failureBody(request, pickRefusal(this.current.pick, opName))),
          durable: Promise.resolve(),
        };
      }
      let outcome: OpOutcome;
      let target: DocumentState | undefined;
      try {
        if (op?.cancellable) running.abort = new AbortController();
        const resolved = this.resolve(request, opName, op, running.abort?.signal);
        target = resolved.ctx.doc;
        outcome = await resolved.op.run(resolved.ctx);
      } catch (error) {
        if (!(error instanceof EditorError)) throw error;
        const answer = this.failureBody(request, error);
        return record(answer, [], typeof request.document_id === 'number' ? request.document_id : null);
      }
      const documentId = outcome.document_id !== undefined ? outcome.document_id : (target?.id ?? null);
      return record(this.answerBody(requestId, outcome, documentId), outcome.events, documentId);
    } finally {
      this.running = undefined;
    }
  }

  /**
   * Applies `events` to the session's state and appends them; resolves when they are durable. Each is
   * applied as its stored JSON (what a reader of the log gets: no object of an op's is shared with the
   * state), after it has passed the store's checks, so a refused event changes nothing. `position` is
   * 0 in what evolve sees: the store gives positions at commit, and the session's evolve does not read
   * them. Every event carries the request id of the mutation that made it (audit trail, undo steps).
   */
  private async commit(events: NewEditorEvent[], requestId?: string): Promise<{ durable: Promise<void> }> {
    const stream = sessionStream(this.sessionId);
    const at = new Date().toISOString();
    const metadata = requestId === undefined ? { at } : { requestId, at };
    // Serializing and parsing a large outcome (an open of 300,000 entities is ~100 MB of JSON) takes
    // seconds: it is done an event at a time, letting the loop answer other requests in between. The
    // state is only touched once all of it is ready, so nobody sees half an outcome.
    let breath = performance.now();
    const breathe = async () => {
      if (performance.now() - breath < BREATH_MS) return;
      await new Promise((resolve) => setImmediate(resolve));
      breath = performance.now();
    };
    const stamped: Array<NewEditorEvent & { metadata: typeof metadata }> = [];
    // A step too large for one event is recorded in parts (step-parts.ts), in this same append.
    const bodies: string[] = [];
    for (const event of events) {
      for (const part of sizedParts({ ...event, metadata }, at)) {
        stamped.push(part.event);
        bodies.push(part.body);
      }
      await breathe();
    }
    const recorded: RecordedEvent[] = [];
    let revision = this.streamRevision === 'no_stream' ? -1 : this.streamRevision;
    for (const [i, body] of bodies.entries()) {
      revision += 1;
      const event = stamped[i] as (typeof stamped)[number];
      if (knownJsonOf(event.data) !== undefined) {
        // Data parsed from its own JSON text and handed over (a DXF's entities, parsed off the
        // thread's loop): it is its stored JSON already, shared with nobody; parsing the body again
        // would only make a second copy.
        const metadata = JSON.parse(JSON.stringify(event.metadata)) as RecordedEvent['metadata'];
        recorded.push({ stream, revision, position: 0, type: event.type, data: event.data, metadata });
      } else {
        const { t, d, m } = JSON.parse(body) as { t: string; d: unknown; m: RecordedEvent['metadata'] };
        recorded.push({ stream, revision, position: 0, type: t, data: d, metadata: m });
      }
      await breathe();
    }
    try {
      for (const event of recorded) this.current = this.projection.evolve(this.current, event);
    } catch (error) {
      // Half applied and not appended: the next request replays the state from the log first.
      this.commitFailure ??= { error };
      throw error;
    }
    const appended = this.store.append(stream, stamped, { expectedRevision: this.streamRevision });
    this.streamRevision = revision;
    const durable = appended.then(() => undefined);
    this.committed = durable.catch((error: unknown) => {
      this.commitFailure ??= { error };
    });
    durable.then(
      () => {
        for (const event of recorded) this.recorded$.next(event);
      },
      () => undefined,
    );
    return { durable };
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
        if (inflight) return { op: inflight.op, status: inflight.status };
        const working = this.workingNamed(requestId);
        return working ? { op: working.op, status: 'running' as const } : undefined;
      },
      log: this.store,
      ops: this.ops,
      gui: this.gui,
      stateView: () => this.stateView(),
      cancelRunning: (requestId: string | undefined, by: string) => {
        // The queue's mutation first, then the reads and captures beside it, oldest first.
        const candidates: Array<{ request_id: string | undefined; op: string; abort?: AbortController }> = [
          ...(this.running ? [this.running] : []),
          ...this.working,
        ];
        const stopped = candidates.filter(
          (c) =>
            c.abort !== undefined &&
            !c.abort.signal.aborted &&
            (requestId === undefined || requestId === c.request_id),
        );
        for (const c of stopped) c.abort?.abort(by);
        const [first] = stopped;
        return first && { request_id: first.request_id ?? null, op: first.op, count: stopped.length };
      },
    };
  }

  private answerBody(requestId: string | undefined, outcome: OpOutcome, documentId: number | null): Answer {
    // A batch that stopped part-way fails, although the steps before the failure are recorded.
    const body: Answer = outcome.failed
      ? { ok: false, code: outcome.failed.code, error: outcome.failed.error }
      : { ok: true, status: 'completed' };
    // Assigned one by one rather than spread: answers with many fields (state, query) are the hot path,
    // and object spread after other properties takes V8's slow path.
    if (requestId !== undefined) body.request_id = requestId;
    if (documentId !== null) body.document_id = documentId;
    body.result = outcome.result ?? {};
    body.changes = answerChanges(outcome.changes ?? changesOf(outcome.events));
    const fields = outcome.fields;
    if (fields) for (const key of Object.keys(fields)) body[key] = fields[key];
    return body;
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
    // Nothing was recorded: one change alone is over the store's event limit (step-parts.ts).
    if (error instanceof EventTooLargeError)
      return this.withState(this.failureBody(request, new EditorError('too_large', error.message)));
    const message = error instanceof Error ? error.message : String(error);
    return this.withState({ ok: false, code: 'internal_error', error: message });
  }

  /**
   * `state.operation`: the mutation running, else the oldest cancellable read or capture running beside
   * the queue, else the pick waiting for the person; null when none.
   */
  private operationView(): Record<string, unknown> | null {
    if (this.running) return { request_id: this.running.request_id, op: this.running.op, status: 'running' };
    for (const entry of this.working)
      if (!entry.abort.signal.aborted)
        return { request_id: entry.request_id ?? null, op: entry.op, status: 'running' };
    const pick = this.state.pick;
    return pick ? { request_id: pick.request_id, op: pick.op, status: 'pending', prompt: pick.prompt } : null;
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
      geometry_revision: active?.geometry_revision ?? null,
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
      operation: this.operationView(),
    };
  }
}
