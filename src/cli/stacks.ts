import type { LiveModel } from '../../projections/live-model.js';
import { loopbackAddress } from '../http/loopback-host.js';
import { EndingStreams } from '../http/sse/ending-streams.js';
import { stacksApp } from '../http/stacks/app.js';
import { stacksHttpLimits } from '../http/stacks/limits.js';
import { ComposeNotFoundError, ComposeResolver, describeCompose } from '../stacks/compose/program.js';
import { adminTokenNotice, ConfigError, loadStacksConfig } from '../stacks/config/stacks-config.js';
import type { StacksConfig } from '../stacks/contracts.js';
import { GitStacks } from '../stacks/git/git-stacks.js';
import { StacksService } from '../stacks/stacks-service.js';
import type { EventStore } from '../store/types.js';
import { serveUntilStopped } from './control.js';
import { dataDirOf, openStoreUnlessStopped, type StoreOptions } from './store-option.js';

export const DEFAULT_STACKS_HOST = '127.0.0.1';
export const DEFAULT_STACKS_PORT = 5080;
/** How long close() lets streams write how their job or run ended (a client that reads no more, say). */
const STREAM_END_GRACE_MS = 2_000;

interface StacksServerOptions {
  store: EventStore;
  dataDir: string;
  config: StacksConfig;
  port: number;
  host: string;
  /** The compose program resolved at start (composeAtStart). */
  compose?: ComposeResolver;
}

export interface StacksServer {
  /** The bound port (the system's pick for port 0). */
  port: number;
  /**
   * Stops accepting, lets in-flight requests end, cancels running compose processes (their runs and
   * jobs are closed with the reason) and persists the read models. The store stays open: its owner
   * closes it.
   */
  close(): Promise<void>;
  /** The read models it answers from (blue-green rebuilds). */
  models: LiveModel[];
}

/**
 * The stacks service and its HTTP surface over an open store, listening on host:port. For
 * `chronicle stacks` and `chronicle serve` (which serves it beside the editor on one store).
 * Rejects when the service cannot start or the address cannot be bound (nothing is left running).
 */
export async function startStacksServer(options: StacksServerOptions): Promise<StacksServer> {
  const limits = stacksHttpLimits();
  const service = await StacksService.open({
    store: options.store,
    dataDir: options.dataDir,
    config: options.config,
    ...(options.compose ? { compose: options.compose } : {}),
  });
  let git: GitStacks;
  try {
    git = await GitStacks.open(service);
  } catch (error) {
    await service.close();
    throw error;
  }
  const streams = new EndingStreams();
  const app = stacksApp(service, { git, limits, streams, loopback: loopbackAddress(options.host) });
  try {
    await app.listen({ host: options.host, port: options.port });
  } catch (error) {
    await app.close().catch(() => undefined);
    git.stopSchedules();
    await service.close();
    await git.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  let closing: Promise<void> | undefined;
  return {
    port,
    models: service.liveModels,
    close: () => {
      closing ??= (async () => {
        // Streams (SSE) hold their sockets open; running jobs end as the service closes.
        const server = app.close();
        // No scheduled deploy may start once the service stops taking jobs.
        git.stopSchedules();
        await service.close();
        await git.close();
        // The jobs have ended: their event streams and followed logs write their last event first.
        await streams.ended(STREAM_END_GRACE_MS);
        app.server.closeAllConnections?.();
        await server;
      })();
      return closing;
    },
  };
}

/**
 * Finds the compose program (config `compose.command`, else `docker compose`, else
 * `docker-compose`) and says on standard error which one runs the stacks, with its version. Undefined,
 * after a line saying why, when nothing is configured and neither answers: the command exits 1.
 */
export async function composeAtStart(
  config: StacksConfig,
  command: string,
): Promise<ComposeResolver | undefined> {
  const resolver = new ComposeResolver(config.compose.command);
  try {
    process.stderr.write(`${describeCompose(await resolver.resolve())}\n`);
    return resolver;
  } catch (error) {
    if (!(error instanceof ComposeNotFoundError)) throw error;
    process.stderr.write(`chronicle ${command}: ${error.message}\n`);
    return undefined;
  }
}

export interface StacksCommandOptions extends StoreOptions {
  port: number;
  host: string;
  config?: string;
}

/** `chronicle stacks`: exit 0 after SIGINT/SIGTERM, 1 when the address cannot be bound, 2 on bad config. */
export async function runStacks(options: StacksCommandOptions): Promise<number> {
  let config: StacksConfig;
  try {
    const loaded = await loadStacksConfig(options.config);
    config = loaded.config;
    for (const warning of loaded.warnings) process.stderr.write(`chronicle stacks: warning: ${warning}\n`);
    if (loaded.generatedAdminToken !== undefined)
      process.stderr.write(`${adminTokenNotice(loaded.generatedAdminToken)}\n`);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`chronicle stacks: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const compose = await composeAtStart(config, 'stacks');
  if (!compose) return 1;
  const store = await openStoreUnlessStopped(options);
  if (!store) return 0;
  let server: StacksServer;
  try {
    server = await startStacksServer({
      store,
      dataDir: dataDirOf(options),
      config,
      port: options.port,
      host: options.host,
      compose,
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const bindFailure =
      code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND';
    process.stderr.write(
      bindFailure
        ? `stacks: cannot listen on ${options.host}:${options.port}: ${(error as Error).message}\n`
        : `stacks: cannot start: ${(error as Error).message}\n`,
    );
    await store.close();
    return 1;
  }
  const shown = options.host.includes(':') ? `[${options.host}]` : options.host;
  process.stderr.write(`stacks listening on http://${shown}:${server.port}\n`);
  return serveUntilStopped(options, store, server.models, () => server.close());
}
