/**
 * The live viewer of the GUI-hosted editor: one page (plain HTML and a small ES module, no build step)
 * on its own loopback listener, fed by server-sent events from the session's read model, and a few
 * JSON routes for what the person does — select, answer or cancel a pick, switch tabs. Selections and
 * picks go through the session (recorded as events); tabs and cancel through the dispatcher's ops.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import type { Subscription } from 'rxjs';
import type { Answer } from '../../../streams/editor.js';
import { completePick, viewerSelection } from '../../editor/picks.js';
import { isObject } from '../../editor/request.js';
import type { EditorSession } from '../../editor/session.js';
import { statusOfCode } from '../editor/status.js';
import { loopbackHost } from '../loopback-host.js';
import { Dirt, DrawableCache, messagesOf, sceneJson, sceneRefusal, type ViewerMessage } from './scene.js';

/** How long events are gathered before the pages are told: one message for a burst, well within 200 ms. */
const FLUSH_MS = 15;
/**
 * Bytes a page may have unread before it is dropped. It then reconnects (EventSource does that by
 * itself) and starts again from a whole scene: a slow page never holds the dispatcher or grows memory.
 */
export const MAX_UNREAD_BYTES = 8 * 1024 * 1024;
/** EventSource's wait before it reconnects after the stream ends (ms). */
const RETRY_MS = 500;

/** The page's files, read once: `npm run build` copies them beside the compiled module. */
const ASSETS: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/viewer.js': { file: 'viewer.js', type: 'text/javascript; charset=utf-8' },
  '/viewer.css': { file: 'viewer.css', type: 'text/css; charset=utf-8' },
};

function loadAssets(): Map<string, { body: Buffer; type: string }> {
  const out = new Map<string, { body: Buffer; type: string }>();
  for (const [path, { file, type }] of Object.entries(ASSETS))
    out.set(path, { body: readFileSync(new URL(`./page/${file}`, import.meta.url)), type });
  return out;
}

// JSON text has no raw line breaks, so every message is one `data:` line.
const sseFrame = (message: ViewerMessage) => `event: ${message.event}\ndata: ${message.json}\n\n`;

/**
 * The pages connected to the event stream. The session's events only mark what is out of date; a
 * timer then builds each message once from the read model and writes it to every page.
 */
class LiveFeed {
  private readonly pages = new Set<ServerResponse>();
  private dirt = new Dirt();
  private timer: NodeJS.Timeout | undefined;
  private readonly subscription: Subscription;
  private readonly session: EditorSession;
  readonly drawables = new DrawableCache();
  /** Pages dropped for reading too slowly, since start. */
  dropped = 0;

  constructor(session: EditorSession) {
    this.session = session;
    this.subscription = session.recorded.subscribe((event) => {
      try {
        this.dirt.add(event, session.state);
        if (this.dirt.any && this.timer === undefined) this.timer = setTimeout(() => this.flush(), FLUSH_MS);
      } catch (error) {
        // The viewer must never break the dispatcher: a page that missed this resyncs on its next scene.
        process.stderr.write(`viewer: cannot follow ${event.type}: ${(error as Error).message}\n`);
        this.dirt.scene = true;
      }
    });
  }

  get size(): number {
    return this.pages.size;
  }

  /** Starts a page's stream with the whole scene. */
  open(page: ServerResponse): void {
    page.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    });
    page.write(`retry: ${RETRY_MS}\n\n`);
    page.write(sseFrame({ event: 'scene', json: sceneJson(this.session.state, this.drawables) }));
    this.pages.add(page);
    page.on('close', () => this.pages.delete(page));
  }

  private flush(): void {
    this.timer = undefined;
    const dirt = this.dirt;
    this.dirt = new Dirt();
    if (this.pages.size === 0) return;
    let frames: string;
    try {
      frames = messagesOf(dirt, this.session.state, this.drawables).map(sseFrame).join('');
    } catch (error) {
      process.stderr.write(`viewer: cannot build an update: ${(error as Error).message}\n`);
      this.drawables.clear();
      frames = sseFrame({ event: 'scene', json: sceneJson(this.session.state, this.drawables) });
    }
    for (const page of this.pages) {
      if (page.writableLength > MAX_UNREAD_BYTES) {
        this.dropped += 1;
        this.pages.delete(page);
        page.destroy();
        continue;
      }
      page.write(frames);
    }
  }

  close(): void {
    this.subscription.unsubscribe();
    if (this.timer) clearTimeout(this.timer);
    for (const page of this.pages) page.end();
    this.pages.clear();
  }
}

