/**
 * The blocks an entity owns go where it goes. A DIMENSION's geometry block (`*D…`, in world coordinates):
 * a moved, rotated, scaled or mirrored dimension has its block's contents transformed with it (as ezdxf's
 * `Dimension.transform` does; a part that cannot be transformed stays as it was, as there). An
 * ACAD_TABLE's `*T` block (in the table's own frame): its contents take what the table's insertion point
 * and direction cannot say, a scale or a mirror (geometry/table.ts). A copy gets a block of its own — a
 * copy of the block, its contents transformed — since one block drawn at two places would be the same
 * picture twice. A clone (a dimension with an insertion point, 12) shares its block with the one it was
 * cloned from: its block is left alone.
 */
import type { Change } from '../../../streams/editor.js';
import { dictGet } from '../dict.js';
import { dimensionBlock, isDimensionClone, isDimensionType } from '../geometry/dimension.js';
import { GeometryError, type Matrix, transformEntity } from '../geometry/index.js';
import { isTableType, renamedTable, tableBlock, tableContentMatrix } from '../geometry/table.js';
import type { Block, DxfDocumentModel, Entity, RawEntity } from '../model.js';
import { named } from '../names.js';
import type { StepBuilder } from './steps.js';

/** The block an entity owns and moves with it (a dimension's, not a clone's; a table's); undefined for others. */
function ownBlock(model: DxfDocumentModel, e: Entity): Block | undefined {
  if (e.type !== 'Raw') return undefined;
  const name = isTableType(e.dxf_type)
    ? tableBlock(e)
    : isDimensionType(e.dxf_type) && !isDimensionClone(e)
      ? dimensionBlock(e)
      : undefined;
  return name === undefined ? undefined : named(model.blocks, name);
}

/** What `m` does to the contents of `e`'s block `block`: all of it for a dimension, a table's remainder. */
function contentMatrix(e: Entity, block: Block, m: Matrix): Matrix | undefined {
  return e.type === 'Raw' && isTableType(e.dxf_type) ? tableContentMatrix(m, block.base) : m;
}

function moved(e: Entity, m: Matrix, mirrtext: boolean): Entity | undefined {
  try {
    return transformEntity(e, m, { mirrtext });
  } catch (error) {
    if (error instanceof GeometryError) return undefined;
    throw error;
  }
}

/**
 * The name an anonymous block takes in a document: the first free `<prefix><n>`, n from 1 (`*D1`, `*T2`,
 * `*U3`), as AutoCAD numbers them. One rule for every anonymous block an entity owns or a copy brings.
 */
export function freeAnonymousName(prefix: string, taken: (name: string) => boolean): string {
  for (let n = 1; ; n++) {
    const name = `${prefix}${n}`;
    if (!taken(name)) return name;
  }
}

export class OwnedBlocks {
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
    const k = contentMatrix(e, block, m);
    if (!k) return [];
    const changes: Change[] = [];
    for (const handle of block.entities) {
      const before = dictGet(this.model.entities, handle);
      const after = before && moved(before, k, this.mirrtext);
      if (before && after) changes.push({ kind: 'entity', key: handle, before, after });
    }
    return changes;
  }

  /**
   * A copy of `source` (already transformed by `m`, as `copy`) naming a block of its own: the source's
   * block copied under a free `*D` (`*T` for a table) name, its contents transformed, pushed onto the step.
   */
  ownCopy(source: Entity, copy: Entity, m: Matrix): Entity {
    const block = ownBlock(this.model, source);
    if (!block || copy.type !== 'Raw') return copy;
    const table = isTableType(copy.dxf_type);
    const name = this.freeName(table ? '*T' : '*D');
    const k = contentMatrix(source, block, m);
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
        after: { ...((k && moved(e, k, this.mirrtext)) || e), handle, space: name },
      });
    });
    return table ? renamedTable(copy, name, record) : renamed(copy, name);
  }

  private freeName(prefix: string): string {
    const name = freeAnonymousName(
      prefix,
      (n) => this.made.has(n.toUpperCase()) || named(this.model.blocks, n) !== undefined,
    );
    this.made.add(name.toUpperCase());
    return name;
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
