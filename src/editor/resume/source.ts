import { type EditorSessionState, editorSessionProjection } from '../../../projections/editor-session.js';
import { ProjectionRunner } from '../../../projections/runtime.js';
import { streamCatalog } from '../../../projections/stream-catalog.js';
import { SESSION_STREAM_PREFIX, sessionStream } from '../../../streams/editor.js';
import { StreamDeletedError } from '../../store/errors.js';
import type { EventStore } from '../../store/types.js';

/** Why there is nothing to resume; the message is the one line the CLI prints (exit status 1). */
export class ResumeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResumeError';
  }
}

/** A session to carry on: its state at the last revision of its stream. */
export interface ResumeSource {
  state: EditorSessionState;
  revision: number;
}

/** True while a process with this id exists (EPERM: it exists but belongs to someone else). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The editor session with the most recent event, from the stream catalog (its snapshot caught up
 * with the log, then saved again, so the next look is short).
 */
async function lastSessionId(store: EventStore): Promise<string | undefined> {
  const catalog = new ProjectionRunner(store, streamCatalog);
  await catalog.start();
  await catalog.stop();
  let last: { id: string; position: number } | undefined;
  for (const [stream, summary] of Object.entries(catalog.state.streams)) {
    if (!stream.startsWith(SESSION_STREAM_PREFIX)) continue;
    if (!last || summary.lastPosition > last.position)
      last = { id: stream.slice(SESSION_STREAM_PREFIX.length), position: summary.lastPosition };
  }
  return last?.id;
}

/**
 * The session `--resume [SESSION]` reopens: the named one, else the last one. Refused when there is
 * none, when the id names no session, and when the session's process still runs (it started and did not
 * end, and its pid is alive): two editors must not carry on one session's documents.
 */
export async function findResumeSource(store: EventStore, sessionId?: string): Promise<ResumeSource> {
  const id = sessionId ?? (await lastSessionId(store));
  if (id === undefined) throw new ResumeError(`no editor session to resume in ${store.location}`);
  const projection = editorSessionProjection(id);
  let state = projection.initial();
  let revision = -1;
  let pid: number | undefined;
  try {
    for await (const event of store.readStream(sessionStream(id))) {
      state = projection.evolve(state, event);
      revision = event.revision;
      if (event.type === 'SessionStarted') pid = (event.data as { pid?: number }).pid;
    }
  } catch (error) {
    // A deleted stream: no session to resume under that id.
    if (!(error instanceof StreamDeletedError)) throw error;
    revision = -1;
  }
  if (revision < 0) throw new ResumeError(`no editor session ${id} in ${store.location}`);
  if (state.ended_at === null && pid !== undefined && pid !== process.pid && processAlive(pid)) {
    throw new ResumeError(
      `editor session ${id} is still running (process ${pid}); stop it first, or resume another session`,
    );
  }
  return { state, revision };
}
