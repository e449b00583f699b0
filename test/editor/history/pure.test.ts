/** The pure parts of the history: field-level diffs, JSON differences, the sessions index and its status. */
import { describe, expect, it } from 'vitest';
import { editorSessions, sessionStatus } from '../../../projections/editor-sessions.js';
import { diffRecords, fieldChanges, jsonDifferences } from '../../../src/editor/history/index.js';
import { compareHandles } from '../../../src/editor/query/index.js';
import type { RecordedEvent } from '../../../src/store/types.js';

describe('fieldChanges and diffRecords', () => {
  it('names each changed field with its before and after; absent fields are null', () => {
    expect(
      fieldChanges({ a: 1, b: [1, 2], c: 'x' }, { a: 1, b: [1, 3], d: true }).sort((x, y) =>
        x.field.localeCompare(y.field),
      ),
    ).toEqual([
      { field: 'b', before: [1, 2], after: [1, 3] },
      { field: 'c', before: 'x', after: null },
      { field: 'd', before: null, after: true },
    ]);
    expect(fieldChanges([1], [2])).toEqual([{ field: 'value', before: [1], after: [2] }]);
    expect(fieldChanges({ p: [0, 0, 0] }, { p: [0, 0, 0] })).toEqual([]);
  });

  it('sorts added, removed and changed keys (handles in handle order) and skips equal values', () => {
    const shared = { handle: '2', layer: '0' };
    const diff = diffRecords(
      { '2': shared, A: { handle: 'A', layer: '0' }, '10': { handle: '10', layer: '0' } },
      {
        '2': shared,
        A: { handle: 'A', layer: 'W' },
        '1F': { handle: '1F', layer: '0' },
        B: { handle: 'B', layer: '0' },
      },
      compareHandles,
    );
    expect(diff.added.map((e) => e.handle)).toEqual(['B', '1F']);
    expect(diff.removed.map((e) => e.handle)).toEqual(['10']);
    expect(diff.changed).toEqual([{ key: 'A', fields: [{ field: 'layer', before: '0', after: 'W' }] }]);
  });
});

describe('jsonDifferences', () => {
  it('lists the paths that differ, up to the limit, with the total', () => {
    const found = jsonDifferences({ a: { b: [1, 2, 3] }, c: 'x' }, { a: { b: [1, 5, 3] }, c: 'y', d: 1 }, 2);
    expect(found.total).toBe(3);
    expect(found.lines).toEqual(['a.b[1]: 2 -> 5', 'c: "x" -> "y"']);
    expect(jsonDifferences({ a: [1] }, { a: [1] })).toEqual({ lines: [], total: 0 });
    expect(jsonDifferences([1], [1, 2]).lines).toEqual(['(root): 1 items -> 2 items']);
  });
});

let position = 0;
const event = (stream: string, type: string, data: unknown, at = `2026-01-01T00:00:0${position % 10}Z`) =>
  ({ stream, revision: 0, position: ++position, type, data, metadata: { at } }) as RecordedEvent;

describe('the editor-sessions read model', () => {
  it('keeps runs, documents and their latest revision; ignores other streams; forgets deleted ones', () => {
    const s = 'editor-session-s1';
    let state = editorSessions.initial();
    for (const e of [
      event(s, 'SessionStarted', { session_id: 's1', version: '1', pid: 11 }),
      event('run-1', 'RunStarted', { runId: 1 }),
      event(s, 'DocumentCreated', { document_id: 1, revision: 0, title: 'Drawing1.dxf', path: null }),
      event(s, 'EntitiesCreated', { document_id: 1, revision: 1, op: 'entities_create', changes: [] }),
      event(s, 'DocumentSaved', { document_id: 1, revision: 1, path: '/tmp/a/b.dxf' }),
      event(s, 'SessionEnded', { session_id: 's1', reason: 'shutdown' }),
      event(s, 'SessionStarted', { session_id: 's1', version: '2', pid: 12 }),
      event('editor-session-s2', 'SessionStarted', { session_id: 's2', version: '1', pid: 13 }),
    ])
      state = editorSessions.evolve(state, e);
    expect(Object.keys(state.sessions)).toEqual(['s1', 's2']);
    const s1 = state.sessions.s1;
    expect(s1?.runs.map((r) => [r.pid, r.ended_at !== null])).toEqual([
      [11, true],
      [12, false],
    ]);
    expect(s1?.documents['1']).toMatchObject({
      revision: 1,
      title: 'b.dxf',
      path: '/tmp/a/b.dxf',
      closed_at: null,
    });
    state = editorSessions.evolve(
      state,
      event('$streams', 'StreamDeleted', { stream: 'editor-session-s2', lastRevision: 0 }),
    );
    expect(Object.keys(state.sessions)).toEqual(['s1']);
  });

  it('tells running, ended and crashed sessions apart', () => {
    const summary = (runs: Array<{ ended_at: string | null; pid: number }>) => ({
      session_id: 'x',
      stream: 'editor-session-x',
      events: 1,
      first_position: 1,
      last_at: '',
      documents: {},
      runs: runs.map((r) => ({ ...r, started_at: '', version: '1' })),
    });
    const alive = (pid: number) => pid === 7;
    expect(sessionStatus(summary([{ ended_at: null, pid: 1 }]), 'x', alive)).toBe('running');
    expect(sessionStatus(summary([{ ended_at: 't', pid: 1 }]), 'y', alive)).toBe('ended');
    expect(sessionStatus(summary([{ ended_at: null, pid: 1 }]), 'y', alive)).toBe('crashed');
    expect(sessionStatus(summary([{ ended_at: null, pid: 7 }]), 'y', alive)).toBe('running');
    expect(sessionStatus(summary([]), 'y', alive)).toBe('crashed');
  });
});
