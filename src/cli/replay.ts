/**
 * `chronicle replay <session-id> [--document N] [--to REVISION] [--out FILE.dxf] [--verify]`: rebuilds
 * a past session from its stream, prints a document of it at a revision (saved as DXF with `--out`),
 * and with `--verify` checks the replay against the read model the live session had at its end.
 */
import {
  type DocumentState,
  type EditorSessionState,
  editorSessionProjection,
} from '../../projections/editor-session.js';
import { type EditorEvent, sessionStream } from '../../streams/editor.js';
import { EditorError } from '../editor/errors.js';
import {
  currentDocument,
  type DocumentHistory,
  documentAt,
  emptyHistory,
  foldHistory,
  headRevision,
  isVerificationDigest,
  jsonDifferences,
  type SessionHistory,
  verificationDigest,
} from '../editor/history/index.js';
import { writeDxfFile } from '../editor/ops/documents.js';
import { liveSnapshotName } from '../editor/session.js';
import { StoreLockedError } from '../store/errors.js';
import { openStore } from '../store/open.js';
import type { EventStore } from '../store/types.js';
import { type StoreOptions, storeUrlOf } from './store-option.js';

export interface ReplayOptions extends StoreOptions {
  document?: number;
  to?: number;
  out?: string;
  verify?: boolean;
}

/** Why a replay stopped; the message is what stderr shows, after `chronicle replay: `. */
class ReplayError extends Error {}

interface Replayed {
  history: SessionHistory;
  state: EditorSessionState;
  events: number;
}

/** One read of the session's stream into its history and into the read model's projection. */
async function replaySession(store: EventStore, sessionId: string): Promise<Replayed> {
  const projection = editorSessionProjection(sessionId);
  const history = emptyHistory(sessionId);
  let state = projection.initial();
  let events = 0;
  for await (const event of store.readStream(sessionStream(sessionId))) {
    foldHistory(history, event as EditorEvent);
    state = projection.evolve(state, event);
    events += 1;
  }
  if (events === 0) throw new ReplayError(`no editor session ${sessionId} in ${store.location}`);
  return { history, state, events };
}

/**
 * The document asked for, else the one active when the session's log ends, else (all closed) the last
 * one the session made.
 */
function pickDocument(replayed: Replayed, wanted: number | undefined): DocumentHistory {
  const docs = replayed.history.documents;
  const ids = Object.keys(docs).map(Number);
  if (ids.length === 0) throw new ReplayError(`session ${replayed.history.session_id} has no documents`);
  const id = wanted ?? replayed.state.active ?? Math.max(...ids);
  const doc = docs[String(id)];
  if (!doc) {
    throw new ReplayError(
      `session ${replayed.history.session_id} has no document ${id}; its documents: ${ids.join(', ')}`,
    );
  }
  return doc;
}

/**
 * What a revision makes of a document. Time travel gives the document right after the revision's own
 * events; a later save (title, path, saved revision), a selection by the viewer or a view change are
 * no revision of their own, so the document now may differ from it there and still be right.
 */
function revisionPart(
  doc: DocumentState,
): Omit<DocumentState, 'title' | 'path' | 'saved_revision' | 'selection' | 'view'> {
  const { title: _t, path: _p, saved_revision: _s, selection: _sel, view: _v, ...rest } = doc;
  return rest;
}

/**
 * The replay at the live snapshot's position against the snapshot: the lines that differ, or none.
 * Sessions write their state's verification digest (entities, steps' changes and answers by digest,
 * the rest in full); a snapshot of an older session holds the whole state, and is compared whole.
 */
