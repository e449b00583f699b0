/**
 * Model-based property test of the log as the truth: random sequences of editor operations (entities
 * created, erased, transformed, given properties; layers; selections; atomic batches; two documents;
 * undo and redo, also undo followed by new steps) through the real dispatcher over a memory store.
 * Then rebuilding the read model from the log gives the live one (deep-equal JSON), and the history's
 * document at every revision r equals the document captured right after the operation that made r.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { editorSessionProjection } from '../../../projections/editor-session.js';
import {
  documentAt,
  emptyHistory,
  headRevision,
  readSessionHistory,
  treeStatus,
} from '../../../src/editor/history/index.js';
import { startHarness } from '../dispatcher/helpers.js';

const POINT = fc.tuple(fc.integer({ min: -50, max: 50 }), fc.integer({ min: -50, max: 50 }));
const LAYER = fc.constantFrom('0', 'A', 'B', 'WALLS');
const ENTITY = fc.oneof(
  fc.record({ type: fc.constant('Line'), start: POINT, end: POINT, layer: LAYER }),
  fc.record({
    type: fc.constant('Circle'),
    center: POINT,
    radius: fc.integer({ min: 1, max: 9 }),
    layer: LAYER,
  }),
  fc.record({ type: fc.constant('Text'), value: fc.constantFrom('a', 'b c', 'Ω'), position: POINT }),
  fc.record({ type: fc.constant('Point'), location: POINT }),
);
/** Which of the active document's entities an op picks: an index taken modulo their number. */
const PICK = fc.array(fc.nat(), { minLength: 1, maxLength: 3 });

type Command =
  | { op: 'create'; entities: Array<Record<string, unknown>> }
  | { op: 'erase'; pick: number[] }
  | { op: 'transform'; pick: number[]; action: 'move' | 'copy' | 'rotate' | 'scale'; n: number }
  | { op: 'props'; pick: number[]; color: number; layer: string }
  | { op: 'layer'; name: string }
  | { op: 'select'; pick: number[] }
  | { op: 'batch'; entities: Array<Record<string, unknown>> }
  | { op: 'undo' }
  | { op: 'redo' }
  | { op: 'activate' };

const COMMAND: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('create' as const),
      entities: fc.array(ENTITY, { minLength: 1, maxLength: 3 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('erase' as const), pick: PICK }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('transform' as const),
      pick: PICK,
      action: fc.constantFrom('move' as const, 'copy' as const, 'rotate' as const, 'scale' as const),
      n: fc.integer({ min: 1, max: 4 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('props' as const),
      pick: PICK,
      color: fc.integer({ min: 1, max: 255 }),
      layer: LAYER,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('layer' as const), name: fc.constantFrom('L1', 'L2', 'A') }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('select' as const), pick: PICK }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('batch' as const),
      entities: fc.array(ENTITY, { minLength: 1, maxLength: 2 }),
    }),
  },
  { weight: 4, arbitrary: fc.constant({ op: 'undo' as const }) },
  { weight: 2, arbitrary: fc.constant({ op: 'redo' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'activate' as const }) },
);

