import { editorEvent } from '../../../streams/editor.js';
import { dictGet, dictHas } from '../dict.js';
import { DXF_TYPE_OF } from '../dxf/entity-types.js';
import { fail } from '../errors.js';
import { nameIn } from '../names.js';
import { handleList, tableName } from '../request.js';
import { entitiesOf } from './entities.js';
import { stepEvent } from './steps.js';
import { docOf, type OpContext, type OpGroup, type OpOutcome } from './types.js';

function selectionSetSave(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  // Saving over a set named in another case replaces it, under the name it was first given.
  const given = tableName(ctx.request.name, 'name');
  const name = nameIn(doc.selection_sets, given) ?? given;
  const handles = entitiesOf(doc, [...new Set(handleList(ctx.request.handles))]).map((e) => e.handle);
  const result = { name, handles, count: handles.length };
  const change = {
    kind: 'selection_set',
    key: name,
    before: dictGet(doc.selection_sets, name) ?? null,
    after: handles,
  } as const;
  return { events: [stepEvent('SelectionSetSaved', doc, 'selection_set_save', [change], result)], result };
}

/** Reads a saved set; with `select` it becomes the selection. Entities erased since are left out. */
function selectionSetLoad(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  const given = typeof ctx.request.name === 'string' ? ctx.request.name : '';
  const name = nameIn(doc.selection_sets, given);
  const saved = name === undefined ? undefined : dictGet(doc.selection_sets, name);
  if (name === undefined || !saved)
    return fail('selection_set_missing', `selection set ${JSON.stringify(given)} does not exist`);
  const handles = saved.filter((h) => dictHas(doc.model.entities, h));
  // The reference editor's default: a loaded set becomes the selection unless `select: false`.
  const select = ctx.request.select !== false;
  const events = select
    ? [editorEvent('SelectionChanged', { document_id: doc.id, handles, source: 'selection_set' })]
    : [];
  return { events, result: { name, handles, selected: select ? handles.length : 0 } };
}

/**
 * `select`: sets the document's selection — `clear: true` empties it; otherwise the entities of `handles`
 * (in that order) and every entity of the layouts whose type (or DXF name) and layer match `type` /
 * `layer`. Recorded as a SelectionChanged; not an undo step. `selected` counts the selection.
 */
function select(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  const r = ctx.request;
  let handles: string[] = [];
  if (r.clear !== true) {
    handles = r.handles === undefined ? [] : entitiesOf(doc, handleList(r.handles)).map((e) => e.handle);
    const type = typeof r.type === 'string' && r.type.trim() !== '' ? r.type.trim().toUpperCase() : undefined;
    const layer =
      typeof r.layer === 'string' && r.layer.trim() !== '' ? r.layer.trim().toUpperCase() : undefined;
    if (type !== undefined || layer !== undefined) {
      for (const h of doc.model.order) {
        const e = dictGet(doc.model.entities, h);
        if (!e) continue;
        const dxf = e.type === 'Raw' ? e.dxf_type : DXF_TYPE_OF[e.type];
        if (type !== undefined && e.type.toUpperCase() !== type && dxf.toUpperCase() !== type) continue;
        if (layer !== undefined && e.layer.toUpperCase() !== layer) continue;
        handles.push(h);
      }
    }
    handles = [...new Set(handles)];
  }
  return {
    events: [editorEvent('SelectionChanged', { document_id: doc.id, handles, source: 'command' })],
    result: { selected: handles.length, handles },
  };
}

export const selectionOps = {
  select: { kind: 'mutation', document: 'active', run: select },
  selection_set_save: { kind: 'mutation', document: 'required', run: selectionSetSave },
  selection_set_load: { kind: 'mutation', document: 'required', run: selectionSetLoad },
} satisfies OpGroup;
