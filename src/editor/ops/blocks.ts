import type { Change } from '../../../streams/editor.js';
import { dictGet, dictHas } from '../dict.js';
import { fail } from '../errors.js';
import type { Block, Entity, Group } from '../model.js';
import { handleList, point, string, tableName } from '../request.js';
import { entitiesOf, eraseChanges } from './entities.js';
import { StepBuilder, stepEvent } from './steps.js';
import { docOf, type OpContext, type OpOutcome, type OpTable } from './types.js';

/** The entities and inserts that go with a block: its contents, and every INSERT of it. */
function blockMembers(entities: Record<string, Entity>, name: string) {
  const contents: Entity[] = [];
  const inserts: Entity[] = [];
  for (const entity of Object.values(entities)) {
    if (entity.space === name) contents.push(entity);
    else if (entity.type === 'Insert' && entity.name === name) inserts.push(entity);
  }
  return { contents, inserts };
}

/**
 * Defines a block from copies of entities (the originals stay, as with AutoCAD's "retain"): the copies
 * get fresh handles and belong to the block. `replace` redefines an existing block, keeping its
 * record and handles so that inserts of it show the new contents.
 */
function blockDefine(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  const name = tableName(ctx.request.name, 'name');
  if (name.startsWith('*'))
    return fail('invalid_name', `block names starting with "*" are reserved, got ${JSON.stringify(name)}`);
  const existing = dictGet(doc.model.blocks, name);
  if (existing && ctx.request.replace !== true)
    return fail('block_exists', `block ${name} exists; pass replace: true to redefine it`);
  const base =
    ctx.request.base === undefined
      ? ([0, 0, 0] as [number, number, number])
      : point(ctx.request.base, 'base');
  const sources = entitiesOf(doc, [...new Set(handleList(ctx.request.handles ?? []))]);
  for (const source of sources) {
    if (source.type === 'Insert' && source.name === name)
      fail('invalid_block', `block ${name} cannot contain an insert of itself`);
  }
  const step = new StepBuilder(doc.model);
  const changes: Change[] = [];
  if (existing) {
    for (const old of blockMembers(doc.model.entities, name).contents) {
      changes.push({ kind: 'entity', key: old.handle, before: old, after: null });
    }
  }
  const [record, begin, end] = existing
    ? [existing.record_handle, existing.block_handle, existing.end_handle]
    : (step.handles(3) as [string, string, string]);
  const handles = step.handles(sources.length);
  const copies = sources.map(
    (source, i) => ({ ...structuredClone(source), handle: handles[i] as string, space: name }) as Entity,
  );
  const block: Block = {
    ...existing,
    name,
    record_handle: record,
    block_handle: begin,
    end_handle: end,
    base,
    layer: existing?.layer ?? '0',
    flags: existing?.flags ?? 0,
    entities: handles,
  };
  // The block first, so its contents are known to be block contents (not drawn in model space).
  step.push({ kind: 'block', key: name, before: existing ?? null, after: block }, ...changes);
  for (const copy of copies) step.push({ kind: 'entity', key: copy.handle, before: null, after: copy });
  const result = { name, handles, count: copies.length, replaced: existing !== undefined };
  return { events: [stepEvent('BlockDefined', doc, 'block_define', step.build(), result)], result };
}

/** Deletes a block definition, its contents, and every insert of it. */
function blockDelete(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  const name = string(ctx.request.name, 'name', 'invalid_name');
  const block = dictGet(doc.model.blocks, name);
  if (!block || name.startsWith('*'))
    return fail('block_missing', `block ${JSON.stringify(name)} is not defined`);
  const { contents, inserts } = blockMembers(doc.model.entities, name);
  const changes: Change[] = [
    ...eraseChanges(doc, inserts),
    ...contents.map((e) => ({ kind: 'entity', key: e.handle, before: e, after: null }) as Change),
    { kind: 'block', key: name, before: block, after: null },
  ];
  const result = { name, erased: inserts.length, contents: contents.length };
  return { events: [stepEvent('BlockDeleted', doc, 'block_delete', changes, result)], result };
}

function groupCreate(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  const name = tableName(ctx.request.name, 'name');
  if (dictHas(doc.model.groups, name)) return fail('group_exists', `group ${name} exists`);
  const handles = entitiesOf(doc, [...new Set(handleList(ctx.request.handles))]).map((e) => e.handle);
  const step = new StepBuilder(doc.model);
  const [handle] = step.handles(1) as [string];
  const description = typeof ctx.request.description === 'string' ? ctx.request.description : '';
  const group: Group = { name, handle, description, handles };
  step.push({ kind: 'group', key: name, before: null, after: group });
  const result = { name, handle, count: handles.length };
  return { events: [stepEvent('GroupCreated', doc, 'group_create', step.build(), result)], result };
}

export const blockOps: OpTable = {
  block_define: { kind: 'mutation', document: 'required', run: blockDefine },
  block_delete: { kind: 'mutation', document: 'required', run: blockDelete },
  group_create: { kind: 'mutation', document: 'required', run: groupCreate },
};
