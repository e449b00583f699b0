/**
 * `run`: executes a command line (grammar in ../command-line.ts) by running the other ops —
 * entities_create, entities_delete, entities_transform, sysvar, view_focus, undo, redo — one after
 * another against the state the earlier commands left (./scratch.ts).
 *
 * Undo: each drawing command is one undo step, as in AutoCAD (`LINE 0,0 1,0 1,1` is one step of two
 * lines; `LAYER M name`, a layer made and set current, is one CommandApplied step, and so is
 * `LAYER S name`). UNDO and REDO move the undo stack as the undo and redo ops do. A command line runs
 * all or nothing: when a command fails, nothing of the line is recorded and the answer names the
 * command.
 */
import type { DocumentState } from '../../../projections/editor-session.js';
import { type Change, editorEvent, type NewEditorEvent } from '../../../streams/editor.js';
import { QUERY_LIMIT_MAX } from '../capabilities.js';
import { type Command, parseCommandLine, type Selection } from '../command-line.js';
import { dictGet, dictHas } from '../dict.js';
import { entityFromInput } from '../entity-input.js';
import { EditorError, fail } from '../errors.js';
import { bounds, intersections } from '../geometry/index.js';
import { angleOf, epsFor, hypot2 } from '../geometry/math.js';
import { documentContext } from '../geometry/types.js';
import type { Point3 } from '../model.js';
import { nameIn } from '../names.js';
import { documentIndex } from '../query/document-index.js';
import { runQuery } from '../query/index.js';
import { tableName } from '../request.js';
import { entitiesOf, MODEL_SPACE } from './entities.js';
import { combineSteps, outcomeChanges, Scratch } from './scratch.js';
import { StepBuilder, stepEvent } from './steps.js';
import { docOf, type OpContext, type OpGroup, type OpOutcome } from './types.js';

/** The arc from `a` through `b` to `c` as centre, radius and counter-clockwise angles; `invalid_point` when they are in line. */
export function arcThrough(
  a: Point3,
  b: Point3,
  c: Point3,
): { center: Point3; radius: number; start: number; end: number } {
  const d = 2 * (a[0] * (b[1] - c[1]) + b[0] * (c[1] - a[1]) + c[0] * (a[1] - b[1]));
  const scale = Math.max(hypot2(b[0] - a[0], b[1] - a[1]), hypot2(c[0] - a[0], c[1] - a[1]));
  if (Math.abs(d) <= epsFor(scale * scale)) {
    return fail(
      'invalid_point',
      'ARC: the three points are in line (or two are the same); no arc passes through them',
    );
  }
  const sq = (p: Point3) => p[0] * p[0] + p[1] * p[1];
  const x = (sq(a) * (b[1] - c[1]) + sq(b) * (c[1] - a[1]) + sq(c) * (a[1] - b[1])) / d;
  const y = (sq(a) * (c[0] - b[0]) + sq(b) * (a[0] - c[0]) + sq(c) * (b[0] - a[0])) / d;
  const center: Point3 = [x, y, a[2]];
  const from = angleOf(a[0] - x, a[1] - y);
  const to = angleOf(c[0] - x, c[1] - y);
  // DXF arcs run counter-clockwise: a clockwise pick (a, b, c turning right) is the arc from c to a.
  const ccw = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]) > 0;
  return { center, radius: hypot2(a[0] - x, a[1] - y), start: ccw ? from : to, end: ccw ? to : from };
}

const isModelSpace = (space: string) => space.toLowerCase() === MODEL_SPACE.toLowerCase();

/** Model space entities whose box touches the window, from the query engine (paged through). */
function touching(doc: DocumentState, corners: [Point3, Point3]): string[] {
  const [p, q] = corners;
  const handles: string[] = [];
  for (let offset = 0; ; offset += QUERY_LIMIT_MAX) {
    const page = runQuery(doc.model, documentIndex(doc), {
      bounds: [p[0], p[1], q[0], q[1]],
      detail: 'summary',
      offset,
      limit: QUERY_LIMIT_MAX,
    });
    handles.push(...page.entities.map((e) => e.handle as string));
    if (page.next_offset === null) return handles;
  }
}

/**
 * The handles a selection names in `doc`. Window: entities entirely inside; crossing: inside or
 * crossing an edge (their geometry, not only their box, meets the window's outline). Last, all,
 * window and crossing pick model space entities. An empty selection is `nothing_selected`.
 */
