import type { Change } from '../../../streams/editor.js';
import { isLayoutBlockName } from '../dxf/entity-types.js';
import { currentLayer } from '../entity-input.js';
import { fail } from '../errors.js';
import type { Block, Entity, Group, InsertEntity, Point3 } from '../model.js';
import { named, nameIn, sameName } from '../names.js';
import { handleList, point, string, tableName } from '../request.js';
import { entitiesOf, eraseChanges, MODEL_SPACE } from './entities.js';
import { StepBuilder, stepEvent } from './steps.js';
import { docOf, type OpContext, type OpGroup, type OpOutcome } from './types.js';

/** The entities and inserts that go with a block: its contents, and every INSERT of it. */
function blockMembers(entities: Record<string, Entity>, name: string) {
  const contents: Entity[] = [];
  const inserts: Entity[] = [];
  for (const entity of Object.values(entities)) {
    if (sameName(entity.space, name)) contents.push(entity);
    else if (entity.type === 'Insert' && sameName(entity.name, name)) inserts.push(entity);
  }
  return { contents, inserts };
}

/** Where each of `handles` stands in the drawing order (-1 for one that is not in it). */
function orderIndexes(order: readonly string[], handles: readonly string[]): Map<string, number> {
  const wanted = new Set(handles);
  const at = new Map<string, number>();
  order.forEach((handle, i) => {
    if (wanted.has(handle)) at.set(handle, i);
  });
  return at;
}

/**
 * Defines a block as AutoCAD's BLOCK does (and the reference editor): the source entities move into the
 * definition, keeping their handles and coordinates, with `base` as its base point, and one Insert of it
 * is placed at `insert_at` (default `base`), so the drawing looks the same — one undo step. `replace`
 * first drops a same-named definition: its contents and every Insert of it (a re-import). Without
 * handles the block is defined empty and no Insert is placed.
 */
function blockDefine(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  const model = doc.model;
  // No name, or an empty one, is a missing field, as the reference editor names it.
  if (ctx.request.name === undefined || ctx.request.name === null || ctx.request.name === '')
    return fail('name_required', 'block_define needs a block name');
  const given = tableName(ctx.request.name, 'name');
  if (given.startsWith('*'))
    return fail('invalid_name', `block names starting with "*" are reserved, got ${JSON.stringify(given)}`);
  const existing = named(model.blocks, given);
  if (existing && ctx.request.replace !== true)
    return fail('block_exists', `block ${existing.name} exists; pass replace: true to redefine it`);
  // A redefinition keeps the name as first given: `MARK` over `mark` stays `mark`.
  const name = existing?.name ?? given;
  const base: Point3 = ctx.request.base === undefined ? [0, 0, 0] : point(ctx.request.base, 'base');
  const insertAt = ctx.request.insert_at === undefined ? base : point(ctx.request.insert_at, 'insert_at');
  const sources = entitiesOf(doc, [...new Set(handleList(ctx.request.handles ?? []))]);
  for (const source of sources) {
    if (source.type === 'Insert' && sameName(source.name, name))
      fail('invalid_block', `block ${name} cannot contain an insert of itself`);
    if (!isLayoutBlockName(source.space))
      fail('invalid_handles', `entity ${source.handle} is part of block ${source.space}, not of a layout`);
  }
  const space = sources[0]?.space ?? MODEL_SPACE;
  const elsewhere = sources.find((s) => s.space.toUpperCase() !== space.toUpperCase());
  if (elsewhere)
    fail('invalid_handles', `entity ${elsewhere.handle} is in ${elsewhere.space}, the others in ${space}`);
  const { contents: oldContents, inserts: oldInserts } = existing
    ? blockMembers(model.entities, name)
    : { contents: [], inserts: [] };
  const step = new StepBuilder(model);
  const [record, begin, end] = existing
    ? [existing.record_handle, existing.block_handle, existing.end_handle]
    : (step.handles(3) as [string, string, string]);
  // Everything that leaves the drawing order, highest index first: undo puts the lowest back first,
  // so each returns to where it stood.
  const leaving = [...oldInserts, ...sources];
  const at = orderIndexes(
    model.order,
    leaving.map((e) => e.handle),
  );
  const sourceHandles = new Set(sources.map((s) => s.handle));
  const departures: Change[] = leaving
    .map(
      (e): Change => ({
        kind: 'entity',
        key: e.handle,
        before: e,
        after: sourceHandles.has(e.handle) ? ({ ...e, space: name } as Entity) : null,
        index: at.get(e.handle) ?? -1,
      }),
    )
    .sort((a, b) => ((b as { index: number }).index ?? 0) - ((a as { index: number }).index ?? 0));
  const contents = [...sources].sort((a, b) => (at.get(a.handle) ?? 0) - (at.get(b.handle) ?? 0));
  const block: Block = {
    ...existing,
    name,
    record_handle: record,
    block_handle: begin,
    end_handle: end,
    base,
    layer: existing?.layer ?? '0',
    flags: existing?.flags ?? 0,
    entities: contents.map((e) => e.handle),
  };
  const insert: InsertEntity | undefined =
    sources.length === 0
      ? undefined
      : {
          handle: step.handles(1)[0] as string,
          space,
          layer: currentLayer(model),
          color: 256,
          linetype: 'BYLAYER',
          lineweight: -1,
          type: 'Insert',
          name,
          position: insertAt,
          scale: [1, 1, 1],
          rotation: 0,
        };
  // The old contents go before the block changes; the block before the entities that move into it.
  step.push(
    ...oldContents.map((e): Change => ({ kind: 'entity', key: e.handle, before: e, after: null })),
    { kind: 'block', key: name, before: existing ?? null, after: block },
    ...departures,
  );
  if (insert)
    step.push({
      kind: 'entity',
      key: insert.handle,
      before: null,
      after: insert,
      index: model.order.length - leaving.length,
    });
  const result = {
    block: name,
    insert: insert?.handle ?? null,
    name,
    handles: block.entities,
    count: block.entities.length,
    replaced: existing !== undefined,
    erased: oldInserts.length,
  };
  return { events: [stepEvent('BlockDefined', doc, 'block_define', step.build(), result)], result };
}

