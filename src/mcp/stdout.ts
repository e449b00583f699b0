/**
 * Standard output belongs to the MCP protocol: a stray line on it (a library's console.log, a warning
 * printed to stdout) is a message the client cannot parse. `claimStdout` hands the protocol a stream of
 * its own onto file descriptor 1 and sends everything else written to process.stdout to standard error.
 */
import { Writable } from 'node:stream';

export function claimStdout(): Writable {
  const stdout = process.stdout;
  const write = stdout.write.bind(stdout);
  const protocol = new Writable({
    write(chunk: Buffer, _encoding, done) {
      write(chunk, (error) => done(error ?? null));
    },
  });
  stdout.write = process.stderr.write.bind(process.stderr) as typeof stdout.write;
  return protocol;
}
