/**
 * Model-based property test of the log as the truth: random sequences of editor operations (entities
 * created, erased, transformed, given properties; layers; selections and selection sets; blocks and
 * their inserts; groups; xdata; layouts; system variables; saves; atomic batches; two documents, one a
 * new drawing and one opened from a DXF file; undo and redo, also undo followed by new steps) through
 * the real dispatcher over a memory store. Every name an operation takes is also tried with the members
 * of Object.prototype (`constructor`, `__proto__`, `toString`...), as is every name the DXF file holds.
 * Then rebuilding the read model from the log gives the live one (deep-equal JSON), the history's
 * document at every revision r equals the document captured right after the operation that made r,
 * every save succeeds, and the saved file reads back with the live document's names.
 */
import { readFile, writeFile } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DocumentState, editorSessionProjection } from '../../../projections/editor-session.js';
import { readDxf } from '../../../src/editor/dxf/index.js';
import {
  documentAt,
  emptyHistory,
  headRevision,
  readSessionHistory,
  treeStatus,
} from '../../../src/editor/history/index.js';
import { scratchDir, startHarness } from '../dispatcher/helpers.js';
import { fuzzNameFrom, PROTOTYPE_NAMES } from '../fuzz-names.js';

const POINT = fc.tuple(fc.integer({ min: -50, max: 50 }), fc.integer({ min: -50, max: 50 }));
const LAYER = fuzzNameFrom('0', 'A', 'B', 'WALLS');
/** Block, group, layout, selection set and xdata app names. */
const NAME = fuzzNameFrom('N1', 'N2');
/** A block of the document to name instead (an index taken modulo their number), or null for NAME. */
const EXISTING = fc.option(fc.nat(), { nil: null });
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
  | { op: 'select'; pick: number[]; name: string }
  | { op: 'block'; name: string; pick: number[] }
  | { op: 'unblock'; name: string; existing: number | null }
  | { op: 'insert'; name: string; layer: string; existing: number | null }
  | { op: 'group'; name: string; pick: number[] }
  | { op: 'xdata'; app: string; pick: number[]; clear: boolean }
  | { op: 'layout'; name: string; portrait: boolean }
  | { op: 'sysvar'; name: string; value: number }
  | { op: 'save' }
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
    arbitrary: fc.record({ op: fc.constant('layer' as const), name: fuzzNameFrom('L1', 'L2', 'A') }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('select' as const), pick: PICK, name: NAME }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('block' as const), name: NAME, pick: PICK }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('unblock' as const), name: NAME, existing: EXISTING }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('insert' as const),
      name: NAME,
      layer: LAYER,
      existing: EXISTING,
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('group' as const), name: NAME, pick: PICK }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('xdata' as const), app: NAME, pick: PICK, clear: fc.boolean() }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('layout' as const), name: NAME, portrait: fc.boolean() }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('sysvar' as const),
      name: fuzzNameFrom('PDMODE'),
      value: fc.integer({ min: 0, max: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ op: 'save' as const }) },
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

/**
 * A run that uses Object.prototype names for every kind of name, in both documents, run before the random
 * ones: the random runs explore, this one makes sure each kind is reached.
 */
const EVERY_KIND: Command[] = [0, 1].flatMap((): Command[] => [
  { op: 'create', entities: [{ type: 'Line', start: [0, 0], end: [5, 5], layer: 'constructor' }] },
  { op: 'create', entities: [{ type: 'Point', location: [1, 1] }] },
  { op: 'props', pick: [0], color: 3, layer: '__proto__' },
  { op: 'layer', name: 'toString' },
  { op: 'select', pick: [0, 1], name: 'valueOf' },
  { op: 'block', name: '__proto__', pick: [0] },
  { op: 'insert', name: '__proto__', layer: 'hasOwnProperty', existing: null },
  { op: 'unblock', name: '__proto__', existing: null },
  { op: 'undo' },
  { op: 'group', name: 'constructor', pick: [0, 1] },
  { op: 'xdata', app: '__proto__', pick: [0], clear: false },
  { op: 'xdata', app: 'constructor', pick: [0, 1], clear: false },
  { op: 'xdata', app: 'constructor', pick: [1], clear: true },
  { op: 'layout', name: 'toString', portrait: true },
  { op: 'sysvar', name: '__proto__', value: 1 },
  { op: 'save' },
  { op: 'undo' },
  { op: 'redo' },
  { op: 'activate' },
]);

