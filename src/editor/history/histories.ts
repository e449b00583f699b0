/**
 * Session histories read from the event store, kept in memory and caught up on each use: the I/O edge
 * of the history core. A history is built once per session (one read of its stream) and then only
 * reads what was appended since, so time travel in the running session stays cheap.
 *
 * Checkpoints live here, in memory, rather than in the store's snapshots: a checkpoint of a large
 * drawing is tens of MB of JSON, and parsing one back costs about what replaying a quarter of the
 * document does, while an in-memory copy shares every unchanged entity with its neighbours.
 */
import type { DocumentState } from '../../../projections/editor-session.js';
import type { EditorEvent } from '../../../streams/editor.js';
import { sessionStream } from '../../../streams/editor.js';
import type { EventStore } from '../../store/types.js';
import { type DocumentHistory, emptyHistory, foldHistory, type SessionHistory } from './fold.js';
import { documentAt } from './time-travel.js';

interface HistoriesOptions {
  /** Sessions kept in memory besides the running one (least recently used go first). */
  sessions?: number;
  /** Documents at a revision kept for repeated reads (paging through entities). */
  states?: number;
}

/** Reads a session stream (from where `history` is) and folds it; `stream_revision` stays -1 when it has no events. */
export async function readSessionHistory(
  store: Pick<EventStore, 'readStream'>,
  sessionId: string,
  history: SessionHistory = emptyHistory(sessionId),
): Promise<SessionHistory> {
  for await (const event of store.readStream(sessionStream(sessionId), { from: history.stream_revision + 1 }))
    foldHistory(history, event as EditorEvent);
  return history;
}

export class SessionHistories {
  private readonly store: EventStore;
  private readonly keep: number;
  private readonly keepStates: number;
  private readonly histories = new Map<string, SessionHistory>();
  /** One catch-up at a time per session: two interleaved reads would fold events out of order. */
  private readonly loading = new Map<string, Promise<SessionHistory | undefined>>();
  private readonly states = new Map<string, DocumentState>();
  private readonly pinned: () => string | undefined;

  constructor(
    store: EventStore,
    pinned: () => string | undefined = () => undefined,
    options: HistoriesOptions = {},
  ) {
    this.store = store;
    this.pinned = pinned;
    this.keep = options.sessions ?? 2;
    this.keepStates = options.states ?? 4;
  }

  /** The session's history caught up with the log, or undefined when the store has no such session. */
  load(sessionId: string): Promise<SessionHistory | undefined> {
    const before = this.loading.get(sessionId) ?? Promise.resolve(undefined);
    const next = before.catch(() => undefined).then(() => this.catchUp(sessionId));
    this.loading.set(sessionId, next);
    void next.finally(() => {
      if (this.loading.get(sessionId) === next) this.loading.delete(sessionId);
    });
    return next;
  }

  private async catchUp(sessionId: string): Promise<SessionHistory | undefined> {
    const known = this.histories.get(sessionId);
    const history = await readSessionHistory(this.store, sessionId, known);
    if (history.stream_revision < 0) return undefined;
    // Most recently used last; the running session is never evicted.
    this.histories.delete(sessionId);
    this.histories.set(sessionId, history);
    const pinned = this.pinned();
    for (const id of this.histories.keys()) {
      if (this.histories.size <= this.keep + (pinned !== undefined && this.histories.has(pinned) ? 1 : 0))
        break;
      if (id !== pinned && id !== sessionId) this.histories.delete(id);
    }
    return history;
  }

  /** The document at `revision` (see documentAt); the last few are kept, since pages read it again. */
  documentAt(sessionId: string, history: DocumentHistory, revision: number): DocumentState {
    const key = `${sessionId}\u0000${history.document_id}\u0000${revision}\u0000${history.ends[revision]}`;
    const kept = this.states.get(key);
    if (kept) {
      this.states.delete(key);
      this.states.set(key, kept);
      return kept;
    }
    const state = documentAt(history, revision);
    this.states.set(key, state);
    for (const old of this.states.keys()) {
      if (this.states.size <= this.keepStates) break;
      this.states.delete(old);
    }
    return state;
  }
}
