/**
 * The verification digest a session writes at its end for `chronicle replay --verify`: equal states
 * give equal digests whatever their key order, and a difference shows at the entity, step or answer
 * that holds it.
 */
import { describe, expect, it } from 'vitest';
import {
  type DocumentState,
  type EditorSessionState,
  initialSession,
} from '../../../projections/editor-session.js';
import {
  canonicalJson,
  digestOf,
  jsonDifferences,
  verificationDigest,
} from '../../../src/editor/history/index.js';
import { emptyModel, line } from '../fixtures.js';

function session(): EditorSessionState {
  const state = initialSession('s1');
  const model = emptyModel();
  for (const [i, h] of ['A1', 'B2', 'C3'].entries()) model.entities[h] = line(h, i);
  model.order = ['A1', 'B2', 'C3'];
  const doc: DocumentState = {
    id: 1,
    title: 'Drawing1.dxf',
    path: null,
    revision: 1,
    geometry_revision: 0,
    saved_revision: 0,
    model,
    undo: [
      {
        revision: 1,
        op: 'entities_create',
        request_id: 'r-1',
        changes: [{ kind: 'entity', key: 'C3', before: null, after: line('C3', 2) }],
      },
    ],
    redo: [],
    selection: ['A1'],
    selection_sets: {},
    sysvars: {},
    view: null,
  };
  state.documents['1'] = doc;
  state.tabs = [1];
  state.active = 1;
  state.operations['r-1'] = {
    request_id: 'r-1',
    op: 'entities_create',
    body_hash: 'h',
    document_id: 1,
    revision: 1,
    answer: { ok: true, status: 'completed', request_id: 'r-1', result: {} },
  };
  return state;
}

describe('canonicalJson', () => {
  it('is the JSON text with sorted keys, undefined members left out as JSON.stringify does', () => {
    const value = { b: [1, { d: 2, c: undefined }, undefined], a: 'x', e: { g: null, f: -0 } };
    expect(canonicalJson(value)).toBe('{"a":"x","b":[1,{"d":2},null],"e":{"f":0,"g":null}}');
    expect(canonicalJson(JSON.parse(JSON.stringify(value)))).toBe(canonicalJson(value));
    expect(canonicalJson({ z: 1, y: 2 })).toBe(canonicalJson({ y: 2, z: 1 }));
  });

  it('digests an array item by item as the whole text', () => {
    const items = [line('A1'), line('B2', 3)];
    expect(digestOf(items)).not.toBe(digestOf([...items].reverse()));
    expect(digestOf(items)).toBe(digestOf(JSON.parse(JSON.stringify(items))));
    expect(digestOf(items)).toMatch(/^[\w-]{16}$/);
  });
});

describe('verificationDigest', () => {
  it('keeps the small parts whole and digests entities, steps and answers', () => {
    const digest = JSON.parse(JSON.stringify(verificationDigest(session())));
    expect(digest.documents['1'].title).toBe('Drawing1.dxf');
    expect(digest.documents['1'].model.order).toEqual(['A1', 'B2', 'C3']);
    expect(Object.keys(digest.documents['1'].model.entities)).toEqual(['A1', 'B2', 'C3']);
    expect(digest.documents['1'].model.entities.A1).toMatch(/^[\w-]{16}$/);
    expect(digest.documents['1'].undo[0]).toMatchObject({ revision: 1, op: 'entities_create' });
    expect(digest.documents['1'].undo[0].changes).toMatch(/^[\w-]{16}$/);
    expect(digest.operations['r-1']).toMatchObject({ request_id: 'r-1', body_hash: 'h' });
    expect(digest.operations['r-1'].answer).toMatch(/^[\w-]{16}$/);
  });

  it('of equal states is equal, whatever their key order; a difference names its entity, step or answer', () => {
    const live = session();
    const same = JSON.parse(JSON.stringify(session())) as EditorSessionState;
    const doc = same.documents['1'] as DocumentState;
    // The same entity with its keys in another order.
    const { end, start, ...rest } = doc.model.entities.B2 as ReturnType<typeof line>;
    doc.model.entities.B2 = { end, ...rest, start };
    const digest = (s: EditorSessionState) => JSON.parse(JSON.stringify(verificationDigest(s)));
    expect(jsonDifferences(digest(live), digest(same)).total).toBe(0);

    const other = session();
    const otherDoc = other.documents['1'] as DocumentState;
    (otherDoc.model.entities.B2 as ReturnType<typeof line>).start = [9, 9, 0];
    otherDoc.undo[0] = { ...(otherDoc.undo[0] as DocumentState['undo'][number]), changes: [] };
    (other.operations['r-1'] as { answer: { ok: boolean } }).answer.ok = false;
    const differences = jsonDifferences(digest(live), digest(other));
    expect(differences.total).toBe(3);
    expect(differences.lines.map((l) => l.split(':')[0])).toEqual([
      'documents.1.model.entities.B2',
      'documents.1.undo[0].changes',
      'operations.r-1.answer',
    ]);
  });
});