const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

/**
 * The second document of every run: an R12 file whose layers, block, insert and xdata apps are named
 * like Object.prototype members (one record a line, as group code and value pairs; no value holds a space).
 */
const PROTOTYPE_DXF = [
  '0 SECTION  2 TABLES  0 TABLE  2 LAYER  70 2',
  '0 LAYER  2 __proto__  70 0  62 3  6 CONTINUOUS',
  '0 LAYER  2 constructor  70 0  62 4  6 CONTINUOUS',
  '0 ENDTAB  0 ENDSEC  0 SECTION  2 BLOCKS',
  '0 BLOCK  8 0  2 __proto__  70 0  10 0  20 0  30 0  3 __proto__',
  '0 LINE  8 constructor  10 0  20 0  30 0  11 1  21 1  31 0  1001 toString  1000 in-block',
  '0 ENDBLK  0 ENDSEC  0 SECTION  2 ENTITIES',
  '0 INSERT  8 constructor  2 __proto__  10 2  20 2  30 0',
  '0 LINE  8 __proto__  10 0  20 0  30 0  11 3  21 4  31 0  1001 __proto__  1000 a  1001 constructor  1000 b',
  '0 ENDSEC  0 EOF',
]
  .join(' ')
  .split(/\s+/)
  .join('\n');

/** Own keys only: a name like __proto__ set as a prototype instead of an entry would not show. */
const names = (table: object) => Object.keys(table).sort();

/** What a document's names must satisfy: every name an entity uses is an own entry of its table. */
function checkNames(doc: DocumentState): void {
  const { model } = doc;
  for (const table of [
    model.layers,
    model.blocks,
    model.layouts,
    model.groups,
    model.entities,
    doc.selection_sets,
  ])
    expect(Object.getPrototypeOf(table)).toBe(Object.prototype);
  for (const entity of Object.values(model.entities)) {
    expect(Object.hasOwn(model.layers, entity.layer), `layer ${entity.layer}`).toBe(true);
    if (entity.type === 'Insert')
      expect(Object.hasOwn(model.blocks, entity.name), `block ${entity.name}`).toBe(true);
    for (const [app, items] of Object.entries(entity.xdata ?? {}))
      expect(Array.isArray(items), app).toBe(true);
  }
}

