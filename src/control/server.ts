import { chmod, unlink } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { findProjection } from '../../projections/index.js';
import type { LiveModel } from '../../projections/live-model.js';
import { persists } from '../../projections/projection.js';
import { rebuildProjection } from '../../projections/rebuild.js';
import type { EventStore } from '../store/types.js';
import { type ControlMessage, controlRequest, MAX_REQUEST_BYTES } from './protocol.js';

export interface ControlServer {
  path: string;
  close(): Promise<void>;
}

/** Whether something answers on a Unix socket (a server of another process), or the file is stale. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

/**
 * Listens on `path` for `chronicle rebuild` (see protocol.ts). A projection the server answers from
 * (`live`) is rebuilt blue-green; any other registered one is rebuilt through the server's store, as an
 * offline rebuild would. One rebuild at a time. A socket file left by a killed server is replaced; one
 * that another process answers on is left alone (undefined: not announced).
 */
export async function startControlServer(
  path: string,
  store: EventStore,
  live: readonly LiveModel[],
): Promise<ControlServer | undefined> {
  if (await answers(path)) return undefined;
  await unlink(path).catch(() => undefined);
  let busy = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffered = '';
    socket.setEncoding('utf8');
    const onData = (chunk: string) => {
      buffered += chunk;
      const end = buffered.indexOf('\n');
      if (end < 0 && buffered.length <= MAX_REQUEST_BYTES) return;
      socket.off('data', onData);
      const line = end < 0 ? buffered : buffered.slice(0, end);
      if (busy) {
        finish(socket, { type: 'error', message: 'a rebuild is already running on this server' });
        return;
      }
      busy = true;
      void serve(socket, line, store, live).finally(() => {
        busy = false;
      });
    };
    socket.on('data', onData);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  await chmod(path, 0o600);
  return {
    path,
    close: async () => {
      // A rebuild still running is left (its old model answered, and still does): the CLI hears the close.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
      await unlink(path).catch(() => undefined);
    },
  };
}

const send = (socket: Socket, message: ControlMessage) => {
  if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
};

const finish = (socket: Socket, message: ControlMessage) => {
  if (!socket.destroyed) socket.end(`${JSON.stringify(message)}\n`);
};

async function serve(socket: Socket, line: string, store: EventStore, live: readonly LiveModel[]) {
  let request: ReturnType<typeof controlRequest.parse>;
  try {
    request = controlRequest.parse(JSON.parse(line));
  } catch (error) {
    finish(socket, { type: 'error', message: `bad control request: ${(error as Error).message}` });
    return;
  }
  const unknown = request.projections.filter((name) => !findProjection(name));
  if (unknown.length > 0) {
    finish(socket, { type: 'error', message: `unknown projection ${unknown.join(', ')}` });
    return;
  }
  try {
    for (const name of request.projections) {
      const projection = findProjection(name);
      if (!projection) continue;
      const model = live.find((m) => m.name === name);
      const mode = model ? 'blue-green' : 'store';
      send(socket, { type: 'start', projection: name, total: await store.headPosition(), mode });
      const hooks = {
        onProgress: (progress: Parameters<NonNullable<Parameters<typeof rebuildProjection>[2]>>[0]) =>
          send(socket, { type: 'progress', progress }),
        onCheckpoint: (position: number) => send(socket, { type: 'checkpoint', projection: name, position }),
        onResume: (position: number) => send(socket, { type: 'resumed', projection: name, position }),
        ...(request.checkpointEvery !== undefined ? { checkpointEvery: request.checkpointEvery } : {}),
      };
      const result = model
        ? await model.rebuild(hooks)
        : await rebuildProjection(store, projection, hooks.onProgress, 10_000, hooks);
      send(socket, {
        type: 'result',
        projection: name,
        mode,
        events: result.events,
        position: result.position,
        seconds: result.seconds,
        persisted: persists(projection),
        ...(result.resumedFrom !== undefined ? { resumedFrom: result.resumedFrom } : {}),
        ...('detail' in result && typeof result.detail === 'string' ? { detail: result.detail } : {}),
      });
    }
    finish(socket, { type: 'done' });
  } catch (error) {
    finish(socket, { type: 'error', message: (error as Error).message });
  }
}
