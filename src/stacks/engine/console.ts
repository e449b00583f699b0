/**
 * A console in a running container: the Engine API's exec with a TTY (`POST /containers/{id}/exec`,
 * then `start` hijacked), its bytes carried over a WebSocket. The protocol on the socket: binary
 * messages are the terminal's bytes (typed, to the container; printed, to the page); text messages are
 * JSON controls — `{"type":"resize","cols","rows"}` from the page, `{"type":"exit","exitCode"}` and
 * `{"type":"error","error"}` to it, after which the socket closes.
 *
 * What the container prints is masked like other output as far as a terminal allows: every value of
 * the stack of more than 5 characters becomes `***` (ConsoleMask). A terminal has no lines to withhold,
 * so shorter values are not masked (docs/stacks.md says so). What is typed is neither masked nor recorded.
 */
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import type { WebSocket } from 'ws';
import type { Redactor } from '../contracts.js';
import { createRedactor } from '../output/redaction.js';

/** How long printed text that may be the start of a value waits for the rest before it is shown. */
const HOLD_MS = 30;
/** Columns and rows a resize may ask (xterm's own bounds are far below). */
const MAX_SIZE = 1000;

export class CommandError extends Error {}

/**
 * A command line as a shell splits it into words (blanks between words; `'…'`, `"…"` and `\` quote),
 * without expanding anything: the words are the exec's argv. Empty: `sh`.
 */
export function commandOf(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
      continue;
    }
    if (c === '\\') {
      const next = text[i + 1];
      if (next === undefined) throw new CommandError('The command ends with a lone backslash');
      // In double quotes a backslash quotes only what the shell would ($ ` " \ and a line end).
      if (quote === '"' && !'$`"\\\n'.includes(next)) word += c;
      word += next;
      inWord = true;
      i++;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = null;
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote !== null) throw new CommandError(`The command has an unclosed ${quote}`);
  if (inWord) words.push(word);
  return words.length > 0 ? words : ['sh'];
}

/**
 * Masks the stack's long values in a terminal's output as it streams: text that could be the start of
 * a value is held back (at most the longest value's length, for HOLD_MS) so a value cut between two
 * chunks is still masked whole.
 */
export class ConsoleMask {
  private readonly redactor: Redactor;
  private readonly longest: number;
  private readonly decoder = new TextDecoder('utf-8');
  private held = '';

  constructor(values: readonly string[]) {
    const long = values.filter((v) => v.length > 5);
    this.redactor = createRedactor(long);
    this.longest = Math.max(0, ...long.map((v) => v.length));
  }

  /** The text to show now for a chunk; what is held comes with the next chunk or `flush`. */
  push(chunk: Buffer): string {
    const text = this.held + this.decoder.decode(chunk, { stream: true });
    if (this.longest === 0) {
      this.held = '';
      return text;
    }
    // Masked first, then cut: the held part is the end of the unmasked text (it may start a value).
    const keep = Math.min(text.length, this.longest - 1);
    const shown = text.slice(0, text.length - keep);
    // A mask that would itself make a value (withheld: null) shows nothing of the text.
    const masked = this.redactor.line(text) ?? '***';
    if (masked !== text) {
      // A value was in it: show it all masked, hold nothing (a masked tail cannot start a value).
      this.held = '';
      return masked;
    }
    this.held = text.slice(text.length - keep);
    return shown;
  }

  /** What is held, masked (no more output came). */
  flush(): string {
    const text = this.held + this.decoder.decode();
    this.held = '';
    return this.longest === 0 ? text : (this.redactor.line(text) ?? '***');
  }

  get holding(): boolean {
    return this.held !== '';
  }
}

interface ConsoleRequest {
  docker: Docker;
  /** The container (its name or id). */
  container: string;
  command: string[];
  /** The values to mask (the stack's variables and its provider's secrets). */
  values: readonly string[];
  socket: WebSocket;
  /** Called once the exec runs, and once it ended (its exit code; null when the page left first). */
  opened: () => Promise<void>;
  closed: (exitCode: number | null) => Promise<void>;
}