async function verify(store: EventStore, sessionId: string, replayed: Replayed): Promise<string[]> {
  const snapshot = await store.loadSnapshot<unknown>(liveSnapshotName(sessionId));
  if (!snapshot) {
    throw new ReplayError(
      `cannot verify session ${sessionId}: no snapshot of its live read model (a session writes one when it ends; this one has not ended cleanly)`,
    );
  }
  const projection = editorSessionProjection(sessionId);
  // The session may have been resumed after the snapshot: replay up to its position only.
  let state = projection.initial();
  for await (const event of store.readStream(sessionStream(sessionId))) {
    if (event.position > snapshot.position) break;
    state = projection.evolve(state, event);
  }
  const problems: string[] = [];
  const digested = isVerificationDigest(snapshot.state);
  const live = digested ? snapshot.state : (JSON.parse(JSON.stringify(snapshot.state)) as unknown);
  const rebuilt = JSON.parse(JSON.stringify(digested ? verificationDigest(state) : state)) as unknown;
  const differences = jsonDifferences(live, rebuilt);
  if (differences.total > 0) {
    problems.push(
      `the replay differs from the live read model's snapshot (position ${snapshot.position}) in ${differences.total} place(s) (live -> replayed${digested ? "; entities, undo and redo steps' changes and answers by digest" : ''}):`,
      ...differences.lines.map((line) => `  ${line}`),
    );
  }
  // The history's documents at their latest revision must be the read model's documents too.
  for (const [id, doc] of Object.entries(replayed.history.documents)) {
    const expected = replayed.state.documents[id];
    if (!expected || doc.closed) continue;
    const travelled = documentAt(doc, headRevision(doc));
    const inFold = jsonDifferences(
      JSON.parse(JSON.stringify(expected)),
      JSON.parse(JSON.stringify(currentDocument(doc))),
    );
    const atHead = jsonDifferences(
      JSON.parse(JSON.stringify(revisionPart(currentDocument(doc)))),
      JSON.parse(JSON.stringify(revisionPart(travelled))),
    );
    if (inFold.total > 0)
      problems.push(
        `document ${id}: the history's document differs from the read model's:`,
        ...inFold.lines.map((l) => `  ${l}`),
      );
    if (atHead.total > 0)
      problems.push(
        `document ${id}: time travel to revision ${headRevision(doc)} differs:`,
        ...atHead.lines.map((l) => `  ${l}`),
      );
  }
  return problems;
}

/** Runs the command; the exit status (0 done, 1 failed; bad arguments are commander's, 2). */
export async function runReplay(
  sessionId: string,
  options: ReplayOptions,
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
): Promise<number> {
  let store: EventStore;
  try {
    store = await openStore(storeUrlOf(options));
  } catch (error) {
    if (!(error instanceof StoreLockedError)) throw error;
    err.write(
      `chronicle replay: the store in ${error.dir} is held by another process — LevelDB allows one process at a time, so a running chronicle server blocks a replay; stop the server, or replay a copy of the data directory\n`,
    );
    return 1;
  }
  try {
    const replayed = await replaySession(store, sessionId);
    const doc = pickDocument(replayed, options.document);
    const head = headRevision(doc);
    const revision = options.to ?? head;
    if (revision > head) {
      throw new ReplayError(
        `document ${doc.document_id} has revisions 0 to ${head}; --to ${revision} is not one of them`,
      );
    }
    const state = documentAt(doc, revision);
    const entities = Object.keys(state.model.entities).length;
    let written = '';
    if (options.out !== undefined) {
      const file = await writeDxfFile(options.out, state.model);
      written = `, written to ${options.out} (${file.bytes} bytes)`;
    }
    out.write(
      `session ${sessionId} document ${doc.document_id} (${doc.title}) at revision ${revision} of ${head}: ${entities} entities${written}\n`,
    );
    if (options.verify) {
      const problems = await verify(store, sessionId, replayed);
      if (problems.length > 0) {
        err.write(`chronicle replay: verify failed\n${problems.join('\n')}\n`);
        return 1;
      }
      out.write(`verified: ${replayed.events} events replayed equal the live read model's snapshot\n`);
    }
    return 0;
  } catch (error) {
    if (error instanceof ReplayError || error instanceof EditorError) {
      err.write(`chronicle replay: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await store.close();
  }
}
