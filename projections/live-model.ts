import type { RebuildProgress } from './rebuild.js';

/** What a blue-green rebuild of a served read model reports once the new state answers. */
export interface LiveRebuildResult {
  /** Events the new state was built from (the catch-up included). */
  events: number;
  /** Checkpoint of the new state when it was swapped in. */
  position: number;
  seconds: number;
  /** The rebuild checkpoint it went on from, when an interrupted one had left one. */
  resumedFrom?: number;
  /** What was swapped, when the name alone does not say (the editor's own session). */
  detail?: string;
}

export interface LiveRebuildOptions {
  checkpointEvery?: number;
  onProgress?: (progress: RebuildProgress) => void;
  onCheckpoint?: (position: number) => void;
  onResume?: (position: number) => void;
}

/**
 * A read model a running server answers from, rebuilt blue-green: a new state is built from the log
 * beside the one that keeps answering, caught up with the live position, then swapped in at once.
 * `name` is the registered projection's (projections/index.ts).
 */
export interface LiveModel {
  readonly name: string;
  rebuild(options: LiveRebuildOptions): Promise<LiveRebuildResult>;
}