describe('the log as the truth, over random editor sessions', () => {
  it('rebuilds the live read model, and every revision is the document right after its operation', async () => {
    let runs = 0;
    /** Ops that succeeded with an Object.prototype name (`block_define`...): what the runs covered. */
    const covered = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.array(COMMAND, { minLength: 1, maxLength: 40 }), async (commands) => {
        runs += 1;
        const h = await startHarness();
        const files = await scratchDir();
        try {
          const source = files.path('prototype-names.dxf');
          await writeFile(source, PROTOTYPE_DXF, 'latin1');
          const opened = await h.ok('open', { path: source });
          const docs = [await h.newDoc(), opened.document_id as number];
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
          /** The op must succeed, or fail with one of `codes` (a name taken, or not there). */
          const ok = async (op: string, fields: Record<string, unknown>, codes: string[] = []) => {
            const answer = await call(op, fields);
            if (!answer.ok && !codes.includes(answer.code as string))
              throw new Error(`${op} failed: ${answer.code}: ${answer.error} (${JSON.stringify(fields)})`);
            const text = JSON.stringify(fields);
            if (answer.ok && PROTOTYPE_NAMES.some((name) => text.includes(name))) covered.add(op);
            return answer;
          };
          let saves = 0;
          /** Saves the active document: every save must succeed and read back with the live names. */
          const save = async () => {
            const path = files.path(`save-${++saves}.dxf`);
            await ok('save', { ...active(), path });
            const doc = h.session.state.documents[String(h.session.state.active)] as DocumentState;
            const saved = readDxf(await readFile(path, 'latin1'));
            expect(names(saved.layers)).toEqual(names(doc.model.layers));
            expect(names(saved.blocks)).toEqual(names(doc.model.blocks));
            expect(names(saved.layouts)).toEqual(names(doc.model.layouts));
            for (const [handle, entity] of Object.entries(doc.model.entities)) {
              const apps = Object.keys(entity.xdata ?? {}).sort();
              expect(Object.keys(saved.entities[handle]?.xdata ?? {}).sort(), `xdata of ${handle}`).toEqual(
                apps,
              );
            }
          };
          /** The REST wrapper adds the active document to every mutation; so does this driver. */
          const active = () => ({ document_id: h.session.state.active });
          /** The command's name, or one of the active document's blocks (not a layout's). */
          const blockName = (command: { name: string; existing: number | null }) => {
            const doc = h.session.state.documents[String(h.session.state.active)];
            const blocks = Object.keys(doc?.model.blocks ?? {}).filter((n) => !n.startsWith('*'));
            return command.existing === null || blocks.length === 0
              ? command.name
              : (blocks[command.existing % blocks.length] as string);
          };
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
                await ok('selection_set_save', { ...active(), name: command.name, handles: chosen });
                const loaded = await ok('selection_set_load', {
                  ...active(),
                  name: command.name,
                  select: true,
                });
                expect((loaded.result as { handles: string[] }).handles).toEqual(chosen);
                break;
              }
              case 'block':
                // An insert of the block itself among the picks is refused, as it must be.
                await ok(
                  'block_define',
                  { ...active(), name: command.name, handles: picked(command.pick), replace: true },
                  ['invalid_block'],
                );
                break;
              case 'unblock':
                await ok('block_delete', { ...active(), name: blockName(command) }, ['block_missing']);
                break;
              case 'insert':
                await ok(
                  'entities_create',
                  {
                    ...active(),
                    entities: [
                      { type: 'Insert', name: blockName(command), layer: command.layer, position: [1, 2] },
                    ],
                  },
                  ['block_missing'],
                );
                break;
              case 'group':
                await ok('group_create', { ...active(), name: command.name, handles: picked(command.pick) }, [
                  'group_exists',
                ]);
                break;
              case 'xdata': {
                const chosen = picked(command.pick);
                if (chosen.length === 0) break;
                const data = command.clear ? [] : [{ code: 1000, value: command.app }];
                const set = await ok('xdata_set', { ...active(), handles: chosen, app: command.app, data });
                const read = await ok('xdata_get', { ...active(), handles: chosen, app: command.app });
                // `data.<APP>` holds the items with their codes, `xdata.<APP>` their values in order, under
                // the application's name as the document first registered it (any case names it).
                const app = (set.result as { app: string }).app;
                expect(app.toLowerCase()).toBe(command.app.toLowerCase());
                for (const item of read.items as Array<{ xdata: unknown; data: unknown }>) {
                  expect(item.data).toEqual(command.clear ? {} : { [app]: data });
                  expect(item.xdata).toEqual(command.clear ? {} : { [app]: [command.app] });
                }
                break;
              }
              case 'layout':
                await ok('layout_create', { ...active(), name: command.name }, ['layout_exists']);
                await ok('page_setup_set', {
                  ...active(),
                  layout: command.name,
                  orientation: command.portrait ? 'portrait' : 'landscape',
                });
                break;
              case 'sysvar': {
                const known = !PROTOTYPE_NAMES.includes(command.name);
                const set = await ok('sysvar', { ...active(), set: { [command.name]: command.value } }, [
                  'unknown_sysvar',
                ]);
                const get = await ok('sysvar', { ...active(), get: [command.name] }, ['unknown_sysvar']);
                expect([set.ok, get.ok]).toEqual([known, known]);
                break;
              }
              case 'save':
                await save();
                break;
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

          for (const id of docs) {
            const doc = h.session.state.documents[String(id)];
            if (!doc) continue;
            checkNames(doc);
            await ok('activate', { document_id: id });
            await save();
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
          await files.remove();
        }
      }),
      { numRuns: 40, examples: [[EVERY_KIND]] },
    );
    expect(runs).toBeGreaterThanOrEqual(40);
    // The names reached every kind of table, not only the refusals.
    for (const op of [
      'entities_create',
      'set_properties',
      'run',
      'selection_set_save',
      'block_define',
      'block_delete',
      'group_create',
      'xdata_set',
      'layout_create',
      'page_setup_set',
    ])
      expect(covered, op).toContain(op);
  }, 300_000);
});
