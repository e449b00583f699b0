/**
 * The spatial index of a document's entities: an R-tree (rbush) of their XY bounds, keyed by handle.
 * The document projection keeps it in step with the model (set on create/change, remove on delete);
 * queries search it instead of scanning.
 */

import RBush from 'rbush';
import { dictGet } from '../dict.js';
import { EditorError } from '../errors.js';
import { bounds } from '../geometry/index.js';
import type { Bounds, GeometryContext } from '../geometry/types.js';
import { NO_BLOCKS } from '../geometry/types.js';
import type { DxfDocumentModel, Entity } from '../model.js';

/** An entity's box; none for an Insert whose block expands past the limit (expansion.ts). */
export function entityBounds(entity: Entity, ctx: GeometryContext): Bounds | undefined {
  try {
    return bounds(entity, ctx);
  } catch (error) {
    if (error instanceof EditorError && error.code === 'too_large') return undefined;
    throw error;
  }
}

/** A rectangle in the XY plane. */
export interface Window {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

interface IndexItem extends Window {
  handle: string;
}

/** A node of rbush's tree, as `toJSON()` exposes it (the documented export format). */
interface TreeNode extends Window {
  children: Array<TreeNode | IndexItem>;
  leaf: boolean;
  height: number;
}

interface Neighbour {
  handle: string;
  distance: number;
}

interface NearestOptions {
  /** The exact distance of an entity to the point, or undefined to leave it out. Defaults to its box's. */
  distance?: (handle: string, boxDistance: number) => number | undefined;
  /** Stop at entities farther than this. */
  maxDistance?: number;
}

const boxDistance = (w: Window, x: number, y: number): number => {
  const dx = x < w.minX ? w.minX - x : x > w.maxX ? x - w.maxX : 0;
  const dy = y < w.minY ? w.minY - y : y > w.maxY ? y - w.maxY : 0;
  return Math.sqrt(dx * dx + dy * dy);
};

function itemOf(handle: string, b: Bounds | undefined): IndexItem | undefined {
  if (!b) return undefined;
  const [minX, minY] = b.min;
  const [maxX, maxY] = b.max;
  if (![minX, minY, maxX, maxY].every(Number.isFinite)) return undefined;
  return { handle, minX, minY, maxX, maxY };
}

export class SpatialIndex {
  private readonly tree = new RBush<IndexItem>();
  private readonly items = new Map<string, IndexItem>();

  /** An index of the given boxes, bulk-loaded (faster to build and to search than one by one). */
  static of(entries: Iterable<readonly [string, Bounds | undefined]>): SpatialIndex {
    const index = new SpatialIndex();
    const items: IndexItem[] = [];
    for (const [handle, b] of entries) {
      const item = itemOf(handle, b);
      if (!item) continue;
      const previous = index.items.get(handle);
      if (previous) items[items.indexOf(previous)] = item;
      else items.push(item);
      index.items.set(handle, item);
    }
    index.tree.load(items);
    return index;
  }

  /** The index of a document's model and paper space entities (those of `order`) that have bounds. */
  static ofModel(model: DxfDocumentModel, ctx: GeometryContext = NO_BLOCKS): SpatialIndex {
    const entries: Array<[string, Bounds | undefined]> = [];
    for (const handle of model.order) {
      const entity = dictGet(model.entities, handle);
      if (entity) entries.push([handle, entityBounds(entity, ctx)]);
    }
    return SpatialIndex.of(entries);
  }

  get size(): number {
    return this.items.size;
  }

  has(handle: string): boolean {
    return this.items.has(handle);
  }

  /** The indexed box of an entity. */
  boxOf(handle: string): Window | undefined {
    const item = this.items.get(handle);
    return item && { minX: item.minX, minY: item.minY, maxX: item.maxX, maxY: item.maxY };
  }

