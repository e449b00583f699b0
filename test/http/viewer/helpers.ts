/**
 * The GUI-hosted editor for black-box tests: `chronicle editor --http 0 FILE --store memory:` started
 * as a child process, with both of its listeners (REST and viewer), a small DXF drawing to open, and
 * a reader of the viewer's server-sent events.
 */
import { rm, writeFile } from 'node:fs/promises';
import { type IncomingMessage, request } from 'node:http';
import { join } from 'node:path';
import { tempDir } from '../../cli/helpers.js';
import { Client, type EditorServer, type Json, startEditor } from '../editor/helpers.js';

export const GUI_LISTENING = /^gui listening on http:\/\/127\.0\.0\.1:(\d+)$/m;

/**
 * An R12 drawing: a 100 x 60 room of four red WALLS lines (handles 6-9), a green DOORS circle (A) and
 * arc (B), a yellow NOTES text (C); then a second room to the right (D-F), a cyan FURNITURE table (10)
 * and two more texts (11, 12).
 */
export function planDxf(): string {
  const pairs: string[] = [];
  const p = (code: number, value: string | number) =>
    pairs.push(`${String(code).padStart(3, ' ')}\n${value}`);
  p(0, 'SECTION');
  p(2, 'TABLES');
  p(0, 'TABLE');
  p(2, 'LAYER');
  p(70, 5);
  for (const [name, color] of [
    ['0', 7],
    ['WALLS', 1],
    ['DOORS', 3],
    ['NOTES', 2],
    ['FURNITURE', 4],
  ] as const) {
    p(0, 'LAYER');
    p(2, name);
    p(70, 0);
    p(62, color);
    p(6, 'CONTINUOUS');
  }
  p(0, 'ENDTAB');
  p(0, 'ENDSEC');
  p(0, 'SECTION');
  p(2, 'ENTITIES');
  // Every entity names its handle (group code 5), in PLAN_HANDLES order.
  let next = 0;
  const handle = () => p(5, PLAN_HANDLES[next++] as string);
  const line = (a: number[], b: number[]) => {
    p(0, 'LINE');
    handle();
    p(8, 'WALLS');
    p(10, a[0] as number);
    p(20, a[1] as number);
    p(30, 0);
    p(11, b[0] as number);
    p(21, b[1] as number);
    p(31, 0);
  };
  line([0, 0], [100, 0]);
  line([100, 0], [100, 60]);
  line([100, 60], [0, 60]);
  line([0, 60], [0, 0]);
  for (const [code, value] of [
    [0, 'CIRCLE'],
    [8, 'DOORS'],
    [10, 70],
    [20, 30],
    [30, 0],
    [40, 8],
    [0, 'ARC'],
    [8, 'DOORS'],
    [10, 40],
    [20, 20],
    [30, 0],
    [40, 10],
    [50, 0],
    [51, 90],
    [0, 'TEXT'],
    [8, 'NOTES'],
    [10, 5],
    [20, 64],
    [30, 0],
    [40, 4],
    [1, 'Plan A'],
  ] as const) {
    p(code, value);
    if (code === 0) handle();
  }
  line([100, 0], [140, 0]);
  line([140, 0], [140, 60]);
  line([140, 60], [100, 60]);
  for (const [code, value] of [
    [0, 'CIRCLE'],
    [8, 'FURNITURE'],
    [10, 120],
    [20, 20],
    [30, 0],
    [40, 6],
    [0, 'TEXT'],
    [8, 'NOTES'],
    [10, 108],
    [20, 45],
    [30, 0],
    [40, 3],
    [1, 'Store'],
    [0, 'TEXT'],
    [8, 'NOTES'],
    [10, 10],
    [20, 50],
    [30, 0],
    [40, 3],
    [1, 'Office'],
  ] as const) {
    p(code, value);
    if (code === 0) handle();
  }
  p(0, 'ENDSEC');
  p(0, 'EOF');
  return `${pairs.join('\n')}\n`;
}

export const PLAN_HANDLES = ['6', '7', '8', '9', 'A', 'B', 'C', 'D', 'E', 'F', '10', '11', '12'];

export interface GuiEditor {
  server: EditorServer;
  /** The REST listener's client. */
  rest: Client;
  guiPort: number;
  guiUrl: string;
  file: string;
  stop(): Promise<void>;
}

/** Writes the plan drawing to a temporary file and starts the editor GUI-hosted on it (`env`: its environment). */
export async function startGuiEditor(env?: NodeJS.ProcessEnv): Promise<GuiEditor> {
  const dir = await tempDir();
  const file = join(dir, 'plan.dxf');
  await writeFile(file, planDxf());
  const server = await startEditor([file, '--store', 'memory:'], env);
  const deadline = Date.now() + 10_000;
  let match = GUI_LISTENING.exec(server.stderr());
  while (!match && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    match = GUI_LISTENING.exec(server.stderr());
  }
  if (!match) {
    await server.stop();
    throw new Error(`no gui listening line; stderr: ${server.stderr()}`);
  }
  const guiPort = Number(match[1]);
  return {
    server,
    rest: new Client(server.port),
    guiPort,
    guiUrl: `http://127.0.0.1:${guiPort}`,
    file,
    stop: async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface SseEvent {
  event: string;
  data: Json;
  /** When it arrived (performance.now()). */
  at: number;
}

/** A reader of the viewer's `/events` stream: every event so far, and a wait for the next that matches. */
export class SseReader {
  readonly events: SseEvent[] = [];
  private buffer = '';
  private waiters: Array<() => void> = [];
  private response: IncomingMessage | undefined;

  static open(port: number): Promise<SseReader> {
    const reader = new SseReader();
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/events', agent: false }, (res) => {
        reader.response = res;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => reader.feed(chunk));
        resolve(reader);
      });
      req.on('error', reject);
      req.end();
    });
  }

  get status(): number | undefined {
    return this.response?.statusCode;
  }

  get contentType(): string | undefined {
    return this.response?.headers['content-type'];
  }

  private feed(chunk: string): void {
    this.buffer += chunk;
    let end = this.buffer.indexOf('\n\n');
    while (end !== -1) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      let event = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data += line.slice(6);
      }
      if (data !== '') this.events.push({ event, data: JSON.parse(data) as Json, at: performance.now() });
      end = this.buffer.indexOf('\n\n');
    }
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** The first event after index `from` that `match` accepts; fails after `timeoutMs`. */
  async next(match: (e: SseEvent) => boolean, from = 0, timeoutMs = 20_000): Promise<SseEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.slice(from).find(match);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(
          `no matching event in ${timeoutMs} ms; got ${this.events.map((e) => e.event).join(', ')}`,
        );
      await new Promise<void>((wake) => {
        this.waiters.push(wake);
        setTimeout(wake, 50);
      });
    }
  }

  close(): void {
    this.response?.destroy();
  }
}

/** A POST of JSON to the viewer's listener, as its page sends it. */
export async function viewerPost(
  gui: GuiEditor,
  path: string,
  json: unknown,
  headers: Record<string, string> = {},
) {
  return new Client(gui.guiPort).post(path, json, {
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}
