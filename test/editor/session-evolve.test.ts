import { describe, expect, it } from 'vitest';
import {
  applyStep,
  type DocumentState,
  evolveSession,
  initialSession,
} from '../../projections/editor-session.js';
import type { RecordedEvent } from '../../src/store/types.js';
import type { Change, EditorEvent, EditorEventMap, EditorEventType } from '../../streams/editor.js';
import { documentCreated, emptyModel, line } from './fixtures.js';

let position = 0;
function recorded<T extends EditorEventType>(
  type: T,
  data: EditorEventMap[T],
  requestId?: string,
): EditorEvent {
  position += 1;
  return {
    stream: 'editor-session-s1',
    revision: position - 1,
    position,
    type,
    data,
    metadata: { at: '2026-11-22T00:00:00.000Z', ...(requestId ? { requestId } : {}) },
  } as RecordedEvent<T, EditorEventMap[T]> as EditorEvent;
}

function docWith(order: string[]): DocumentState {
  const model = emptyModel();
  for (const [i, h] of order.entries()) model.entities[h] = line(h, i);
  model.order = [...order];
  return {
    id: 1,
    title: 't',
    path: null,
    revision: 0,
    geometry_revision: 0,
    saved_revision: 0,
    model,
    undo: [],
    redo: [],
    selection: [],
    selection_sets: {},
    sysvars: {},
    view: null,
  };
}

const erase = (doc: DocumentState, handles: string[]): Change[] =>
  handles
    .map(
      (h): Change => ({
        kind: 'entity',
        key: h,
        before: doc.model.entities[h] ?? null,
        after: null,
        index: doc.model.order.indexOf(h),
      }),
    )
    .sort((a, b) => ((b as { index: number }).index ?? 0) - ((a as { index: number }).index ?? 0));

describe('applyStep', () => {
  it('undoing an erase puts every entity back at its place in the drawing order', () => {
    for (const gone of [['A', 'B'], ['B', 'D'], ['A', 'D'], ['A', 'B', 'C', 'D'], ['C']]) {
      const doc = docWith(['A', 'B', 'C', 'D']);
      const changes = erase(doc, gone);
      applyStep(doc, changes, false);
      expect(doc.model.order).toEqual(['A', 'B', 'C', 'D'].filter((h) => !gone.includes(h)));
      applyStep(doc, changes, true);
      expect(doc.model.order).toEqual(['A', 'B', 'C', 'D']);
      expect(Object.keys(doc.model.entities).sort()).toEqual(['A', 'B', 'C', 'D']);
    }
  });

  it('drops erased entities from the selection', () => {
    const doc = docWith(['A', 'B']);
    doc.selection = ['B', 'A'];
    applyStep(doc, erase(doc, ['A']), false);
    expect(doc.selection).toEqual(['B']);
  });

  it('keeps block contents out of the drawing order', () => {
    const doc = docWith([]);
    const block = {
      name: 'B1',
      record_handle: '20',
      block_handle: '21',
      end_handle: '22',
      base: [0, 0, 0] as [number, number, number],
      layer: '0',
      flags: 0,
      entities: ['30'],
    };
    const changes: Change[] = [
      { kind: 'block', key: 'B1', before: null, after: block },
      { kind: 'entity', key: '30', before: null, after: { ...line('30'), space: 'B1' } },
    ];
    applyStep(doc, changes, false);
    expect(doc.model.order).toEqual([]);
    expect(doc.model.entities['30']?.space).toBe('B1');
    applyStep(doc, changes, true);
    expect(doc.model.blocks).toEqual({});
    expect(doc.model.entities).toEqual({});
  });
});

describe('evolveSession', () => {
  it('keeps undo and redo stacks: undo moves a step to redo, a new step clears redo', () => {
    const state = initialSession('s1');
    evolveSession(state, recorded('DocumentCreated', documentCreated(1)));
    const created = (h: string, revision: number): Change[] => [
      { kind: 'entity', key: h, before: null, after: line(h), index: revision - 1 },
    ];
    evolveSession(
      state,
      recorded(
        'EntitiesCreated',
        { document_id: 1, revision: 1, op: 'entities_create', changes: created('A', 1) },
        'r1',
      ),
    );
    evolveSession(
      state,
      recorded(
        'EntitiesCreated',
        { document_id: 1, revision: 2, op: 'entities_create', changes: created('B', 2) },
        'r2',
      ),
    );
    const doc = state.documents['1'] as DocumentState;
    expect(doc.model.order).toEqual(['A', 'B']);
    evolveSession(state, recorded('StepUndone', { document_id: 1, revision: 3, step_revision: 2 }));
    expect(doc.model.order).toEqual(['A']);
    expect(doc.redo.map((s) => s.revision)).toEqual([2]);
    expect(doc.revision).toBe(3);
    evolveSession(state, recorded('StepRedone', { document_id: 1, revision: 4, step_revision: 2 }));
    expect(doc.model.order).toEqual(['A', 'B']);
    evolveSession(state, recorded('StepUndone', { document_id: 1, revision: 5, step_revision: 2 }));
    evolveSession(
      state,
      recorded(
        'EntitiesCreated',
        { document_id: 1, revision: 6, op: 'entities_create', changes: created('C', 2) },
        'r3',
      ),
    );
    expect(doc.redo).toEqual([]);
    expect(doc.undo.map((s) => s.request_id)).toEqual(['r1', 'r3']);
    expect(doc.revision - doc.saved_revision).toBe(6);
  });

  it('refuses an undo that does not match the undo stack instead of skipping it', () => {
    const state = initialSession('s1');
    evolveSession(state, recorded('DocumentCreated', documentCreated(1, 'D')));
    expect(() =>
      evolveSession(state, recorded('StepUndone', { document_id: 1, revision: 1, step_revision: 7 })),
    ).toThrow(/does not match/);
  });

  it('closing the active document activates the last remaining tab', () => {
    const state = initialSession('s1');
    for (const id of [1, 2, 3]) {
      evolveSession(state, recorded('DocumentCreated', documentCreated(id, `D${id}`)));
    }
    evolveSession(state, recorded('DocumentActivated', { document_id: 2 }));
    evolveSession(state, recorded('DocumentClosed', { document_id: 2, discarded: false }));
    expect(state.tabs).toEqual([1, 3]);
    expect(state.active).toBe(3);
    expect(state.next_document_id).toBe(4);
  });
});
