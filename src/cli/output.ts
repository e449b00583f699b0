import { once } from 'node:events';
import type { Writable } from 'node:stream';

/** Writes with backpressure: a million-line audit trail piped into `less` must not pile up in memory. */
export async function writeLine(out: Writable, line: string): Promise<void> {
  if (!out.write(`${line}\n`)) await once(out, 'drain');
}

/** `chronicle events | head` closes the pipe early; that is the reader being done, not an error. */
export function exitQuietlyOnBrokenPipe(out: NodeJS.WriteStream): void {
  out.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}