/**
 * Deletes a block definition, its contents, and every insert of it; `erased` counts the inserts. Layout
 * blocks (`*Model_Space`, `*Paper_Space...`) and other `*` records are `block_protected`.
 */
function blockDelete(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  const given = string(ctx.request.name, 'name', 'invalid_name');
  if (given.startsWith('*'))
    return fail('block_protected', `block ${JSON.stringify(given)} is a layout or anonymous block record`);
  const block = named(doc.model.blocks, given);
  if (!block) return fail('block_missing', `block ${JSON.stringify(given)} is not defined`);
  const name = block.name;
  const { contents, inserts } = blockMembers(doc.model.entities, name);
  const changes: Change[] = [
    ...eraseChanges(doc, inserts),
    ...contents.map((e) => ({ kind: 'entity', key: e.handle, before: e, after: null }) as Change),
    { kind: 'block', key: name, before: block, after: null },
  ];
  const result = { block: name, name, erased: inserts.length, contents: contents.length };
  return { events: [stepEvent('BlockDeleted', doc, 'block_delete', changes, result)], result };
}

function groupCreate(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  const name = tableName(ctx.request.name, 'name');
  const taken = nameIn(doc.model.groups, name);
  if (taken !== undefined) return fail('group_exists', `group ${taken} exists`);
  const handles = entitiesOf(doc, [...new Set(handleList(ctx.request.handles))]).map((e) => e.handle);
  const step = new StepBuilder(doc.model);
  const [handle] = step.handles(1) as [string];
  const description = typeof ctx.request.description === 'string' ? ctx.request.description : '';
  const group: Group = { name, handle, description, handles };
  step.push({ kind: 'group', key: name, before: null, after: group });
  const result = { group: name, name, handle, count: handles.length };
  return { events: [stepEvent('GroupCreated', doc, 'group_create', step.build(), result)], result };
}

export const blockOps = {
  block_define: { kind: 'mutation', document: 'required', run: blockDefine },
  block_delete: { kind: 'mutation', document: 'required', run: blockDelete },
  group_create: { kind: 'mutation', document: 'required', run: groupCreate },
} satisfies OpGroup;
