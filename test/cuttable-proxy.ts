/**
 * A TCP proxy of the test's own between chronicle and a database, whose connections can be cut: every
 * open one dropped and new ones refused, until it lets them through again (an outage of a moment).
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/** A TCP proxy to PostgreSQL whose connections can be cut: all dropped, new ones refused, until let through. */
export interface CuttableProxy {
  port: number;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function cuttableProxy(target: URL): Promise<CuttableProxy> {
  const open = new Set<Socket>();
  let cut = false;
  const server: Server = createServer((client) => {
    // A refused or cut connection's reset is what the test is after, not a failure of the test.
    client.on('error', () => undefined);
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(target.port || 5432), target.hostname);
    upstream.on('error', () => undefined);
    open.add(client);
    open.add(upstream);
    const close = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    for (const socket of [client, upstream]) {
      socket.on('error', close);
      socket.on('close', close);
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    port: address.port,
    cut() {
      cut = true;
      for (const socket of open) socket.destroy();
    },
    restore() {
      cut = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
