/**
 * A server a benchmark starts as a child process of its own, and stops: its port read from its
 * listening line, SIGTERM then SIGKILL after 5 s.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';

type Child = ChildProcessByStdio<null, Readable, Readable>;

export interface Server {
  name: string;
  child: Child;
  port: number;
  /** The listening line's match: the port is group 1; a pattern may find more (another port). */
  match: RegExpExecArray;
}

/** Starts `args` under node and waits for the line `pattern` finds the port in (stdout or stderr). */
export function start(name: string, args: readonly string[], pattern: RegExp): Promise<Server> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not report a port within 15 s: ${output}`));
    }, 15_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = pattern.exec(output);
      const port = match?.[1];
      if (match === null || port === undefined) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.stderr.off('data', onData);
      child.stdout.resume();
      child.stderr.resume();
      resolve({ name, child, port: Number(port), match });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code}) before listening: ${output}`));
    });
  });
}

export function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (server.child.exitCode !== null) return resolve();
    const timer = setTimeout(() => server.child.kill('SIGKILL'), 5_000);
    server.child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    server.child.kill('SIGTERM');
  });
}
