import { type KeyScope, keyStream, stacksEvent } from '../../../streams/stacks.js';
import { StreamDeletedError, WrongExpectedRevisionError } from '../../store/errors.js';
import type { EventStore } from '../../store/types.js';
import { newKey, open, seal } from './sealing.js';

/**
 * The keys output is sealed with, one per scope (a run, or a job without a run), each in its own stream
 * `key-<scope>` (streams/stacks.ts). Deleting the stream shreds the scope's output: its sealed events
 * stay where an append-only log keeps them (and in every copy of the log), unreadable.
 *
 * Keys are read when a reader needs them and kept in memory only (a bounded cache), never in a read
 * model: projections are pure and their snapshots are stored in the log, where a key must not outlive
 * its stream. So projections hold sealed texts, and routes open them at read time.
 */

const DEFAULT_CACHE_KEYS = 10_000;

/** Seals the texts of one scope. */
export interface Sealer {
  readonly scope: KeyScope;
  seal(text: string): string;
}

/** Opens the sealed texts of one scope; undefined when its key is gone (read as OUTPUT_SHREDDED). */
export interface Opener {
  readonly scope: KeyScope;
  open(sealed: string): string | undefined;
}

export class OutputKeys {
  private readonly store: EventStore;
  /** Most recently used last. */
  private readonly cache = new Map<KeyScope, Buffer>();
  private readonly cacheSize: number;

  constructor(store: EventStore, options: { cacheSize?: number } = {}) {
    this.store = store;
    this.cacheSize = options.cacheSize ?? DEFAULT_CACHE_KEYS;
  }

  /**
   * The scope's sealer, its key made now when it has none. Rejects with StreamDeletedError when the
   * scope was shredded: nothing may be sealed for it any more.
   */
  async ensure(scope: KeyScope): Promise<Sealer> {
    let key = await this.key(scope);
    if (key === undefined) {
      const made = newKey();
      try {
        await this.store.append(
          keyStream(scope),
          [stacksEvent('OutputKeyCreated', { scope, key: made.toString('base64') })],
          { expectedRevision: 'no_stream' },
        );
        key = made;
        this.remember(scope, key);
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        // Another writer made it first: that one is the key.
        key = await this.key(scope);
        if (key === undefined) throw error;
      }
    }
    const found = key;
    return { scope, seal: (text) => seal(found, scope, text) };
  }

  /** The scope's sealer when its key exists, else undefined (a scope from before sealing, or shredded). */
  async sealer(scope: KeyScope): Promise<Sealer | undefined> {
    const key = await this.key(scope);
    return key === undefined ? undefined : { scope, seal: (text) => seal(key, scope, text) };
  }

  async opener(scope: KeyScope): Promise<Opener> {
    const key = await this.key(scope);
    if (key === undefined) return { scope, open: () => undefined };
    return { scope, open: (sealed) => open(key, scope, sealed) };
  }

  /** Deletes the scope's key for good; a scope without a key (or already shredded) is fine. */
  async shred(scope: KeyScope): Promise<void> {
    this.cache.delete(scope);
    try {
      await this.store.deleteStream(keyStream(scope));
    } catch (error) {
      if (!(error instanceof StreamDeletedError)) throw error;
    }
    this.cache.delete(scope);
  }

  private async key(scope: KeyScope): Promise<Buffer | undefined> {
    const cached = this.cache.get(scope);
    if (cached !== undefined) {
      this.cache.delete(scope);
      this.cache.set(scope, cached);
      return cached;
    }
    try {
      for await (const event of this.store.readStream(keyStream(scope), { maxCount: 1 })) {
        if (event.type !== 'OutputKeyCreated') break;
        const key = Buffer.from((event.data as { key: string }).key, 'base64');
        this.remember(scope, key);
        return key;
      }
    } catch (error) {
      if (error instanceof StreamDeletedError) return undefined;
      throw error;
    }
    return undefined;
  }

  private remember(scope: KeyScope, key: Buffer): void {
    this.cache.set(scope, key);
    if (this.cache.size > this.cacheSize) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
  }
}
