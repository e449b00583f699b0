import { existsSync } from 'node:fs';
import type { LiveModel } from '../../projections/live-model.js';
import { controlSocketPath } from '../control/protocol.js';
import { type ControlServer, startControlServer } from '../control/server.js';
import type { EventStore } from '../store/types.js';
import { untilStopSignal } from './stop-signals.js';
import { announcesControl, dataDirOf, type StoreOptions } from './store-option.js';

/**
 * Announces a server's control socket in its data dir, for `chronicle rebuild` (a LevelDB store only:
 * another process cannot open it). Not announced when the data dir does not exist (the store lives
 * elsewhere) or another live server answers there; a socket that cannot be bound is reported in one
 * line and the server goes on without it. Returns the close, a no-op when nothing was announced.
 */
export async function announceControl(
  options: StoreOptions,
  store: EventStore,
  models: readonly LiveModel[],
): Promise<() => Promise<void>> {
  const dataDir = dataDirOf(options);
  if (!announcesControl(options) || !existsSync(dataDir)) return async () => undefined;
  const path = controlSocketPath(dataDir);
  let control: ControlServer | undefined;
  try {
    control = await startControlServer(path, store, models);
  } catch (error) {
    process.stderr.write(
      `control: cannot listen on ${path}: ${(error as Error).message} (chronicle rebuild cannot reach this server)\n`,
    );
  }
  return async () => {
    await control?.close();
  };
}

/**
 * Serves until a stop signal (at once when one came during start-up: the entry caught it,
 * stop-signals.ts), the control socket announced meanwhile. Then closes the control socket, the servers
 * (`close`) and last the store, flushed once no request can append any more. Resolves to exit status 0.
 */
export async function serveUntilStopped(
  options: StoreOptions,
  store: EventStore,
  models: readonly LiveModel[],
  close: () => Promise<unknown>,
): Promise<number> {
  const closeControl = await announceControl(options, store, models);
  await untilStopSignal();
  await closeControl();
  await close();
  await store.close();
  return 0;
}