function selected(doc: DocumentState, selection: Selection, what: string): string[] {
  const modelSpace = () =>
    doc.model.order.filter((h) => isModelSpace(dictGet(doc.model.entities, h)?.space ?? ''));
  let handles: string[];
  switch (selection.kind) {
    case 'handles':
      handles = selection.handles;
      break;
    case 'last':
      handles = modelSpace().slice(-1);
      break;
    case 'previous':
      handles = [...doc.selection];
      break;
    case 'all':
      handles = modelSpace();
      break;
    case 'window':
    case 'crossing': {
      const [p, q] = selection.corners;
      const [x1, y1, x2, y2] = [
        Math.min(p[0], q[0]),
        Math.min(p[1], q[1]),
        Math.max(p[0], q[0]),
        Math.max(p[1], q[1]),
      ];
      const ctx = documentContext(doc.model);
      const outline = entityFromInput(
        {
          type: 'LwPolyline',
          points: [
            [x1, y1],
            [x2, y1],
            [x2, y2],
            [x1, y2],
          ],
          closed: true,
        },
        'WINDOW',
        MODEL_SPACE,
        doc.model,
      );
      handles = touching(doc, selection.corners).filter((h) => {
        const entity = dictGet(doc.model.entities, h);
        if (!entity || !isModelSpace(entity.space)) return false;
        const b = bounds(entity, ctx);
        const inside =
          b !== undefined && b.min[0] >= x1 && b.min[1] >= y1 && b.max[0] <= x2 && b.max[1] <= y2;
        if (selection.kind === 'window' || inside) return inside;
        return intersections(entity, outline, ctx).length > 0;
      });
      break;
    }
  }
  if (handles.length === 0)
    fail('nothing_selected', `${what}: the selection (${selection.kind}) holds no entity`);
  return [...new Set(handles)];
}

interface Done {
  events: NewEditorEvent[];
  changes: Change[];
  result: Record<string, unknown>;
  /** Entities the command created, changed, erased or selected. */
  touched: string[];
}

const entityKeys = (changes: readonly Change[]) =>
  changes.filter((c) => c.kind === 'entity').map((c) => c.key);

/** Runs one command in `scratch` on document `id`. */
async function execute(scratch: Scratch, id: number, command: Command): Promise<Done> {
  const doc = () => scratch.doc(id) as DocumentState;
  const done: Done = { events: [], changes: [], result: {}, touched: [] };
  const step = async (op: string, fields: Record<string, unknown>) => {
    const ran = await scratch.run({ op, document_id: id, ...fields });
    const changes = outcomeChanges(ran.outcome);
    done.events.push(...ran.outcome.events);
    done.changes.push(...changes);
    done.touched.push(...entityKeys(changes));
    done.result = ran.outcome.result ?? {};
    return ran.outcome.result ?? {};
  };
  const create = (entities: Array<Record<string, unknown>>) => step('entities_create', { entities });
  const transform = (selection: Selection, fields: Record<string, unknown>) =>
    step('entities_transform', { handles: selected(doc(), selection, command.name), ...fields });
  switch (command.name) {
    case 'LINE':
      await create(
        command.points.slice(1).map((end, i) => ({ type: 'Line', start: command.points[i], end })),
      );
      break;
    case 'CIRCLE':
      await create([{ type: 'Circle', center: command.center, radius: command.radius }]);
      break;
    case 'ARC':
    case 'ARC3P': {
      const arc = command.name === 'ARC' ? command : arcThrough(...command.points);
      await create([
        { type: 'Arc', center: arc.center, radius: arc.radius, start_angle: arc.start, end_angle: arc.end },
      ]);
      break;
    }
    case 'TEXT':
      await create([
        {
          type: 'Text',
          position: command.position,
          height: command.height,
          rotation: command.rotation,
          value: command.value,
        },
      ]);
      break;
    case 'ERASE':
      await step('entities_delete', { handles: selected(doc(), command.selection, command.name) });
      break;
    case 'MOVE':
    case 'COPY': {
      const [b, d] = [command.base, command.destination];
      await transform(command.selection, {
        action: command.name === 'MOVE' ? 'move' : 'copy',
        vector: [d[0] - b[0], d[1] - b[1], d[2] - b[2]],
      });
      break;
    }
    case 'ROTATE':
      await transform(command.selection, { action: 'rotate', center: command.base, angle: command.angle });
      break;
    case 'SCALE':
      await transform(command.selection, { action: 'scale', center: command.base, factor: command.factor });
      break;
    case 'LAYER':
      await layer(scratch, id, command, done);
      break;
    case 'SELECT': {
      const handles = entitiesOf(doc(), selected(doc(), command.selection, command.name)).map(
        (e) => e.handle,
      );
      const event = editorEvent('SelectionChanged', { document_id: id, handles, source: 'command' });
      scratch.apply([event]);
      done.events.push(event);
      done.touched.push(...handles);
      done.result = { handles, count: handles.length };
      break;
    }
    case 'ZOOM': {
      let fields: Record<string, unknown>;
      if (command.window) {
        const [p, q] = command.window;
        fields = { window: [p[0], p[1], q[0], q[1]] };
      } else {
        const handles = doc().model.order.filter((h) =>
          isModelSpace(dictGet(doc().model.entities, h)?.space ?? ''),
        );
        if (handles.length === 0) fail('no_extent', 'ZOOM E: model space holds no entity to frame');
        fields = { handles };
      }
      const { handles: _handles, ...view } = await step('view_focus', fields);
      done.result = view;
      break;
    }
    case 'UNDO':
    case 'REDO': {
      const steps: unknown[] = [];
      for (let i = 0; i < command.count; i++)
        steps.push(await step(command.name === 'UNDO' ? 'undo' : 'redo', {}));
      done.result = { steps, count: steps.length };
      break;
    }
  }
  return done;
}