const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe('the log as the truth, over random editor sessions', () => {
  it('rebuilds the live read model, and every revision is the document right after its operation', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(COMMAND, { minLength: 1, maxLength: 40 }), async (commands) => {
        runs += 1;
        const h = await startHarness();
        try {
          const docs = [await h.newDoc(), await h.newDoc()];
          /** Document id -> revision -> the document's JSON right after the operation that made it. */
          const captured = new Map<number, Map<number, unknown>>();
          const capture = () => {
            const state = h.session.state;
            for (const id of docs) {
              const doc = state.documents[String(id)];
              if (!doc) continue;
              const byRevision = captured.get(id) ?? new Map<number, unknown>();
              captured.set(id, byRevision);
              if (!byRevision.has(doc.revision)) byRevision.set(doc.revision, json(doc));
            }
          };
          capture();
          const handles = () => {
            const state = h.session.state;
            const doc = state.documents[String(state.active)];
            return doc ? doc.model.order.filter((handle) => doc.model.entities[handle]) : [];
          };
          /** Each operation's document is captured right after it, as the definition of a revision says. */
          const call = async (op: string, fields: Record<string, unknown>) => {
            const answer = await h.call(op, fields);
            capture();
            return answer;
          };
          const ok = async (op: string, fields: Record<string, unknown>) => {
            const answer = await call(op, fields);
            if (!answer.ok) throw new Error(`${op} failed: ${answer.code}: ${answer.error}`);
            return answer;
          };
          /** The REST wrapper adds the active document to every mutation; so does this driver. */
          const active = () => ({ document_id: h.session.state.active });
          const picked = (pick: number[]) => {
            const all = handles();
            return all.length === 0 ? [] : [...new Set(pick.map((i) => all[i % all.length] as string))];
          };
          for (const command of commands) {
            switch (command.op) {
              case 'create':
                await ok('entities_create', { ...active(), entities: command.entities });
                break;
              case 'erase': {
                const chosen = picked(command.pick);
                if (chosen.length > 0) await ok('entities_delete', { ...active(), handles: chosen });
                break;
              }
              case 'transform': {
                const chosen = picked(command.pick);
                if (chosen.length === 0) break;
                const n = command.n;
                const fields =
                  command.action === 'rotate'
                    ? { angle: 30 * n, center: [n, 0] }
                    : command.action === 'scale'
                      ? { factor: n / 2, center: [0, n] }
                      : { vector: [n, -n] };
                await ok('entities_transform', {
                  ...active(),
                  handles: chosen,
                  action: command.action,
                  ...fields,
                });
                break;
              }
              case 'props': {
                const chosen = picked(command.pick);
                if (chosen.length > 0)
                  await ok('set_properties', {
                    ...active(),
                    handles: chosen,
                    properties: { color: command.color, layer: command.layer },
                  });
                break;
              }
              case 'layer':
                await ok('run', { ...active(), cmd: `LAYER M ${command.name}` });
                break;
              case 'select': {
                const chosen = picked(command.pick);
                if (chosen.length === 0) break;
                await ok('selection_set_save', { ...active(), name: 'S', handles: chosen });
                await ok('selection_set_load', { ...active(), name: 'S', select: true });
                break;
              }
              case 'batch':
                await ok('batch', {
                  ...active(),
                  atomic: true,
                  steps: command.entities.map((entity) => ({ op: 'entities_create', entities: [entity] })),
                });
                break;
              case 'undo':
              case 'redo': {
                // Nothing to undo or redo is an answer, not a step: it makes no revision.
                const answer = await call(command.op, active());
                if (!answer.ok) expect(answer.code).toBe(`nothing_to_${command.op}`);
                break;
              }
              case 'activate': {
                const other = docs.find((id) => id !== h.session.state.active) as number;
                await ok('activate', { document_id: other });
                break;
              }
            }
          }

          const rebuilt = editorSessionProjection(h.session.sessionId);
          let state = rebuilt.initial();
          for (const event of await h.events()) state = rebuilt.evolve(state, event);
          expect(json(state)).toEqual(json(h.session.state));

          // The default checkpoints (a long drawing's), and one at nearly every revision.
          for (const policy of [undefined, { minWork: 2, sizeShare: 1e9 }]) {
            const history = await readSessionHistory(
              h.store,
              h.session.sessionId,
              emptyHistory(h.session.sessionId, policy),
            );
            if (policy) {
              const checkpoints = docs.map((id) => history.documents[String(id)]?.checkpoints.length ?? 0);
              const revisions = docs.map((id) => history.documents[String(id)]?.revisions.length ?? 0);
              // Some runs have too little work in a document for a second checkpoint.
              if (revisions.some((n) => n > 8)) expect(Math.max(...checkpoints)).toBeGreaterThan(1);
            }
            for (const id of docs) {
              const doc = history.documents[String(id)];
              if (!doc) throw new Error(`no history of document ${id}`);
              const byRevision = captured.get(id) as Map<number, unknown>;
              expect(headRevision(doc)).toBe(Math.max(...byRevision.keys()));
              for (const [revision, expected] of byRevision) {
                expect(json(documentAt(doc, revision)), `document ${id} at revision ${revision}`).toEqual(
                  expected,
                );
              }
              // The undo tree: an undo brings the drawing back to its node's, a redo to its step's.
              for (const row of doc.revisions) {
                if (row.kind !== 'undo' && row.kind !== 'redo') continue;
                expect(documentAt(doc, row.revision).model.entities).toEqual(
                  documentAt(doc, row.node).model.entities,
                );
              }
              const tree = treeStatus(doc);
              const live = h.session.state.documents[String(id)];
              expect([...tree.undone].every((r) => !live?.undo.some((s) => s.revision === r))).toBe(true);
              expect(tree.abandoned.size).toBe(
                [...tree.undone].filter((r) => !live?.redo.some((s) => s.revision === r)).length,
              );
            }
          }
        } finally {
          await h.close();
        }
      }),
      { numRuns: 40 },
    );
    expect(runs).toBeGreaterThanOrEqual(40);
  }, 120_000);
});
