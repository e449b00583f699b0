import { spawn } from 'node:child_process';
import { signalGroup } from './compose/runner.js';

/**
 * A short helper command (git, a secret provider) run to its end in its own process group, so a time-out
 * or a stop also ends whatever it started; its standard output capped (a command gone wrong should not
 * fill memory), the tail of its standard error kept for the caller's message.
 */

/** Why a run was ended before it ended by itself. */
export type RunStop =
  | { why: 'timeout' }
  | { why: 'cancelled' }
  | { why: 'output' }
  | { why: 'spawn'; error: NodeJS.ErrnoException };

interface BoundedRunOptions {
  cwd?: string;
  env: Record<string, string>;
  timeoutMs: number;
  /** Bytes of standard output kept; more ends the run. */
  maxOutputBytes: number;
  /** Characters of standard error kept, from its end. */
  stderrKeep: number;
  /** Aborted when the server stops: the run is ended at once. */
  signal?: AbortSignal;
  /** The error the run rejects with when it was ended (or never started). */
  stopped: (stop: RunStop) => Error;
}

interface BoundedOutput {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
}

export function runBounded(
  program: string,
  args: readonly string[],
  options: BoundedRunOptions,
): Promise<BoundedOutput> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      shell: false,
    });
    const stop = (why: RunStop, running = true) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (running && child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
      reject(options.stopped(why));
    };
    const timer = setTimeout(() => stop({ why: 'timeout' }), options.timeoutMs);
    const cancel = () => stop({ why: 'cancelled' });
    if (options.signal?.aborted) cancel();
    options.signal?.addEventListener('abort', cancel, { once: true });
    child.on('close', () => options.signal?.removeEventListener('abort', cancel));
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > options.maxOutputBytes) stop({ why: 'output' });
      else stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-options.stderrKeep);
    });
    child.on('error', (error: NodeJS.ErrnoException) => stop({ why: 'spawn', error }, false));
    child.on('close', (code, signal) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(stdout), stderr });
    });
  });
}
