import { dictDelete, dictGet, dictSet } from '../src/editor/dict.js';
import type { RecordedEvent } from '../src/store/types.js';
import { type EditorEvent, SESSION_STREAM_PREFIX } from '../streams/editor.js';
import { STREAM_DELETED, type StreamDeletedData, SYSTEM_STREAM } from '../streams/system.js';
import type { Projection } from './projection.js';

/** One run of a session: a process that started it (a resumed session has several). */
interface SessionRun {
  started_at: string;
  /** Null while running, or for good when the process died without ending it (a crash). */
  ended_at: string | null;
  pid: number;
  version: string;
}

interface SessionDocument {
  document_id: number;
  title: string;
  path: string | null;
  source: 'new' | 'open';
  opened_at: string;
  /** The document's latest revision. */
  revision: number;
  closed_at: string | null;
}

export interface SessionSummary {
  session_id: string;
  stream: string;
  events: number;
  first_position: number;
  last_at: string;
  runs: SessionRun[];
  documents: Record<string, SessionDocument>;
}

/** Every editor session of the log, with its runs and documents: the index of the audit routes. */
export interface EditorSessionsState {
  sessions: Record<string, SessionSummary>;
}

function summaryOf(state: EditorSessionsState, event: RecordedEvent): SessionSummary {
  const id = event.stream.slice(SESSION_STREAM_PREFIX.length);
  let summary = dictGet(state.sessions, id);
  if (!summary) {
    summary = {
      session_id: id,
      stream: event.stream,
      events: 0,
      first_position: event.position,
      last_at: event.metadata.at,
      runs: [],
      documents: {},
    };
    dictSet(state.sessions, id, summary);
  }
  return summary;
}

function evolveSummary(summary: SessionSummary, event: EditorEvent): void {
  summary.events += 1;
  summary.last_at = event.metadata.at;
  switch (event.type) {
    case 'SessionStarted':
      summary.runs.push({
        started_at: event.metadata.at,
        ended_at: null,
        pid: event.data.pid,
        version: event.data.version,
      });
      return;
    case 'SessionEnded': {
      const run = summary.runs.at(-1);
      if (run) run.ended_at = event.metadata.at;
      return;
    }
    case 'DocumentCreated':
    case 'DocumentOpened':
      summary.documents[String(event.data.document_id)] = {
        document_id: event.data.document_id,
        title: event.data.title,
        path: event.data.path,
        source: event.type === 'DocumentCreated' ? 'new' : 'open',
        opened_at: event.metadata.at,
        revision: event.data.revision,
        closed_at: null,
      };
      return;
    case 'DocumentClosed': {
      const doc = summary.documents[String(event.data.document_id)];
      if (doc) doc.closed_at = event.metadata.at;
      return;
    }
    case 'DocumentSaved': {
      const doc = summary.documents[String(event.data.document_id)];
      if (!doc) return;
      doc.path = event.data.path;
      doc.title = event.data.path.split(/[\\/]/).at(-1) ?? event.data.path;
      return;
    }
  }
  const data = event.data as { document_id?: unknown; revision?: unknown };
  if (typeof data.document_id !== 'number' || typeof data.revision !== 'number') return;
  const doc = summary.documents[String(data.document_id)];
  if (doc && data.revision > doc.revision) doc.revision = data.revision;
}

export const editorSessions: Projection<EditorSessionsState> = {
  name: 'editor-sessions',
  version: 1,
  initial: () => ({ sessions: {} }),
  evolve(state, event) {
    if (event.stream === SYSTEM_STREAM && event.type === STREAM_DELETED) {
      const stream = (event.data as StreamDeletedData).stream;
      if (stream.startsWith(SESSION_STREAM_PREFIX))
        dictDelete(state.sessions, stream.slice(SESSION_STREAM_PREFIX.length));
      return state;
    }
    if (!event.stream.startsWith(SESSION_STREAM_PREFIX)) return state;
    evolveSummary(summaryOf(state, event), event as EditorEvent);
    return state;
  },
};

type SessionStatus = 'running' | 'ended' | 'crashed';

/**
 * A session's status: `running` for the caller's own session, and for one whose latest run has not
 * ended while its process is alive (another process on a shared store); `ended` when its latest run
 * ended; `crashed` when the process of its latest run is gone without ending it. Every earlier run
 * that has no end crashed (the session was resumed after it).
 */
export function sessionStatus(
  summary: SessionSummary,
  currentSessionId: string | undefined,
  alive: (pid: number) => boolean,
): SessionStatus {
  if (summary.session_id === currentSessionId) return 'running';
  const last = summary.runs.at(-1);
  if (!last) return 'crashed';
  if (last.ended_at !== null) return 'ended';
  return alive(last.pid) ? 'running' : 'crashed';
}