  /** Adds or moves an entity's box; bounds of undefined (no extent) take it out. */
  set(handle: string, b: Bounds | undefined): void {
    const item = itemOf(handle, b);
    const previous = this.items.get(handle);
    if (previous) {
      if (
        item &&
        item.minX === previous.minX &&
        item.minY === previous.minY &&
        item.maxX === previous.maxX &&
        item.maxY === previous.maxY
      ) {
        return;
      }
      this.tree.remove(previous);
      this.items.delete(handle);
    }
    if (item) {
      this.tree.insert(item);
      this.items.set(handle, item);
    }
  }

  /** `set` with the entity's bounds (an Insert's from its block, looked up in `ctx`). */
  setEntity(entity: Entity, ctx: GeometryContext = NO_BLOCKS): void {
    this.set(entity.handle, entityBounds(entity, ctx));
  }

  remove(handle: string): boolean {
    const item = this.items.get(handle);
    if (!item) return false;
    this.tree.remove(item);
    this.items.delete(handle);
    return true;
  }

  clear(): void {
    this.tree.clear();
    this.items.clear();
  }

  /** Handles of the entities whose boxes intersect (or touch) the window. */
  search(window: Window): string[] {
    return this.tree.search(window).map((item) => item.handle);
  }

  handles(): IterableIterator<string> {
    return this.items.keys();
  }

  /**
   * Entities by increasing distance from (x, y), lazily: a best-first walk of the tree in which an entity
   * is first queued by its box's distance, then re-queued by its exact distance, and given out only when
   * nothing queued can be closer. Taking the first k costs about k log n, not a sort of everything.
   */
  *nearest(x: number, y: number, options: NearestOptions = {}): Generator<Neighbour> {
    const { distance, maxDistance = Infinity } = options;
    const queue = new MinQueue<QueueEntry>();
    const root = this.tree.toJSON() as TreeNode;
    queue.push({ key: boxDistance(root, x, y), node: root });
    while (queue.size > 0) {
      const entry = queue.pop() as QueueEntry;
      if (entry.key > maxDistance) return;
      if (entry.exact) {
        yield { handle: entry.exact.handle, distance: entry.key };
        continue;
      }
      if (entry.item) {
        const exact = distance ? distance(entry.item.handle, entry.key) : entry.key;
        if (exact !== undefined && exact <= maxDistance)
          queue.push({ key: Math.max(exact, entry.key), exact: entry.item });
        continue;
      }
      const node = entry.node as TreeNode;
      for (const child of node.children) {
        const key = boxDistance(child, x, y);
        if (key > maxDistance) continue;
        queue.push(node.leaf ? { key, item: child as IndexItem } : { key, node: child as TreeNode });
      }
    }
  }
}

interface QueueEntry {
  key: number;
  node?: TreeNode;
  /** An entity queued by its box's distance. */
  item?: IndexItem;
  /** An entity queued by its exact distance. */
  exact?: IndexItem;
}

/**
 * A binary min-heap on `key`; entries of equal key come out exact-first so ties resolve without re-walking.
 * (Ten lines that rbush-knn would bring with tinyqueue, but rbush-knn orders by box distance only.)
 */
class MinQueue<T extends { key: number; exact?: unknown }> {
  private readonly heap: T[] = [];

  get size(): number {
    return this.heap.length;
  }

  private less(a: T, b: T): boolean {
    return a.key < b.key || (a.key === b.key && a.exact !== undefined && b.exact === undefined);
  }

  push(value: T): void {
    const heap = this.heap;
    heap.push(value);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(heap[i] as T, heap[parent] as T)) break;
      [heap[i], heap[parent]] = [heap[parent] as T, heap[i] as T];
      i = parent;
    }
  }

  pop(): T | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last !== undefined) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < heap.length && this.less(heap[left] as T, heap[smallest] as T)) smallest = left;
        if (right < heap.length && this.less(heap[right] as T, heap[smallest] as T)) smallest = right;
        if (smallest === i) break;
        [heap[i], heap[smallest]] = [heap[smallest] as T, heap[i] as T];
        i = smallest;
      }
    }
    return top;
  }
}
