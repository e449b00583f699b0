/**
 * stepParts (a step cut into events under the store's limit) and the read model's StepContinued: the
 * parts applied in order are the step, and undo moves the whole step.
 */
import { describe, expect, it } from 'vitest';
import { type DocumentState, evolveSession, initialSession } from '../../projections/editor-session.js';
import { stepParts } from '../../src/editor/step-parts.js';
import type { RecordedEvent } from '../../src/store/types.js';
import {
  type Change,
  type EditorEvent,
  editorEvent,
  type NewEditorEvent,
  type StepData,
} from '../../streams/editor.js';
import { documentCreated, line } from './fixtures.js';

const handles = Array.from({ length: 300 }, (_, i) => (0x100 + i).toString(16).toUpperCase());
const created: Change[] = handles.map((h, i) => ({
  kind: 'entity',
  key: h,
  before: null,
  after: line(h, i),
  index: i,
}));
const bytes = (changes: Change[]) => changes.reduce((n, c) => n + Buffer.byteLength(JSON.stringify(c)), 0);

const step = (changes: Change[]): NewEditorEvent =>
  editorEvent('EntitiesCreated', {
    document_id: 1,
    revision: 1,
    op: 'entities_create',
    changes,
    result: { created: changes.length },
  });

const changesOf = (events: NewEditorEvent[]) =>
  events.flatMap((e) => (e.data as { changes: Change[] }).changes);

describe('stepParts', () => {
  it('leaves a step that fits as it is', () => {
    const event = step(created);
    expect(stepParts(event, bytes(created))).toEqual([event]);
  });

  it('cuts a step into parts under the budget, the changes in order, the step fields on the first', () => {
    const budget = Math.ceil(bytes(created) / 7);
    const parts = stepParts(step(created), budget);
    expect(parts.length).toBeGreaterThanOrEqual(7);
    expect(parts[0]?.type).toBe('EntitiesCreated');
    expect(parts[0]?.data).toMatchObject({
      document_id: 1,
      revision: 1,
      op: 'entities_create',
      result: { created: 300 },
    });
    expect(parts.slice(1).map((p) => p.type)).toEqual(parts.slice(1).map(() => 'StepContinued'));
    expect(parts.slice(1).map((p) => p.data)).toEqual(
      parts
        .slice(1)
        .map((p, i) => ({ document_id: 1, revision: 1, part: i + 1, changes: (p.data as StepData).changes })),
    );
    for (const part of parts) expect(bytes((part.data as StepData).changes)).toBeLessThanOrEqual(budget);
    expect(changesOf(parts)).toEqual(created);
  });

  it('gives a change larger than the budget a part of its own', () => {
    const big = created.slice(0, 3);
    const parts = stepParts(step(big), 10);
    expect(parts.map((p) => (p.data as StepData).changes.length)).toEqual([1, 1, 1]);
  });

  it('leaves other events alone', () => {
    const selection = editorEvent('SelectionChanged', { document_id: 1, handles, source: 'command' });
    expect(stepParts(selection, 10)).toEqual([selection]);
  });
});

let position = 0;
const recorded = (event: NewEditorEvent, requestId = 'r1'): EditorEvent =>
  ({
    stream: 'editor-session-s1',
    revision: position,
    position: ++position,
    type: event.type,
    data: event.data,
    metadata: { at: '2026-11-26T00:00:00.000Z', requestId },
  }) as RecordedEvent as EditorEvent;

function session() {
  const state = initialSession('s1');
  evolveSession(state, recorded(editorEvent('DocumentCreated', documentCreated(1))));
  return state;
}

describe('StepContinued in the read model', () => {
  it('applies the parts as one step: one undo entry with every change, undone and redone whole', () => {
    const state = session();
    for (const part of stepParts(step(created), Math.ceil(bytes(created) / 4)))
      evolveSession(state, recorded(part));
    const doc = state.documents['1'] as DocumentState;
    expect(doc.model.order).toEqual(handles);
    expect(doc.revision).toBe(1);
    expect(doc.undo).toHaveLength(1);
    expect(doc.undo[0]?.changes).toEqual(created);
    evolveSession(
      state,
      recorded(editorEvent('StepUndone', { document_id: 1, revision: 2, step_revision: 1 }), 'r2'),
    );
    expect(doc.model.order).toEqual([]);
    expect(Object.keys(doc.model.entities)).toEqual([]);
    evolveSession(
      state,
      recorded(editorEvent('StepRedone', { document_id: 1, revision: 3, step_revision: 1 }), 'r3'),
    );
    expect(doc.model.order).toEqual(handles);
  });

  it('does not extend a step object another state shares', () => {
    const state = session();
    const [head, ...rest] = stepParts(step(created), Math.ceil(bytes(created) / 3));
    evolveSession(state, recorded(head as NewEditorEvent));
    const doc = state.documents['1'] as DocumentState;
    const first = doc.undo[0];
    const length = first?.changes.length;
    for (const part of rest) evolveSession(state, recorded(part));
    expect(first?.changes.length).toBe(length);
    expect(doc.undo[0]?.changes).toHaveLength(created.length);
  });

  it('refuses a continuation that does not follow its step', () => {
    const state = session();
    const stray = editorEvent('StepContinued', {
      document_id: 1,
      revision: 1,
      part: 1,
      changes: created.slice(0, 1),
    });
    expect(() => evolveSession(state, recorded(stray))).toThrow(/continuation of step 1 does not follow it/);
  });
});
