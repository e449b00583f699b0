/**
 * Running ops one after another inside one request (`batch`, `run`): each op decides against the state
 * the earlier ones left, by applying their events to a private copy of the session's read model with
 * the projection's own evolve — what the dispatcher does when it commits, minus the append.
 */
import {
  type DocumentState,
  type EditorSessionState,
  evolveSession,
  forkDocument,
} from '../../../projections/editor-session.js';
import {
  type Change,
  type EditorEvent,
  editorEvent,
  isStepEvent,
  type NewEditorEvent,
  type StepData,
  sessionStream,
} from '../../../streams/editor.js';
import { dictGet } from '../dict.js';
import { EditorError } from '../errors.js';
import type { EditorRequest } from '../request.js';
import { resolveTarget } from '../target.js';
import type { OpContext, OpOutcome } from './types.js';

/** The outcome of one op run in the scratch state, and the document it targeted. */
export interface Ran {
  opName: string;
  outcome: OpOutcome;
  doc: DocumentState | undefined;
}

export class Scratch {
  private readonly current: EditorSessionState;
  /** Events applied but not evolved yet: the last op's events are never evolved unless read after. */
  private pending: NewEditorEvent[] = [];
  private readonly owned = new Set<string>();
  private readonly ctx: OpContext;

  /** A copy of `base` (the session's state, or another scratch's) that ops of `ctx`'s request change. */
  constructor(ctx: OpContext, base: EditorSessionState = ctx.session) {
    this.ctx = ctx;
    // `operations` is shared: only the dispatcher records answers, never an op's events.
    this.current = {
      ...base,
      documents: { ...base.documents },
      tabs: [...base.tabs],
      operations: base.operations,
    };
  }

  /**
   * The state after every event applied so far. Evolving is deferred to the first read after them: a
   * command line or batch of one op (the usual case) then never copies the document it changes,
   * which costs ~100 ms at 100,000 entities.
   */
  get state(): EditorSessionState {
    if (this.pending.length > 0) this.evolve();
    return this.current;
  }

  /** A scratch that starts from this one's state and leaves it alone. */
  fork(): Scratch {
    return new Scratch(this.ctx, this.state);
  }

  doc(id: number): DocumentState | undefined {
    return this.state.documents[String(id)];
  }

  /** Applies events as the session will; the next op decides on exactly what the log will hold. */
  apply(events: readonly NewEditorEvent[]): void {
    this.pending.push(...events);
  }

  /** Evolves the pending events as the session does when it commits: their stored JSON, through evolve. */
  private evolve(): void {
    const events = this.pending;
    this.pending = [];
    const stream = sessionStream(this.ctx.sessionId);
    const requestId =
      typeof this.ctx.request.request_id === 'string' ? this.ctx.request.request_id : undefined;
    const at = new Date().toISOString();
    for (const event of events) {
      const data = JSON.parse(JSON.stringify(event.data)) as { document_id?: unknown };
      if (typeof data.document_id === 'number') this.own(data.document_id);
      const recorded = {
        stream,
        revision: 0,
        position: 0,
        type: event.type,
        data,
        metadata: requestId === undefined ? { at } : { requestId, at },
      } as unknown as EditorEvent;
      evolveSession(this.current, recorded);
    }
  }

  private own(id: number): void {
    const key = String(id);
    const doc = this.current.documents[key];
    if (!doc || this.owned.has(key)) return;
    this.current.documents[key] = forkDocument(doc);
    this.owned.add(key);
  }

  /** The context an op gets for `request` here: this state, the same session, log and op table. */
  context(request: EditorRequest, doc: DocumentState | undefined): OpContext {
    return { ...this.ctx, request, session: this.state, doc };
  }

  /**
   * Checks `request` as the dispatcher would (document, revision, op) against this state, runs its op
   * and applies its events. Throws the op's EditorError; nothing is applied then.
   */
  async run(request: EditorRequest): Promise<Ran> {
    const opName = typeof request.op === 'string' ? request.op : '';
    const target = resolveTarget(this.state, request, opName, dictGet(this.ctx.ops, opName));
    const outcome = await target.op.run(this.context(request, target.doc));
    this.apply(outcome.events);
    return { opName, outcome, doc: target.doc };
  }
}

/** The `changes` an outcome's answer reports (the undo and redo ops give theirs; others' are in events). */
export const outcomeChanges = (outcome: OpOutcome): Change[] =>
  outcome.changes ?? outcome.events.flatMap((e) => (e.data as { changes?: Change[] }).changes ?? []);

/** Events that can join one undo step: steps, and the selection and view (which are not steps). */
export function checkCombinable(events: readonly NewEditorEvent[]): void {
  for (const event of events) {
    if (isStepEvent(event.type) || event.type === 'SelectionChanged' || event.type === 'ViewFocused')
      continue;
    throw new EditorError(
      'not_atomic',
      `${event.type} cannot be part of one undo step (an atomic batch may change entities, tables, ` +
        'settings, the selection and the view of open documents; not open, save, close, undo or redo)',
    );
  }
}

/**
 * Several ops' events as one undo step per document: their changes, in order, in one event of `type`
 * (applying them in order is applying the steps in order; undo applies them backwards). Selection and
 * view events follow it, as the final selection and view of `after` (the state the events led to), so
 * the result is the same state. Anything else (documents opened, saved or closed, undo and redo)
 * cannot be part of one step: `not_atomic`.
 */
export function combineSteps(
  before: EditorSessionState,
  after: EditorSessionState,
  events: readonly NewEditorEvent[],
  make: (data: StepData) => NewEditorEvent,
): NewEditorEvent[] {
  checkCombinable(events);
  const steps = new Map<number, StepData>();
  const selections = new Map<number, 'selection_set' | 'viewer' | 'command'>();
  const views = new Map<number, NewEditorEvent>();
  for (const event of events) {
    if (isStepEvent(event.type)) {
      const data = event.data as StepData;
      const doc = before.documents[String(data.document_id)];
      if (!doc) throw new Error(`combineSteps: document ${data.document_id} is not in the state before`);
      const step = steps.get(data.document_id) ?? {
        document_id: data.document_id,
        revision: doc.revision + 1,
        op: data.op,
        changes: [],
        result: {},
      };
      step.changes.push(...data.changes);
      steps.set(data.document_id, step);
    } else if (event.type === 'SelectionChanged') {
      selections.set(event.data.document_id, event.data.source);
    } else if (event.type === 'ViewFocused') {
      views.set(event.data.document_id, event);
    }
  }
  const out = [...steps.values()].map(make);
  for (const [id, source] of selections) {
    const doc = after.documents[String(id)];
    if (doc)
      out.push(editorEvent('SelectionChanged', { document_id: id, handles: [...doc.selection], source }));
  }
  out.push(...views.values());
  return out;
}
