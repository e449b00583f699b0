import type { Lease } from './types.js';

/**
 * Leases of a log only one process opens (LevelDB's lock, or memory): held in this process, so a name
 * is free when no lease of this store has it. Closing the store ends them all.
 */
export class LocalLeases {
  private readonly held = new Map<string, () => void>();

  take(name: string): Lease | undefined {
    if (this.held.has(name)) return undefined;
    let end: () => void = () => undefined;
    const lost = new Promise<void>((resolve) => {
      end = resolve;
    });
    this.held.set(name, end);
    return {
      name,
      lost,
      release: async () => {
        this.held.delete(name);
      },
    };
  }

  /** The store closed: every lease is lost. */
  endAll(): void {
    for (const end of this.held.values()) end();
    this.held.clear();
  }
}
