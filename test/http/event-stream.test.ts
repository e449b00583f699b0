/**
 * An event-stream answer whose writer throws ends that answer only: the server goes on
 * answering, and nothing reaches RxJS's unhandled-error path, which would end the process.
 */
import { request } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { Subject } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { EventStream, streamObserver } from '../../src/http/sse/event-stream.js';
import { collectUnhandledRxjsErrors } from '../rxjs-unhandled.js';

let app: FastifyInstance;
let port: number;
const feeds: Array<Subject<string>> = [];

beforeAll(async () => {
  app = Fastify();
  app.get('/feed', async (_request, reply) => {
    const stream = new EventStream(reply);
    const feed = new Subject<string>();
    feeds.push(feed);
    const subscription = feed.subscribe(
      streamObserver(stream, 'test feed', {
        next: (value) => {
          // A message that cannot be framed, as a bug would make one.
          if (value === 'constructor') throw new Error(`cannot frame ${value}`);
          stream.send(value);
        },
      }),
    );
    stream.onClose(() => subscription.unsubscribe());
    return reply;
  });
  app.get('/ping', async () => ({ pong: true }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as { port: number }).port;
});
afterAll(async () => {
  await app.close();
});

const unhandled = collectUnhandledRxjsErrors();
afterEach(() => {
  vi.restoreAllMocks();
});

/** GET `path`; resolves with the status once the head is in, the whole text when the answer ends. */
function get(path: string): Promise<{ status: number; text: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
      });
      resolve({ status: res.statusCode ?? 0, text: new Promise((done) => res.on('end', () => done(text))) });
    });
    req.on('error', reject);
    req.end();
  });
}

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('streamObserver', () => {
  it('a throw in the writer ends that answer, is logged, and the server goes on', async () => {
    const logged: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      logged.push(String(chunk));
      return true;
    });
    const answer = await get('/feed');
    expect(answer.status).toBe(200);
    await until(() => feeds.length === 1);
    const feed = feeds[0] as Subject<string>;
    feed.next('first');
    feed.next('constructor');
    feed.next('never sent');
    expect(await answer.text).toBe('data: first\n\n');
    expect(feed.observed).toBe(false);
    expect(logged.join('')).toContain(
      'test feed: the event stream was ended: Error: cannot frame constructor',
    );
    expect(unhandled.errors).toEqual([]);
    const ping = await get('/ping');
    expect(ping.status).toBe(200);
    expect(await ping.text).toBe('{"pong":true}');
  });

  it('the end of the feed ends the answer, as does its error', async () => {
    const first = await get('/feed');
    const second = await get('/feed');
    await until(() => feeds.length === 3);
    (feeds[1] as Subject<string>).next('x');
    (feeds[1] as Subject<string>).complete();
    (feeds[2] as Subject<string>).error(new Error('gone'));
    expect(await first.text).toBe('data: x\n\n');
    expect(await second.text).toBe('');
    expect(unhandled.errors).toEqual([]);
  });
});
