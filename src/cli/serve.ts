import { adminTokenNotice, ConfigError, loadStacksConfig } from '../stacks/config/stacks-config.js';
import { serveUntilStopped } from './control.js';
import { EditorStartError, startEditor } from './editor.js';
import { composeAtStart, DEFAULT_STACKS_HOST, startStacksServer } from './stacks.js';
import { dataDirOf, openStoreUnlessStopped, type StoreOptions } from './store-option.js';

export interface ServeOptions extends StoreOptions {
  editorPort: number;
  stacksPort: number;
  /** The stacks surface's address (default 127.0.0.1); the editor surface is loopback by contract. */
  stacksHost?: string;
  config?: string;
  /** `--allow-origin`: pages of these origins may touch the file system through the editor surface. */
  allowOrigin?: readonly string[];
}

export { DEFAULT_EDITOR_PORT } from './defaults.js';

/**
 * `chronicle serve`: the editor REST surface (headless) and the stacks surface on one store, in one
 * process. Each prints its own listening line; a failed start of either closes what was started and
 * answers 1; SIGINT/SIGTERM closes both listeners, then the store, and answers 0.
 */
export async function runServe(options: ServeOptions): Promise<number> {
  let loaded: Awaited<ReturnType<typeof loadStacksConfig>>;
  try {
    loaded = await loadStacksConfig(options.config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`chronicle serve: ${error.message}\n`);
    return error.exitCode;
  }
  for (const warning of loaded.warnings) process.stderr.write(`chronicle serve: warning: ${warning}\n`);
  const compose = await composeAtStart(loaded.config, 'serve');
  if (!compose) return 1;
  const store = await openStoreUnlessStopped(options);
  if (!store) return 0;
  let editor: Awaited<ReturnType<typeof startEditor>>;
  try {
    editor = await startEditor(store, { port: options.editorPort, allowOrigins: options.allowOrigin });
  } catch (error) {
    if (!(error instanceof EditorStartError)) {
      await store.close();
      throw error;
    }
    process.stderr.write(`${error.message}\n`);
    await store.close();
    return 1;
  }
  const stacksHost = options.stacksHost ?? DEFAULT_STACKS_HOST;
  let stacks: Awaited<ReturnType<typeof startStacksServer>>;
  try {
    stacks = await startStacksServer({
      store,
      dataDir: dataDirOf(options),
      config: loaded.config,
      port: options.stacksPort,
      host: stacksHost,
      compose,
    });
  } catch (error) {
    // Any failure here (a port in use, a data folder that cannot be written) stops the whole command:
    // a half-started `serve` would look healthy to whoever only checks the editor.
    const code = (error as NodeJS.ErrnoException).code;
    const bindFailure = code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL';
    process.stderr.write(
      bindFailure
        ? `stacks: cannot listen on ${stacksHost}:${options.stacksPort}: ${(error as Error).message}\n`
        : `stacks: cannot start: ${(error as Error).message}\n`,
    );
    await editor.close();
    await store.close();
    return 1;
  }
  const shown = stacksHost.includes(':') ? `[${stacksHost}]` : stacksHost;
  process.stderr.write(`stacks listening on http://${shown}:${stacks.port}\n`);
  if (loaded.generatedAdminToken !== undefined)
    process.stderr.write(`${adminTokenNotice(loaded.generatedAdminToken)}\n`);
  // Both surfaces stop accepting and finish what they have in flight before the store is flushed.
  return serveUntilStopped(options, store, [...editor.models, ...stacks.models], () =>
    Promise.all([editor.close(), stacks.close()]),
  );
}