const sendJson = (socket: WebSocket, value: unknown) => {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(value));
};

/** Runs one console until its command exits or its socket closes; never rejects. */
export async function runConsole(request: ConsoleRequest): Promise<void> {
  const { socket } = request;
  let stream: Duplex | undefined;
  let exec: Docker.Exec | undefined;
  // Listened to at once: what the page sends while the exec starts waits for it (ws keeps nothing).
  const early: Array<[Buffer, boolean]> = [];
  let onMessage = (data: Buffer, binary: boolean) => {
    early.push([data, binary]);
  };
  socket.on('message', (data: Buffer, binary: boolean) => onMessage(data, binary));
  let left = false;
  socket.on('close', () => {
    left = true;
  });
  try {
    exec = await request.docker.getContainer(request.container).exec({
      Cmd: request.command,
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      Tty: true,
      Env: ['TERM=xterm-256color'],
    });
    stream = (await exec.start({ hijack: true, stdin: true, Tty: true })) as unknown as Duplex;
  } catch (error) {
    sendJson(socket, { type: 'error', error: `The console could not start: ${(error as Error).message}` });
    socket.close(1011, 'exec failed');
    return;
  }
  if (left) {
    stream.destroy();
    return;
  }
  await request.opened();
  const mask = new ConsoleMask(request.values);
  let timer: NodeJS.Timeout | undefined;
  const show = (text: string) => {
    if (text !== '' && socket.readyState === socket.OPEN) socket.send(Buffer.from(text, 'utf8'));
  };
  stream.on('data', (chunk: Buffer) => {
    show(mask.push(chunk));
    clearTimeout(timer);
    if (mask.holding) timer = setTimeout(() => show(mask.flush()), HOLD_MS);
  });
  const running = exec;
  const started = stream;
  // In the order they came: keys typed after a resize reach the program once it has its new size.
  let queue: Promise<unknown> = Promise.resolve();
  const inTurn = (step: () => Promise<unknown> | undefined) => {
    queue = queue.then(step).catch(() => undefined);
  };
  onMessage = (data: Buffer, binary: boolean) => {
    if (binary) {
      inTurn(() => {
        started.write(data);
        return undefined;
      });
      return;
    }
    let control: { type?: unknown; cols?: unknown; rows?: unknown };
    try {
      control = JSON.parse(data.toString());
    } catch {
      return;
    }
    const { cols, rows } = control;
    if (
      control.type === 'resize' &&
      Number.isInteger(cols) &&
      Number.isInteger(rows) &&
      (cols as number) > 0 &&
      (rows as number) > 0 &&
      (cols as number) <= MAX_SIZE &&
      (rows as number) <= MAX_SIZE
    )
      inTurn(() => running.resize({ w: cols as number, h: rows as number }));
  };
  for (const [data, binary] of early.splice(0)) onMessage(data, binary);
  const ended = await new Promise<'exited' | 'left'>((resolve) => {
    started.on('end', () => resolve('exited'));
    started.on('close', () => resolve('exited'));
    started.on('error', () => resolve('exited'));
    if (left) resolve('left');
    socket.on('close', () => resolve('left'));
  });
  clearTimeout(timer);
  show(mask.flush());
  let exitCode: number | null = null;
  if (ended === 'exited') {
    exitCode = await running.inspect().then(
      (info) => (typeof info.ExitCode === 'number' ? info.ExitCode : null),
      () => null,
    );
    // Recorded before the page hears of it: whoever sees the console end finds it in the audit.
    await request.closed(exitCode).catch(() => undefined);
    sendJson(socket, { type: 'exit', exitCode });
    socket.close(1000, 'exited');
  } else {
    // The page left: the terminal closes, and the shell in it gets its hang-up.
    started.destroy();
    await request.closed(exitCode).catch(() => undefined);
  }
}
