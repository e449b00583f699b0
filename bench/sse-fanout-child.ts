/**
 * The fan-out limit of `npm run bench -- deploys`: a bare `node:http` server that runs the bench compose
 * program and sends its lines, framed as chronicle frames them (`id:`, `data: {"type":"line",...}`), to
 * every SSE client — no store, no redaction, no auth, no framework: what this machine can deliver to 50
 * clients with the bench's own client. Each read of the program's stdout becomes one shared buffer that
 * every client writes as-is, waiting for `drain` when its socket is full.
 * argv: <compose program>; the environment carries BENCH_LINES and the BENCH_SECRET_* values. Prints
 * `listening <port>`; the program starts with the first `POST /start`.
 */
import { spawn } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';

const program = process.argv[2] as string;
const frames: Buffer[] = [];
let finished = false;
const waiting = new Set<() => void>();
const wake = () => {
  for (const w of [...waiting]) w();
  waiting.clear();
};

function startProgram(): void {
  const child = spawn(
    process.execPath,
    [program, '--project-name', 'limit', '--file', 'compose.yaml', 'up'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let rest = '';
  let index = 0;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    let text = '';
    for (const line of parts) text += `id: ${index++}\ndata: ${JSON.stringify({ type: 'line', line })}\n\n`;
    frames.push(Buffer.from(text));
    wake();
  });
  child.on('close', (code) => {
    const result = { type: 'result', success: code === 0, exitCode: code ?? undefined, output: [] };
    frames.push(Buffer.from(`id: ${index}\ndata: ${JSON.stringify(result)}\n\n`));
    finished = true;
    wake();
  });
}

async function feed(res: ServerResponse): Promise<void> {
  let next = 0;
  for (;;) {
    while (next < frames.length) {
      if (!res.write(frames[next++] as Buffer)) await new Promise((r) => res.once('drain', r));
    }
    if (finished && next === frames.length) break;
    await new Promise<void>((r) => waiting.add(r));
  }
  res.end();
}

let started = false;
const server = createServer((req, res) => {
  if (req.method === 'POST') {
    if (!started) startProgram();
    started = true;
    res.end();
    return;
  }
  res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache' });
  res.flushHeaders();
  void feed(res);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
});