/**
 * The viewer's app. `port()` is the bound port, for the Host guard's message (DNS rebinding: a page of
 * another site that resolves its name to 127.0.0.1 must not read the drawing or act for the person).
 */
export function viewerApp(
  session: EditorSession,
  port: () => number,
): { app: FastifyInstance; feed: LiveFeed } {
  const assets = loadAssets();
  const feed = new LiveFeed(session);
  const app = Fastify({ logger: false, forceCloseConnections: true });
  let serial = 0;
  const viewerId = () => `viewer-${randomUUID().slice(0, 8)}-${++serial}`;

  const send = (reply: FastifyReply, answer: Answer) => {
    const status = answer.ok ? 200 : statusOfCode(answer.code);
    return reply
      .code(status)
      .header('Cache-Control', 'no-store')
      .send({ ...answer, http_status: status });
  };

  app.addHook('onRequest', async (request, reply) => {
    if (!loopbackHost(request.headers.host)) {
      const error = `Host ${JSON.stringify(request.headers.host ?? '')} is not allowed: name this machine (127.0.0.1:${port()}, localhost:${port()} or [::1]:${port()})`;
      return send(reply, { ok: false, code: 'forbidden_host', error });
    }
    // Another site's page cannot send a JSON body here without a CORS preflight, which is not answered.
    if (request.method === 'POST' && !/^application\/json\b/i.test(request.headers['content-type'] ?? '')) {
      return reply.code(415).send({
        ok: false,
        code: 'json_required',
        error: 'send the body as application/json',
        http_status: 415,
      });
    }
    return undefined;
  });

  for (const [path, asset] of assets) {
    app.get(path, (_request, reply) =>
      reply.header('Content-Type', asset.type).header('Cache-Control', 'no-cache').send(asset.body),
    );
  }

  app.get('/events', (request, reply) => {
    reply.hijack();
    feed.open(reply.raw);
    request.raw.socket.setTimeout(0);
  });

  // A model space past the expansion limit is refused here (the event stream draws its references as
  // nothing and says why): counted before anything is drawn.
  app.get('/scene', (_request, reply) => {
    const refused = sceneRefusal(session.state);
    if (refused)
      return send(reply, { ok: false, code: refused.code, error: refused.message, ...refused.details });
    return reply
      .header('Cache-Control', 'no-store')
      .header('Content-Type', 'application/json; charset=utf-8')
      .send(sceneJson(session.state, feed.drawables));
  });

  app.post('/select', async (request, reply) => {
    const body = isObject(request.body) ? request.body : {};
    return send(reply, await session.act((state) => viewerSelection(state, body.document_id, body.handles)));
  });

  app.post('/pick', async (request, reply) => {
    const body = isObject(request.body) ? request.body : {};
    return send(reply, await session.act((state) => completePick(state, body.request_id, body)));
  });

  app.post('/cancel', async (request, reply) => {
    const body = isObject(request.body) ? request.body : {};
    const target = typeof body.request_id === 'string' ? { target_request_id: body.request_id } : {};
    const { state: _state, ...answer } = await session.dispatch({
      protocol: 1,
      op: 'cancel',
      request_id: viewerId(),
      ...target,
    });
    return send(reply, answer as Answer);
  });

  app.post('/activate', async (request, reply) => {
    const body = isObject(request.body) ? request.body : {};
    const { state: _state, ...answer } = await session.dispatch({
      protocol: 1,
      op: 'activate',
      request_id: viewerId(),
      document_id: body.document_id,
    });
    return send(reply, answer as Answer);
  });

  app.setNotFoundHandler((request, reply) =>
    send(reply, { ok: false, code: 'unknown_route', error: `No route ${request.method} ${request.url}` }),
  );
  app.addHook('onClose', async () => feed.close());
  return { app, feed };
}
