import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { editorModels } from '../../projections/editor-models.js';
import { editorSessions } from '../../projections/editor-sessions.js';
import type { LiveModel } from '../../projections/live-model.js';
import { OnDemandProjection } from '../../projections/on-demand.js';
import { SessionHistories } from '../editor/history/index.js';
import { editorOps } from '../editor/ops/index.js';
import { findResumeSource, ResumeError, type ResumeSource } from '../editor/resume/source.js';
import { EditorSession } from '../editor/session.js';
import { editorApp } from '../http/editor/app.js';
import type { AuditContext } from '../http/editor/audit-routes.js';
import { EditorListener } from '../http/editor/listener.js';
import { EditorClient } from '../http/editor/mutation-wrapper.js';
import { OriginPolicy } from '../http/editor/origin.js';
import { viewerApp } from '../http/viewer/app.js';
import type { EventStore } from '../store/types.js';
import { version } from '../version.js';
import { serveUntilStopped } from './control.js';
import { openStoreUnlessStopped, type StoreOptions } from './store-option.js';

/** A running editor surface: the effective REST port, and a close that leaves the store open. */
export interface EditorServer {
  port: number;
  close(): Promise<void>;
  /** The read model it answers from (its session's), for blue-green rebuilds. */
  models: LiveModel[];
}

/** Why an editor surface did not start; the message is the one stderr line the CLI prints. */
export class EditorStartError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'EditorStartError';
  }
}

/**
 * A new editor session over `store`: resumed from another session (`resume`), with `file` open (then
 * GUI-hosted when `gui`), else with one blank drawing. The session is closed again when it cannot start.
 */
export async function openEditorSession(
  store: EventStore,
  options: { file?: string | undefined; resume?: string | true | undefined; gui: boolean },
): Promise<{ session: EditorSession; client: EditorClient }> {
  const { file } = options;
  let resume: ResumeSource | undefined;
  if (options.resume !== undefined) {
    try {
      resume = await findResumeSource(store, options.resume === true ? undefined : options.resume);
    } catch (error) {
      if (!(error instanceof ResumeError)) throw error;
      throw new EditorStartError(`chronicle editor: cannot resume: ${error.message}`, { cause: error });
    }
  }
  const session = await EditorSession.start(store, editorOps, {
    version,
    gui: options.gui,
    ...(resume ? { resume } : {}),
  });
  if (resume) {
    process.stderr.write(
      `editor resumed session ${resume.state.session_id} at revision ${resume.revision} as session ${session.sessionId} (${resume.state.tabs.length} documents)\n`,
    );
  }
  const client = new EditorClient(session);
  if (file !== undefined) {
    const answer = await client.mutate('open', { path: resolve(file) }, 201);
    if (!answer.body.ok) {
      await session.close();
      throw new EditorStartError(`chronicle editor: cannot open ${file}: ${String(answer.body.error)}`);
    }
  } else if (session.state.tabs.length === 0) {
    // Like any CAD editor (and the reference editor's clients expect it), the editor starts with one
    // blank untitled drawing, so `POST /entities` works on a fresh server.
    const answer = await client.mutate('new', {}, 201);
    if (!answer.body.ok) {
      await session.close();
      throw new EditorStartError(
        `chronicle editor: cannot open a blank drawing: ${String(answer.body.error)}`,
      );
    }
  }
  return { session, client };
}

/** The audit routes' read models over `store` for the running `session`. */
export function auditContext(store: EventStore, session: EditorSession): AuditContext {
  // Both caught up when a request reads them (never on the dispatcher's appends): the sessions index,
  // snapshotted, and the session histories, built on first use.
  return {
    store,
    sessionId: () => session.sessionId,
    sessions: new OnDemandProjection(store, editorSessions),
    histories: new SessionHistories(store, () => session.sessionId),
  };
}

/**
 * One editor session over `store`, its REST surface on 127.0.0.1:`port` (and, with `file`, the live
 * viewer on a loopback port of its own). Prints the listening lines; `close` stops the listeners and the
 * session but not the store, which the caller owns (`chronicle serve` shares it with the stacks surface).
 */
export async function startEditor(
  store: EventStore,
  options: {
    port: number;
    file?: string | undefined;
    resume?: string | true | undefined;
    /** Origins (normalised) whose pages may touch the file system besides loopback pages. */
    allowOrigins?: readonly string[] | undefined;
  },
): Promise<EditorServer> {
  const { port, file } = options;
  // With FILE the editor is GUI-hosted: a person at the viewer answers picks.
  const { session, client } = await openEditorSession(store, {
    file,
    resume: options.resume,
    gui: file !== undefined,
  });
  const app = editorApp(
    client,
    { version, sessionId: () => session.sessionId },
    auditContext(store, session),
    { origins: new OriginPolicy(options.allowOrigins) },
  );
  const listener = new EditorListener(app);
  let bound: number;
  try {
    bound = await listener.listen(port);
    process.stderr.write(`editor listening on http://127.0.0.1:${bound}\n`);
  } catch (error) {
    await session.close();
    throw new EditorStartError(`editor: cannot listen on 127.0.0.1:${port}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let viewer: FastifyInstance | undefined;
  if (file !== undefined) {
    let guiPort = 0;
    viewer = viewerApp(session, () => guiPort).app;
    try {
      await viewer.listen({ host: '127.0.0.1', port: 0 });
      const address = viewer.server.address();
      guiPort = typeof address === 'object' && address ? address.port : 0;
      process.stderr.write(`gui listening on http://127.0.0.1:${guiPort}\n`);
    } catch (error) {
      await listener.close();
      await session.close();
      throw new EditorStartError(`gui: cannot listen on 127.0.0.1:0: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  return {
    port: bound,
    models: [{ name: editorModels.name, rebuild: (o) => session.rebuild(o) }],
    async close() {
      // Stop accepting, let in-flight requests finish (the session waits for its queue).
      const closing = listener.close();
      await viewer?.close();
      await session.close();
      await Promise.race([closing, new Promise((r) => setTimeout(r, 1000))]);
    },
  };
}

/**
 * `chronicle editor --http <port> [FILE] [--resume [SESSION]]`: one editor session over the store,
 * served on 127.0.0.1. With FILE, the session starts with it open; with --resume, with the documents of
 * the last (or the named) session as they were at its last event (crash recovery). Nothing to resume:
 * one line on standard error, exit status 1.
 */
export async function runEditor(
  port: number,
  file: string | undefined,
  options: StoreOptions & { resume?: string | true | undefined; allowOrigin?: readonly string[] },
): Promise<number> {
  const store = await openStoreUnlessStopped(options);
  if (!store) return 0;
  let editor: EditorServer;
  try {
    editor = await startEditor(store, {
      port,
      file,
      resume: options.resume,
      allowOrigins: options.allowOrigin,
    });
  } catch (error) {
    if (!(error instanceof EditorStartError)) throw error;
    process.stderr.write(`${error.message}\n`);
    await store.close();
    return 1;
  }
  return serveUntilStopped(options, store, editor.models, () => editor.close());
}
