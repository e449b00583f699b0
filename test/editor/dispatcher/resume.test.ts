/**
 * Resume in process: the new session's stream carries the old documents (beyond one EntitiesLoaded
 * batch), and it rebuilds to the same read model with the old session's stream gone.
 */
import { describe, expect, it } from 'vitest';
import type { DocumentState, EditorSessionState } from '../../../projections/editor-session.js';
import { editorSessionProjection } from '../../../projections/editor-session.js';
import { LOAD_BATCH } from '../../../src/editor/dxf/load.js';
import { editorOps } from '../../../src/editor/ops/index.js';
import { findResumeSource } from '../../../src/editor/resume/source.js';
import { EditorSession } from '../../../src/editor/session.js';
import { openStore } from '../../../src/store/open.js';
import type { EventStore } from '../../../src/store/types.js';
import { sessionStream } from '../../../streams/editor.js';
import { startHarness, VERSION } from './helpers.js';

/** What a resume carries of a document: everything but the undo history. */
const carried = ({ undo: _u, redo: _r, ...doc }: DocumentState) => doc;

async function replayed(store: EventStore, sessionId: string): Promise<EditorSessionState> {
  const projection = editorSessionProjection(sessionId);
  let state = projection.initial();
  for await (const event of store.readStream(sessionStream(sessionId)))
    state = projection.evolve(state, event);
  return state;
}

describe('resume', () => {
  it('carries every open document, tabs, active one and id counter; the new stream rebuilds alone', async () => {
    const store = await openStore('memory:');
    const old = await startHarness({ store, keepStore: true });
    const first = await old.newDoc();
    const many = Array.from({ length: LOAD_BATCH * 2 + 17 }, (_, i) => ({
      type: 'Circle',
      center: [i, i % 13],
      radius: 1 + (i % 5),
    }));
    const handles = await old.create(many, first);
    await old.ok('selection_set_save', { document_id: first, name: 'some', handles: handles.slice(0, 3) });
    await old.ok('entities_delete', { document_id: first, handles: handles.slice(10, 20) });
    const second = await old.newDoc();
    await old.create([{ type: 'Point', location: [1, 2] }], second);
    await old.ok('close', { document_id: second, discard: true });
    const third = await old.newDoc();
    await old.ok('activate', { document_id: first });
    const before = structuredClone(old.session.state);
    // No close: the session ends as a crash would leave it.

    const source = await findResumeSource(store, old.session.sessionId);
    const resumed = await EditorSession.start(store, editorOps, { version: VERSION, resume: source });
    const after = resumed.state;
    expect(after.tabs).toEqual([first, third]);
    expect(after.active).toBe(first);
    expect(after.next_document_id).toBe(before.next_document_id);
    expect(after.resumed_from).toEqual({ session_id: old.session.sessionId, revision: source.revision });
    for (const id of [first, third]) {
      const doc = after.documents[String(id)] as DocumentState;
      expect(carried(doc)).toEqual(carried(before.documents[String(id)] as DocumentState));
      expect(doc.undo).toEqual([]);
    }
    // More entities than two load batches: three EntitiesLoaded events for this document.
    const count = Object.keys(after.documents[String(first)]?.model.entities ?? {}).length;
    expect(count).toBeGreaterThan(2 * LOAD_BATCH);
    expect(count).toBe(Object.keys(before.documents[String(first)]?.model.entities ?? {}).length);

    // Rebuilt from its own stream, the old one deleted: the same read model.
    await store.deleteStream(sessionStream(old.session.sessionId));
    expect(await replayed(store, resumed.sessionId)).toEqual(JSON.parse(JSON.stringify(after)));
    await resumed.close();
    await store.close();
  });
});
