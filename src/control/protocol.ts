import { join } from 'node:path';
import { z } from 'zod';
import type { RebuildProgress } from '../../projections/rebuild.js';

/**
 * The control endpoint a server announces in its data directory: a Unix socket only the data
 * directory's owner can reach (mode 0600). LevelDB lets one process open the store, so `chronicle
 * rebuild` on the data directory of a running server asks that server to do the rebuild.
 */
export const controlSocketPath = (dataDir: string) => join(dataDir, 'control.sock');

/** One request per connection, as one JSON line. */
export const controlRequest = z.object({
  op: z.literal('rebuild'),
  projections: z.array(z.string()),
  checkpointEvery: z.number().int().min(0).optional(),
});
export type ControlRequest = z.infer<typeof controlRequest>;

/** How a projection is rebuilt by the server: swapped into what it serves, or through its store only. */
type RebuildMode = 'blue-green' | 'store';

/** What the server answers, one JSON line each, until `done` or `error`. */
export type ControlMessage =
  | { type: 'start'; projection: string; total: number; mode: RebuildMode }
  | { type: 'resumed'; projection: string; position: number }
  | { type: 'progress'; progress: RebuildProgress }
  | { type: 'checkpoint'; projection: string; position: number }
  | {
      type: 'result';
      projection: string;
      mode: RebuildMode;
      events: number;
      position: number;
      seconds: number;
      persisted: boolean;
      resumedFrom?: number;
      detail?: string;
    }
  | { type: 'error'; message: string }
  | { type: 'done' };

/** Longest request line the server reads (a list of projection names). */
export const MAX_REQUEST_BYTES = 64 * 1024;
