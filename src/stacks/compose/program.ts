/**
 * Which compose program runs the stacks, and of which generation (docs/stacks.md#on-a-real-docker-engine).
 *
 * Compose v1 (the Python `docker-compose`, 1.x) and v2 (`docker compose`, or a v2 `docker-compose`
 * binary) take different arguments, so the generation of the command is read from its `version` output:
 * `Docker Compose version v2.29.7` (v2) or `docker-compose version 1.29.2, build unknown` (v1). The name
 * of the program says nothing: Docker Desktop ships a v2 binary called `docker-compose`.
 *
 * With `compose.command` configured, that command is asked. Without it, `docker compose` is tried, then
 * `docker-compose`; when neither answers the server does not start (ComposeNotFoundError).
 */
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

export type ComposeGeneration = 'v1' | 'v2';

export interface ComposeProgram {
  /** As configured or detected, for messages: `docker compose`, `docker-compose`. */
  command: readonly string[];
  /**
   * What is spawned: the command with its program as an absolute path, found on the PATH the server
   * started with (a stack's variables cannot choose another `docker`).
   */
  argv: readonly string[];
  generation: ComposeGeneration;
  /**
   * Its version, e.g. `1.29.2`; null when its `version` did not answer (a configured command that is
   * not installed yet, or a wrapper that knows no `version`): it is asked again at the next job, and
   * meanwhile its arguments are v2's, the contract's first form.
   */
  version: string | null;
  /** Why `version` did not answer (set when `version` is null). */
  unanswered?: string;
  /** true when no `compose.command` was configured and this one was found by trying. */
  detected: boolean;
}

/** The commands tried, in order, when `compose.command` is not configured. */
export const DETECTED_COMMANDS: ReadonlyArray<readonly string[]> = [
  ['docker', 'compose'],
  ['docker-compose'],
];

/** How long one `version` may take: a Python v1 on a loaded machine takes a second or two. */
const VERSION_TIMEOUT_MS = 15_000;

/** Neither `docker compose` nor `docker-compose` answered: the CLI prints the message and exits 1. */
export class ComposeNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ComposeNotFoundError';
  }
}

/**
 * The generation and version a `version` output names, or undefined when it names none. The first
 * `compose version <n>` in the text counts (v2 prints one line; v1 adds docker-py and CPython lines).
 */
export function parseComposeVersion(
  output: string,
): { generation: ComposeGeneration; version: string } | undefined {
  const m = /compose version:?\s+v?(\d+)\.(\d+)\.(\d+)([-+.\w]*)/i.exec(output);
  if (!m) return undefined;
  const major = Number(m[1]);
  const version = `${m[1]}.${m[2]}.${m[3]}${(m[4] ?? '').replace(/,$/, '')}`;
  return { generation: major <= 1 ? 'v1' : 'v2', version };
}

/** One `<command> version`: what it printed and whether it succeeded. */
function runVersion(
  command: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ ok: true; output: string } | { ok: false; reason: string }> {
  const [program, ...args] = command;
  if (program === undefined) return Promise.resolve({ ok: false, reason: 'the command is empty' });
  return new Promise((resolve) => {
    execFile(
      program,
      [...args, 'version'],
      { env, timeout: VERSION_TIMEOUT_MS, maxBuffer: 1024 * 1024, windowsHide: true },
      (error, stdout, stderr) => {
        const output = `${stdout}${stderr}`;
        if (!error) return resolve({ ok: true, output });
        const said = output.trim().split('\n')[0] ?? '';
        const code = (error as NodeJS.ErrnoException).code;
        resolve({
          ok: false,
          reason:
            typeof code === 'string'
              ? `${program}: ${code === 'ENOENT' ? 'not found' : error.message}`
              : said.length > 0
                ? said
                : (error.message.split('\n')[0] ?? 'failed'),
        });
      },
    );
  });
}

/**
 * The program of a command as an absolute path: a name is looked up on `PATH` (absolute entries only:
 * an entry such as `.` would make the answer depend on the folder compose runs in), a path is taken
 * relative to the server's working folder. Undefined when no executable file is found.
 */
export async function resolveExecutable(
  program: string,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  const isExecutable = async (file: string) => {
    try {
      await access(file, constants.X_OK);
      return (await stat(file)).isFile();
    } catch {
      return false;
    }
  };
  if (program.includes('/')) {
    const file = resolve(program);
    return (await isExecutable(file)) ? file : undefined;
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const file = join(dir, program);
    if (await isExecutable(file)) return file;
  }
  return undefined;
}

/** Asks one command for its version: the program, or why it is not one. */
export async function probeCompose(
  command: readonly string[],
  env: NodeJS.ProcessEnv,
  detected: boolean,
): Promise<{ program: ComposeProgram } | { failure: string }> {
  const [name, ...args] = command;
  if (name === undefined) return { failure: 'the command is empty' };
  const executable = await resolveExecutable(name, env);
  if (executable === undefined) return { failure: `${name}: not found` };
  const argv = [executable, ...args];
  const answer = await runVersion(argv, env);
  if (!answer.ok) return { failure: answer.reason };
  const parsed = parseComposeVersion(answer.output);
  if (!parsed)
    return { failure: `its version output names no compose version: ${answer.output.trim().slice(0, 200)}` };
  return { program: { command, argv, generation: parsed.generation, version: parsed.version, detected } };
}

/** `docker compose version` → the text a message quotes. */
const shown = (command: readonly string[]) => `\`${[...command, 'version'].join(' ')}\``;

/**
 * The compose program of a server: resolved at start (the CLI reports it), then for every job. A known
 * program is kept; a configured command that did not answer is asked again at the next job.
 */
export class ComposeResolver {
  private known: ComposeProgram | undefined;
  private pending: Promise<ComposeProgram> | undefined;

  constructor(
    private readonly configured: readonly string[] | null,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /** The program; rejects with ComposeNotFoundError only when nothing is configured and none answers. */
  resolve(): Promise<ComposeProgram> {
    if (this.known) return Promise.resolve(this.known);
    this.pending ??= this.find().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async find(): Promise<ComposeProgram> {
    if (this.configured !== null) {
      const probed = await probeCompose(this.configured, this.env, false);
      if ('program' in probed) {
        this.known = probed.program;
        return probed.program;
      }
      return {
        command: this.configured,
        // Not found (yet): spawned as configured, so the job fails with the spawn's own reason.
        argv: this.configured,
        generation: 'v2',
        version: null,
        unanswered: probed.failure,
        detected: false,
      };
    }
    const failures: string[] = [];
    for (const command of DETECTED_COMMANDS) {
      const probed = await probeCompose(command, this.env, true);
      if ('program' in probed) {
        this.known = probed.program;
        return probed.program;
      }
      failures.push(`${shown(command)} failed (${probed.failure})`);
    }
    throw new ComposeNotFoundError(
      `no compose program: ${failures.join(' and ')}; install Docker Compose or set compose.command in the config file`,
    );
  }
}

/** The line the CLI writes on standard error at start, saying which compose runs the stacks. */
export function describeCompose(program: ComposeProgram): string {
  const command = program.command.join(' ');
  if (program.version === null)
    return `stacks compose: ${command} (compose.command; ${shown(program.command)} failed: ${program.unanswered ?? 'no answer'}; arguments are built for v2 until it answers)`;
  return `stacks compose: ${command} ${program.version} (${program.generation}, ${program.detected ? 'detected' : 'compose.command'})`;
}
