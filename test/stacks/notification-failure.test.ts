/**
 * The words for a notification attempt that got no HTTP answer (src/stacks/notifications/failure.ts),
 * from the errors Node's fetch really throws against local sockets: a closed port, TLS spoken to a
 * plain HTTP server, and the attempt's own time-out.
 */
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { failureReason } from '../../src/stacks/notifications/failure.js';

const servers: Server[] = [];
afterAll(() => {
  for (const s of servers) s.close();
});

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** What fetch throws for `url` (it must throw). */
async function thrown(url: string, signal?: AbortSignal): Promise<unknown> {
  try {
    await fetch(url, { signal });
  } catch (error) {
    return error;
  }
  throw new Error(`${url} answered`);
}

describe('failureReason', () => {
  it('says connection refused for a port nobody listens on', async () => {
    const closed = createServer();
    const port = await listen(closed);
    closed.close();
    const error = await thrown(`http://127.0.0.1:${port}/hook`);
    expect((error as Error).message).toBe('fetch failed');
    expect(failureReason(error, 10_000)).toBe(`connection refused (connect ECONNREFUSED 127.0.0.1:${port})`);
  });

  it('says TLS when https meets a plain HTTP server', async () => {
    const port = await listen(createHttpServer((_q, r) => r.end('plain')));
    expect(failureReason(await thrown(`https://127.0.0.1:${port}/`), 10_000)).toMatch(
      /^TLS \(.*wrong version number.*\)$/,
    );
  });

  it('says time-out, with the time waited, when the receiver never answers', async () => {
    const port = await listen(createHttpServer(() => undefined));
    const error = await thrown(`http://127.0.0.1:${port}/`, AbortSignal.timeout(50));
    expect(failureReason(error, 10_000)).toBe('time-out: no answer within 10 s');
  });

  it('finds the code inside an AggregateError (one error per address tried)', () => {
    const inner = Object.assign(new Error('connect ECONNREFUSED ::1:9'), { code: 'ECONNREFUSED' });
    const error = new TypeError('fetch failed', { cause: new AggregateError([inner]) });
    expect(failureReason(error, 10_000)).toBe('connection refused (connect ECONNREFUSED ::1:9)');
  });

  it("names a port fetch refuses to connect to (the Fetch standard's blocked ports)", async () => {
    const error = await thrown('http://127.0.0.1:9/hook');
    expect(failureReason(error, 10_000, 'http://127.0.0.1:9/hook')).toBe(
      "port 9 refused by fetch before connecting (the Fetch standard's list of blocked ports)",
    );
  });

  it('keeps a cause without a code as it is, and says when fetch gave no reason', () => {
    expect(failureReason(new TypeError('fetch failed', { cause: new Error('socket hang up') }), 1000)).toBe(
      'socket hang up',
    );
    expect(failureReason(new TypeError('fetch failed'), 1000)).toBe('fetch failed (no reason given)');
  });
});
