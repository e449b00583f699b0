import { editorEvent } from '../../../streams/editor.js';
import { dictGet, dictHas } from '../dict.js';
import { fail } from '../errors.js';
import { handleList, tableName } from '../request.js';
import { entitiesOf } from './entities.js';
import { stepEvent } from './steps.js';
import { docOf, type OpContext, type OpOutcome, type OpTable } from './types.js';

function selectionSetSave(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  const name = tableName(ctx.request.name, 'name');
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
  const name = typeof ctx.request.name === 'string' ? ctx.request.name : '';
  const saved = dictGet(doc.selection_sets, name);
  if (!saved) return fail('selection_set_missing', `selection set ${JSON.stringify(name)} does not exist`);
  const handles = saved.filter((h) => dictHas(doc.model.entities, h));
  const select = ctx.request.select === true;
  const events = select
    ? [editorEvent('SelectionChanged', { document_id: doc.id, handles, source: 'selection_set' })]
    : [];
  return { events, result: { name, handles, selected: select ? handles.length : 0 } };
}

export const selectionOps: OpTable = {
  selection_set_save: { kind: 'mutation', document: 'required', run: selectionSetSave },
  selection_set_load: { kind: 'mutation', document: 'required', run: selectionSetLoad },
};
