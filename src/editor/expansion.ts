/**
 * How many entities an operation would draw or measure once block references are followed into their
 * blocks, counted before the work starts. A drawing of a few KB can nest blocks five deep with 16
 * references a level, a million lines behind one Insert: following them all ran a plot for 35 s at
 * 1.9 GB and stopped every other caller. A MINSERT of 205 bytes saying 32,767 columns by 32,767 rows
 * is a billion references on its own. Counting is cheap — each block is counted once per depth, its
 * references multiplied, a MINSERT's once per cell of its grid — so the operations that expand (plot, capture, the viewer's scene, queries,
 * bounds of an Insert) refuse past the limit with `too_large`, before any memory is spent.
 */
import { dictGet } from './dict.js';
import { EditorError } from './errors.js';
import { insertGrid } from './geometry/minsert.js';
import type { DxfDocumentModel, InsertEntity } from './model.js';
import { named } from './names.js';

/**
 * The most entities one operation expands (docs/security.md#the-editor): a drawing of 100,000 entities
 * plots and captures with room to spare; what lies past it costs gigabytes and minutes.
 */
export const MAX_EXPANDED_ENTITIES = 500_000;

/** Block references deeper than this are not followed (the plot's and the geometry's depth). */
const MAX_BLOCK_DEPTH = 16;

/** Counts of expansions of one model; blocks are counted once per depth and the counts kept. */
export class ExpansionCounter {
  private readonly memo = new Map<string, number>();

  constructor(private readonly model: DxfDocumentModel) {}

  /**
   * The entities a reference to block `name` at `depth` expands to: each entity of the block once,
   * and what its own references expand to; nothing past the depth limit or for a missing block.
   */
  block(name: string, depth = 0): number {
    if (depth >= MAX_BLOCK_DEPTH) return 0;
    const key = `${depth}\u0000${name.toUpperCase()}`;
    const known = this.memo.get(key);
    if (known !== undefined) return known;
    // A block reached again at the same depth while it is counted is a cycle: bounded by the depth.
    this.memo.set(key, 0);
    const block = named(this.model.blocks, name);
    let count = 0;
    for (const handle of block?.entities ?? []) {
      const child = dictGet(this.model.entities, handle);
      if (child) count += 1 + (child.type === 'Insert' ? this.insert(child, depth + 1) : 0);
    }
    this.memo.set(key, count);
    return count;
  }

  /**
   * What Insert `e` at `depth` stands for besides itself: its block's entities (and theirs) once per cell
   * of its grid, each cell past the first counted as a reference too — a MINSERT of a billion cells of an
   * empty block is a billion steps to draw. A plain Insert is one cell: its block's count.
   */
  insert(e: InsertEntity, depth = 0): number {
    const grid = insertGrid(e);
    const cells = grid ? grid.columns * grid.rows : 1;
    return cells * (1 + this.block(e.name, depth)) - 1;
  }

  /**
   * The entities of layout block `space` (`*Model_Space`, `*Paper_Space0`...) with what their references
   * expand to; a paper space viewport draws model space once more.
   */
  space(space: string): number {
    const upper = space.toUpperCase();
    let count = 0;
    let viewports = 0;
    for (const handle of this.model.order) {
      const entity = dictGet(this.model.entities, handle);
      if (!entity || entity.space.toUpperCase() !== upper) continue;
      count += 1;
      if (entity.type === 'Insert') count += this.insert(entity, 1);
      else if (entity.type === 'Raw' && entity.dxf_type.toUpperCase() === 'VIEWPORT') viewports += 1;
    }
    if (viewports > 0 && upper !== MODEL_SPACE) count += viewports * this.space(MODEL_SPACE);
    return count;
  }
}

const MODEL_SPACE = '*MODEL_SPACE';

/**
 * The top-level entities of every layout with what their references expand to (the spatial index's),
 * leaving out the references that expand past `skipOver` each (those are not expanded at all).
 */
export function drawingExpansion(model: DxfDocumentModel, skipOver: number): number {
  const counter = new ExpansionCounter(model);
  let count = 0;
  for (const handle of model.order) {
    const entity = dictGet(model.entities, handle);
    if (!entity) continue;
    const inner = entity.type === 'Insert' ? counter.insert(entity, 1) : 0;
    count += 1 + (inner > skipOver ? 0 : inner);
  }
  return count;
}

/** `too_large`: what `what` would expand to is past the limit. */
export function tooLarge(what: string, count: number): EditorError {
  return new EditorError(
    'too_large',
    `${what} would expand to ${Math.round(count).toLocaleString('en-US')} entities with block references followed into their blocks, more than the limit of ${MAX_EXPANDED_ENTITIES.toLocaleString('en-US')}: explode or simplify the nested blocks, or plot a part of it`,
    { expanded_entities: Math.round(count), limit: MAX_EXPANDED_ENTITIES },
  );
}

/** Refuses (`too_large`) an operation on layout blocks `spaces` that would expand past the limit. */
export function refuseLargeSpaces(
  model: DxfDocumentModel,
  spaces: readonly string[],
  what: string,
): ExpansionCounter {
  const counter = new ExpansionCounter(model);
  let count = 0;
  for (const space of spaces) count += counter.space(space);
  if (count > MAX_EXPANDED_ENTITIES) throw tooLarge(what, count);
  return counter;
}