/**
 * LAYER M makes the layer (when missing) and sets it current, as one undo step; LAYER S sets an
 * existing layer current. Both set CLAYER through the `sysvar` op, which checks the layer exists.
 */
async function layer(scratch: Scratch, id: number, command: Command & { name: 'LAYER' }, done: Done) {
  const doc = scratch.doc(id) as DocumentState;
  const requested = tableName(command.layer, 'LAYER name');
  const existing = nameIn(doc.model.layers, requested);
  if (command.action === 'set' && !existing)
    fail('layer_missing', `LAYER S: layer ${JSON.stringify(requested)} does not exist (LAYER M makes it)`);
  const name = existing ?? requested;
  const inner = scratch.fork();
  const events: NewEditorEvent[] = [];
  if (!existing) {
    const build = new StepBuilder(doc.model);
    build.ensureLayer(name);
    const made = stepEvent('CommandApplied', doc, 'run', build.build());
    inner.apply([made]);
    events.push(made);
  }
  const ran = await inner.run({ op: 'sysvar', document_id: id, set: { CLAYER: name } });
  events.push(...ran.outcome.events);
  const combined = combineSteps(scratch.state, inner.state, events, (data) =>
    editorEvent('CommandApplied', { ...data, op: 'run', command: command.text }),
  );
  scratch.apply(combined);
  done.events.push(...combined);
  done.changes.push(...outcomeChanges({ events: combined }));
  done.result = { layer: name, created: !existing, current: name };
}

async function run(ctx: OpContext): Promise<OpOutcome> {
  const doc = docOf(ctx);
  const cmd = ctx.request.cmd;
  if (typeof cmd !== 'string' || cmd.trim() === '')
    fail(
      'invalid_command',
      `cmd must be a command line, e.g. "LINE 0,0 10,0", got ${JSON.stringify(cmd ?? null)}`,
    );
  const commands = parseCommandLine(cmd as string);
  const scratch = new Scratch(ctx);
  const events: NewEditorEvent[] = [];
  const changes: Change[] = [];
  const touched: string[] = [];
  const answers: Array<Record<string, unknown>> = [];
  for (const [index, command] of commands.entries()) {
    try {
      const done = await execute(scratch, doc.id, command);
      events.push(...done.events);
      changes.push(...done.changes);
      touched.push(...done.touched);
      answers.push({ command: command.text, result: done.result });
    } catch (error) {
      if (!(error instanceof EditorError)) throw error;
      throw new EditorError(error.code, `${command.text}: ${error.message}`, {
        ...error.details,
        cmd,
        command: command.text,
        command_index: index,
      });
    }
  }
  // Entities there after the line that were not before it (from the changes: reading the final
  // state would make the scratch copy the drawing).
  const present = new Map<string, boolean>();
  for (const c of changes) if (c.kind === 'entity') present.set(c.key, c.after !== null);
  const added = [...present].filter(([h, there]) => there && !dictHas(doc.model.entities, h)).map(([h]) => h);
  const entities = [...new Set(touched)];
  return {
    events,
    changes,
    result: { cmd, status: 'completed', entities, added, commands: answers },
    fields: { cmd, entities, added },
  };
}

export const runOps = {
  run: { kind: 'mutation', document: 'active', run },
} satisfies OpGroup;
