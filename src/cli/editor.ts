import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { editorOps } from '../editor/ops/index.js';
import { EditorSession } from '../editor/session.js';
import { editorApp } from '../http/editor-app.js';
import { EditorClient } from '../http/editor-client.js';
import { EditorListener } from '../http/editor-listener.js';
import { viewerApp } from '../http/viewer-app.js';
import { openStore } from '../store/open.js';
import { version } from '../version.js';
import { type StoreOptions, storeUrlOf } from './store-option.js';

/**
 * `chronicle editor --http <port> [FILE]`: one editor session over the store, served on 127.0.0.1.
 * With FILE, the session starts with it open.
 */
export async function runEditor(
  port: number,
  file: string | undefined,
  options: StoreOptions,
): Promise<number> {
  const store = await openStore(storeUrlOf(options));
  // With FILE the editor is GUI-hosted: a person at the viewer answers picks.
  const session = await EditorSession.start(store, editorOps, { version, gui: file !== undefined });
  const client = new EditorClient(session);
  if (file !== undefined) {
    const answer = await client.mutate('open', { path: resolve(file) }, 201);
    if (!answer.body.ok) {
      process.stderr.write(`chronicle editor: cannot open ${file}: ${String(answer.body.error)}\n`);
      await session.close();
      await store.close();
      return 1;
    }
  }
  const app = editorApp(client, { version, sessionId: () => session.sessionId });
  await app.ready();
  const listener = new EditorListener(app);
  try {
    const bound = await listener.listen(port);
    process.stderr.write(`editor listening on http://127.0.0.1:${bound}\n`);
  } catch (error) {
    process.stderr.write(`editor: cannot listen on 127.0.0.1:${port}: ${(error as Error).message}\n`);
    await session.close();
    await store.close();
    return 1;
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
      process.stderr.write(`gui: cannot listen on 127.0.0.1:0: ${(error as Error).message}\n`);
      await listener.close();
      await session.close();
      await store.close();
      return 1;
    }
  }
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  // Stop accepting, let in-flight requests finish (the session waits for its queue), flush the store.
  const closing = listener.close();
  await viewer?.close();
  await session.close();
  await app.close();
  await store.close();
  await Promise.race([closing, new Promise((r) => setTimeout(r, 1000))]);
  return 0;
}
