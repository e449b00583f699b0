/**
 * A DIMENSION's geometry block (`*D…`, in world coordinates) goes where the dimension goes: a moved,
 * rotated, scaled or mirrored dimension has its block's contents transformed with it (as ezdxf's
 * `Dimension.transform` does; a part that cannot be transformed stays as it was, as there), and a copy gets
 * a block of its own — a copy of the block, its contents transformed — since one block drawn at two places
 * would be the same picture twice. A clone (a dimension with an insertion point, 12) shares its block
 * with the one it was cloned from: its block is left alone.
 */
import type { Change } from '../../../streams/editor.js';
import { dictGet } from '../dict.js';
import { dimensionBlock, isDimensionClone, isDimensionType } from '../geometry/dimension.js';
import { GeometryError, type Matrix, transformEntity } from '../geometry/index.js';
import type { Block, DxfDocumentModel, Entity, RawEntity } from '../model.js';
import { named } from '../names.js';
import type { StepBuilder } from './steps.js';

/** The block a dimension owns and moves with it; undefined for other entities and for clones. */
function ownBlock(model: DxfDocumentModel, e: Entity): Block | undefined {
  if (e.type !== 'Raw' || !isDimensionType(e.dxf_type) || isDimensionClone(e)) return undefined;
  const name = dimensionBlock(e);
  return name === undefined ? undefined : named(model.blocks, name);
}

function moved(e: Entity, m: Matrix, mirrtext: boolean): Entity | undefined {
  try {
    return transformEntity(e, m, { mirrtext });
  } catch (error) {
    if (error instanceof GeometryError) return undefined;
    throw error;
  }
}

export class DimensionBlocks {
  private readonly moved = new Set<string>();
  private readonly made = new Set<string>();

  constructor(
    private readonly model: DxfDocumentModel,
    private readonly step: StepBuilder,
    private readonly mirrtext: boolean,
  ) {}

  /** The changes moving the contents of `e`'s block by `m` (each block once a request). */
  moveContents(e: Entity, m: Matrix): Change[] {
    const block = ownBlock(this.model, e);
    if (!block || this.moved.has(block.name.toUpperCase())) return [];
    this.moved.add(block.name.toUpperCase());
    const changes: Change[] = [];
    for (const handle of block.entities) {
      const before = dictGet(this.model.entities, handle);
      const after = before && moved(before, m, this.mirrtext);
      if (before && after) changes.push({ kind: 'entity', key: handle, before, after });
    }
    return changes;
  }

  /**
   * A copy of dimension `source` (already transformed by `m`, as `copy`) naming a block of its own: the
   * source's block copied under a free `*D` name, its contents transformed by `m`, pushed onto the step.
   */
  ownCopy(source: Entity, copy: Entity, m: Matrix): Entity {
    const block = ownBlock(this.model, source);
    if (!block || copy.type !== 'Raw') return copy;
    const name = this.freeName();
    const contents = block.entities
      .map((h) => dictGet(this.model.entities, h))
      .filter((e): e is Entity => e !== undefined);
    const [record, begin, end] = this.step.handles(3) as [string, string, string];
    const handles = this.step.handles(contents.length);
    this.step.push({
      kind: 'block',
      key: name,
      before: null,
      after: {
        ...structuredClone(block),
        name,
        record_handle: record,
        block_handle: begin,
        end_handle: end,
        entities: handles,
      },
    });
    contents.forEach((e, i) => {
      const handle = handles[i] as string;
      this.step.push({
        kind: 'entity',
        key: handle,
        before: null,
        after: { ...(moved(e, m, this.mirrtext) ?? e), handle, space: name },
      });
    });
    return renamed(copy, name);
  }

  private freeName(): string {
    for (let n = 1; ; n++) {
      const name = `*D${n}`;
      if (!this.made.has(name) && !named(this.model.blocks, name)) {
        this.made.add(name);
        return name;
      }
    }
  }
}

/** The dimension's tags naming block `name` (its 2 in AcDbDimension). */
function renamed(e: RawEntity, name: string): RawEntity {
  let inDimension = false;
  const tags = e.tags.map((t) => {
    if (t.code === 100) inDimension = t.value === 'AcDbDimension';
    return inDimension && t.code === 2 ? { code: 2, value: name } : t;
  });
  // An R12 entity read without markers: its only 2 is the block's.
  if (!e.tags.some((t) => t.code === 100 && t.value === 'AcDbDimension'))
    return { ...e, tags: e.tags.map((t) => (t.code === 2 ? { code: 2, value: name } : t)) };
  return { ...e, tags };
}
