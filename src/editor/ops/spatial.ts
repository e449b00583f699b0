import type { Change } from '../../../streams/editor.js';
import { dictGet } from '../dict.js';
import { fail } from '../errors.js';
import {
  documentContext,
  type Matrix,
  mirroring,
  rotation,
  scaling,
  transformEntity,
  translation,
} from '../geometry/index.js';
import type { Entity, Point3 } from '../model.js';
import { documentIndex } from '../query/document-index.js';
import { runQuery, selectionAnswer } from '../query/index.js';
import type { QueryRequest } from '../query/request.js';
import { handleList, number, point, string } from '../request.js';
import { entitiesOf } from './entities.js';
import { StepBuilder, stepEvent } from './steps.js';
import { docOf, type OpContext, type OpOutcome, type OpTable } from './types.js';

const ACTIONS = ['move', 'copy', 'rotate', 'scale', 'mirror'] as const;
type Action = (typeof ACTIONS)[number];

/** The matrix of a transform request: `vector` (move, copy), `center` + `angle` / `factor`, mirror `points`. */
function matrixOf(action: Action, r: Record<string, unknown>): Matrix {
  const center = (): Point3 => {
    const given = r.center ?? r.base;
    return given === undefined ? [0, 0, 0] : point(given, 'center');
  };
  switch (action) {
    case 'move':
    case 'copy':
      return translation(point(r.vector, 'vector'));
    case 'rotate':
      return rotation(center(), number(r.angle, 'angle', 'invalid_transform'));
    case 'scale':
      return scaling(center(), number(r.factor ?? r.scale, 'factor', 'invalid_transform'));
    case 'mirror': {
      const line = r.points ?? r.line;
      if (!Array.isArray(line) || line.length !== 2) {
        return fail('invalid_point', 'mirror needs points: [p1, p2], two points on the mirror line');
      }
      return mirroring(point(line[0], 'points[0]'), point(line[1], 'points[1]'));
    }
  }
}

/** `entities_transform`: move, copy (fresh handles, originals kept), rotate, scale or mirror entities. */
function entitiesTransform(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  const action = string(ctx.request.action, 'action', 'invalid_transform') as Action;
  if (!ACTIONS.includes(action))
    fail('invalid_transform', `action must be one of ${ACTIONS.join(', ')}, got ${JSON.stringify(action)}`);
  const m = matrixOf(action, ctx.request);
  const mirrtext = (doc.model.header.$MIRRTEXT?.[0]?.value.trim() ?? '0') === '1';
  const sources = entitiesOf(doc, [...new Set(handleList(ctx.request.handles))]);
  const moved: Entity[] = sources.map((e) => transformEntity(e, m, { mirrtext }));
  const step = new StepBuilder(doc.model);
  const changes: Change[] = [];
  let handles = sources.map((e) => e.handle);
  if (action === 'copy') {
    handles = step.handles(moved.length);
    const base = doc.model.order.length;
    moved.forEach((e, i) => {
      changes.push({
        kind: 'entity',
        key: handles[i] as string,
        before: null,
        after: { ...e, handle: handles[i] as string },
        index: base + i,
      });
    });
  } else {
    moved.forEach((e, i) => {
      changes.push({ kind: 'entity', key: e.handle, before: sources[i] as Entity, after: e });
    });
  }
  step.push(...changes);
  const result = { action, affected: handles.length, handles };
  return {
    events: [stepEvent('EntitiesTransformed', doc, 'entities_transform', step.build(), result)],
    result,
  };
}

function query(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  const answer = runQuery(
    doc.model,
    documentIndex(doc),
    ctx.request as QueryRequest,
    documentContext(doc.model),
  );
  return { events: [], fields: { ...answer } };
}

/** `get_selection`: passive — the same answer on every read until the selection changes. */
function getSelection(ctx: OpContext): OpOutcome {
  const id = ctx.request.document_id;
  const doc = typeof id === 'number' ? ctx.session.documents[String(id)] : ctx.doc;
  if (!doc) return fail('document_required', 'get_selection needs an open document');
  const context = documentContext(doc.model);
  const entities = doc.selection
    .map((h) => dictGet(doc.model.entities, h))
    .filter((e) => e !== undefined)
    .map((e) => selectionAnswer(e, context));
  return { events: [], result: { count: entities.length, entities } };
}

export const spatialOps: OpTable = {
  entities_transform: { kind: 'mutation', document: 'required', run: entitiesTransform },
  query: { kind: 'read', document: 'required', run: query },
  // Immediate: a person picking in the viewer must see their selection while a slow operation runs.
  get_selection: { kind: 'immediate', document: 'none', run: getSelection },
};
