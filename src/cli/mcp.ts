import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { editorModels } from '../../projections/editor-models.js';
import { type EditorBackend, LocalBackend } from '../mcp/backend.js';
import { HttpBackend } from '../mcp/http-backend.js';
import { editorMcpServer } from '../mcp/server.js';
import { claimStdout } from '../mcp/stdout.js';
import { announceControl } from './control.js';
import { auditContext, EditorStartError, openEditorSession } from './editor.js';
import { untilStopSignal } from './stop-signals.js';
import { openStoreUnlessStopped, type StoreOptions, storeUrlOf } from './store-option.js';

export interface McpOptions extends StoreOptions {
  /** A running editor's base URL (checked by the command line): drive its session instead of one's own. */
  attach?: string | undefined;
  file?: string | undefined;
  resume?: string | true | undefined;
}

/** Resolves when the client is gone (standard input ended) or a stop signal came. */
function untilDone(): Promise<void> {
  return new Promise((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    void untilStopSignal().then(resolve);
  });
}

/** Serves `backend` over standard input and output until the client leaves or a signal comes. */
async function serve(backend: EditorBackend, protocol: ReturnType<typeof claimStdout>): Promise<void> {
  const server = editorMcpServer(backend);
  await server.connect(new StdioServerTransport(process.stdin, protocol));
  await untilDone();
  await server.close();
}

/**
 * `chronicle editor --mcp [--attach URL] [FILE] [--resume [SESSION]]`: the editor as an MCP server over
 * standard input and output (protocol messages only there; logs on standard error). Without --attach,
 * on a session of its own over the store (as `--http` runs one: a blank drawing, FILE or the resumed
 * documents); with it, on the session of the editor serving REST at URL. Exit status 1 when the session
 * cannot start or the editor does not answer; 0 when the client closes standard input, or on a signal.
 */
export async function runEditorMcp(options: McpOptions): Promise<number> {
  const protocol = claimStdout();
  if (options.attach !== undefined) {
    const backend = new HttpBackend(options.attach);
    const state = await backend.dispatch({ protocol: 1, op: 'state' });
    if (!state.ok) {
      process.stderr.write(`chronicle editor: cannot attach to ${options.attach}: ${String(state.error)}\n`);
      return 1;
    }
    process.stderr.write(
      `editor mcp: attached to ${backend.url} (session ${String(state.session_id)}); MCP on standard input and output\n`,
    );
    await serve(backend, protocol);
    return 0;
  }
  const store = await openStoreUnlessStopped(options);
  if (!store) return 0;
  let started: Awaited<ReturnType<typeof openEditorSession>>;
  try {
    started = await openEditorSession(store, { file: options.file, resume: options.resume, gui: false });
  } catch (error) {
    if (!(error instanceof EditorStartError)) throw error;
    process.stderr.write(`${error.message}\n`);
    await store.close();
    return 1;
  }
  const { session } = started;
  const closeControl = await announceControl(options, store, [
    { name: editorModels.name, rebuild: (o) => session.rebuild(o) },
  ]);
  process.stderr.write(
    `editor mcp: session ${session.sessionId} on ${storeUrlOf(options)}; MCP on standard input and output\n`,
  );
  await serve(new LocalBackend(session, auditContext(store, session)), protocol);
  await closeControl();
  await session.close();
  await store.close();
  return 0;
}
