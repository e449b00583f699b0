/**
 * What one caller may hold of the stacks server (docs/security.md#connections-and-streams), through the real CLI and raw sockets:
 * - the git webhook checks all its headers can tell (signature header present and well-formed, the stack
 *   and its secret, the declared size) before it reads the body, answers 401/413 while the caller still
 *   holds the rest, and closes the connection; the signature is computed as the body arrives; bodies are
 *   capped at GitHub's 25 MiB, also when sent chunked; webhook bodies being received at once are bounded;
 * - slowloris: clients trickling their headers or their bodies are cut after the time-outs, a connection
 *   cap holds, and other callers are answered; event streams (job events, log follow) live on past the
 *   time-outs. This part runs a server with small limits (CHRONICLE_TEST_STACKS_HTTP_LIMITS, for tests).
 */
import { connect, type Socket } from 'node:net';
import { beforeAll, expect, it, vi } from 'vitest';
import { signatureOf } from '../../../src/stacks/git/webhook.js';
import { tempDir } from '../../cli/helpers.js';
import { makeRepo } from '../../stacks/git-repo.js';
import { type Answer, header, parseAnswers, type RawExchange, rawExchange } from '../editor/helpers.js';
import {
  composeText,
  createStack,
  dataOf,
  describeStacks,
  ended,
  expectStatus,
  objectOf,
  openSse,
  type StacksClient,
  serveStacks,
  sleep,
  TOKENS,
  waitJob,
} from './helpers.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

const MiB = 1024 * 1024;
const SECRET = 'ingress-secret-1';
const PING = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });

/** The head of a webhook POST (no body), with these header lines. */
const webhookHead = (name: string, lines: string[]) =>
  Buffer.from(
    [`POST /api/git-stacks/${name}/webhook?env=null HTTP/1.1`, 'Host: 127.0.0.1', ...lines, '', ''].join(
      '\r\n',
    ),
    'latin1',
  );

const answerOf = (exchange: RawExchange): Answer | undefined =>
  exchange.data.length > 0 ? parseAnswers(exchange.data)[0] : undefined;

const errorOf = (answer: Answer | undefined) => String((answer?.json as { error?: unknown })?.error);

/** A ping delivery to `hooked`, signed over `body`, sent whole; the answer. */
const signedPing = async (port: number, body: Buffer) =>
  answerOf(
    await rawExchange(
      port,
      [
        webhookHead('hooked', [
          `X-Hub-Signature-256: ${signatureOf(SECRET, body)}`,
          'X-GitHub-Event: ping',
          `Content-Length: ${body.length}`,
        ]),
        body,
      ],
      { timeoutMs: 60_000 },
    ),
  );

/** Git stacks `hooked` (with a webhook secret) and `unhooked` (without) on a server. */
async function gitStacks(admin: StacksClient): Promise<void> {
  const repo = await makeRepo(await tempDir(), { 'compose.yaml': composeText({ lines: ['up'] }) });
  for (const [name, secret] of [
    ['hooked', SECRET],
    ['unhooked', undefined],
  ] as const) {
    const reply = await admin.post('/api/git-stacks?env=null', {
      name,
      repository: repo.bare,
      ...(secret ? { webhookSecret: secret } : {}),
    });
    expectStatus(reply, 201, `git stack ${name}`);
  }
}

describeStacks('webhook: checked before its body is read, hashed while it is', () => {
  const stacks = serveStacks();
  beforeAll(() => gitStacks(stacks.admin));

  it('answers 401 or 413 from the headers while the caller still holds 20 MiB of body, and closes the connection', async () => {
    const signature = `X-Hub-Signature-256: ${signatureOf(SECRET, Buffer.from('whatever'))}`;
    const cases: Array<[string, string, string[], number, RegExp]> = [
      ['no signature', 'hooked', [], 401, /^Missing X-Hub-Signature-256 signature$/],
      [
        'a malformed signature',
        'hooked',
        ['X-Hub-Signature-256: sha1=abc'],
        401,
        /^Invalid webhook signature$/,
      ],
      ['an unknown stack', 'nowhere', [signature], 401, /^Invalid webhook signature$/],
      ['a stack without a secret', 'unhooked', [signature], 401, /^Invalid webhook signature$/],
    ];
    const sent = Buffer.alloc(1024, 'x');
    for (const [what, name, lines, status, message] of cases) {
      const head = webhookHead(name, [
        ...lines,
        'Content-Type: application/json',
        `Content-Length: ${20 * MiB}`,
      ]);
      const exchange = await rawExchange(stacks.server.port, [head, sent], { timeoutMs: 20_000 });
      const answer = answerOf(exchange);
      expect(answer?.status, `${what}: answered with 1 KiB of 20 MiB sent (${exchange.ended})`).toBe(status);
      expect(errorOf(answer), what).toMatch(message);
      expect(answer && header(answer, 'connection'), what).toBe('close');
      expect(exchange.ended, `${what}: the server closed the connection`).toBe('closed');
    }
    // Over GitHub's 25 MiB, declared: 413 at once too.
    const over = webhookHead('hooked', [signature, `Content-Length: ${25 * MiB + 1}`]);
    const exchange = await rawExchange(stacks.server.port, [over, sent], { timeoutMs: 20_000 });
    const answer = answerOf(exchange);
    expect(answer?.status, `over 25 MiB declared (${exchange.ended})`).toBe(413);
    expect(answer && header(answer, 'connection')).toBe('close');
    expect(exchange.ended).toBe('closed');
  });

  it('a signature over the body sent in slow pieces verifies; a wrong one is 401 once read; a chunked body over 25 MiB is 413', async () => {
    const body = Buffer.from(PING);
    const head = webhookHead('hooked', [
      `X-Hub-Signature-256: ${signatureOf(SECRET, body)}`,
      'X-GitHub-Event: ping',
      'Content-Type: application/json',
      `Content-Length: ${body.length}`,
    ]);
    const pieces = [head, body.subarray(0, 10), body.subarray(10, 30), body.subarray(30)];
    const ping = answerOf(await rawExchange(stacks.server.port, pieces, { pauseMs: 200, timeoutMs: 20_000 }));
    expect(ping?.status, ping?.text).toBe(200);
    expect(ping?.json).toEqual({ ignored: true, reason: 'ping' });

    const wrong = webhookHead('hooked', [
      `X-Hub-Signature-256: ${signatureOf('not-the-secret', body)}`,
      `Content-Length: ${body.length}`,
    ]);
    const refused = answerOf(await rawExchange(stacks.server.port, [wrong, body], { timeoutMs: 20_000 }));
    expect(refused?.status).toBe(401);
    expect(errorOf(refused)).toBe('Invalid webhook signature');

    // Chunked: no length to check first; cut once 25 MiB have passed.
    const chunked = webhookHead('hooked', [
      `X-Hub-Signature-256: ${signatureOf(SECRET, body)}`,
      'Transfer-Encoding: chunked',
    ]);
    const MiBChunk = Buffer.concat([
      Buffer.from(`${MiB.toString(16)}\r\n`),
      Buffer.alloc(MiB, 'y'),
      Buffer.from('\r\n'),
    ]);
    const tooLarge = answerOf(
      await rawExchange(stacks.server.port, [chunked, ...Array(26).fill(MiBChunk)], { timeoutMs: 60_000 }),
    );
    expect(tooLarge?.status).toBe(413);
    // The server answers on.
    expectStatus(
      await stacks.server.as('admin').get('/api/git-stacks/hooked?env=null'),
      200,
      'still answering',
    );
  });

  it('webhook bodies being received at once are bounded (64 MiB): a further large one is 503 at once, a small one still fits', async () => {
    const signature = `X-Hub-Signature-256: ${signatureOf(SECRET, Buffer.from('held'))}`;
    const held: Socket[] = [];
    try {
      // Two deliveries announce 25 MiB each and send 1 KiB: 50 MiB reserved while they are received.
      for (let i = 0; i < 2; i++) {
        const socket = connect({ host: '127.0.0.1', port: stacks.server.port });
        socket.on('error', () => undefined);
        held.push(socket);
        await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
        socket.write(webhookHead('hooked', [signature, `Content-Length: ${25 * MiB}`]));
        socket.write(Buffer.alloc(1024, 'h'));
      }
      await sleep(500);
      const third = answerOf(
        await rawExchange(
          stacks.server.port,
          [webhookHead('hooked', [signature, `Content-Length: ${25 * MiB}`]), Buffer.alloc(1024)],
          { timeoutMs: 20_000 },
        ),
      );
      expect(third?.status, 'a third 25 MiB delivery').toBe(503);
      expect(third && header(third, 'retry-after')).toBe('10');

      const small = await signedPing(stacks.server.port, Buffer.from(PING));
      expect(small?.status, 'a small delivery fits beside them').toBe(200);
    } finally {
      for (const socket of held) socket.destroy();
    }
    // Once they are gone, a full-size delivery is received and verified.
    await sleep(500);
    const full = Buffer.alloc(25 * MiB, ' ');
    Buffer.from(PING).copy(full);
    const answer = await signedPing(stacks.server.port, full);
    expect(answer?.status, answer?.text).toBe(200);
  });
});

describeStacks('slow clients (small limits for tests)', () => {
  const LIMITS = {
    headersTimeoutMs: 2_000,
    requestTimeoutMs: 4_000,
    maxConnections: 24,
    unauthenticatedConnections: 8,
  };
  const stacks = serveStacks({ env: { CHRONICLE_TEST_STACKS_HTTP_LIMITS: JSON.stringify(LIMITS) } });
  beforeAll(() => gitStacks(stacks.admin));

  /** Sends `bytes` one at a time, 300 ms apart, until the server closes the connection. */
  const trickle = (bytes: Buffer, order: string[], what: string) =>
    rawExchange(
      stacks.server.port,
      [...bytes].map((b) => Buffer.from([b])),
      { pauseMs: 300, timeoutMs: 90_000 },
    ).then((exchange) => {
      order.push(what);
      return exchange;
    });

  it('clients trickling their headers fill the connection cap, then are cut; a caller refused meanwhile is answered after', async () => {
    const order: string[] = [];
    const head = Buffer.from(
      `GET /api/stacks HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'s'.repeat(200)}\r\n\r\n`,
    );
    const tricklers = Array.from({ length: LIMITS.maxConnections }, () =>
      trickle(head, order, 'trickler closed'),
    );
    await sleep(500);

    let refused = 0;
    let answered: Answer | undefined;
    const deadline = Date.now() + 60_000;
    const request = Buffer.from(
      `GET /api/stacks?env=null HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKENS.admin}\r\nConnection: close\r\n\r\n`,
    );
    while (!answered && Date.now() < deadline) {
      answered = answerOf(await rawExchange(stacks.server.port, request, { timeoutMs: 10_000 }));
      if (answered) order.push('caller answered');
      else {
        refused += 1;
        await sleep(100);
      }
    }
    const ends = await Promise.all(tricklers);
    expect(refused, 'the tricklers held every connection for a while').toBeGreaterThan(0);
    expect(answered?.status, 'the caller is answered').toBe(200);
    for (const [i, end] of ends.entries()) {
      expect(end.ended, `trickler ${i} closed by the server`).toBe('closed');
      const answer = answerOf(end);
      if (answer) expect(answer.status, `trickler ${i}`).toBe(408);
    }
    expect(order.indexOf('trickler closed'), order.join(', ')).toBeLessThan(order.indexOf('caller answered'));
  });

  it('slow body uploads (a compose create, a webhook) are cut with 408 while others are answered meanwhile', async () => {
    const order: string[] = [];
    const create = Buffer.from(
      `POST /api/stacks?env=null HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKENS.admin}\r\nContent-Type: application/json\r\nContent-Length: 2000\r\n\r\n{"name":"slow","compose":"${'a'.repeat(1900)}`,
    );
    const hook = Buffer.concat([
      webhookHead('hooked', [
        `X-Hub-Signature-256: ${signatureOf(SECRET, Buffer.from('x'))}`,
        'Content-Length: 2000',
      ]),
      Buffer.alloc(1900, 'w'),
    ]);
    // The heads go at once; the bodies trickle.
    const slow = [create, create, hook, hook].map((bytes) => {
      const head = bytes.indexOf('\r\n\r\n') + 4;
      return rawExchange(
        stacks.server.port,
        [bytes.subarray(0, head), ...[...bytes.subarray(head)].map((b) => Buffer.from([b]))],
        { pauseMs: 300, timeoutMs: 90_000 },
      ).then((exchange) => {
        order.push('upload closed');
        return exchange;
      });
    });
    await sleep(300);
    expectStatus(await stacks.admin.get('/api/stacks?env=null'), 200, 'a caller during the uploads');
    order.push('caller answered');
    const ends = await Promise.all(slow);
    for (const [i, end] of ends.entries()) {
      expect(end.ended, `upload ${i} closed by the server`).toBe('closed');
      expect(answerOf(end)?.status, `upload ${i}`).toBe(408);
    }
    expect(order[0], order.join(', ')).toBe('caller answered');
    expectStatus(await stacks.admin.get('/api/stacks/slow?env=null'), 404, 'the cut create made nothing');
  });

  it('event streams live on past the time-outs: job events and a followed log get every line and their end', async () => {
    const lines = ['one', 'two', 'three', 'four'];
    const ack = await createStack(stacks.admin, 'streamed', null, {
      compose: composeText({ lines, perLineMs: 2_500 }),
    });
    const events = await openSse(stacks.server.port, `/api/jobs/${ack.jobId}/events`, TOKENS.admin);
    const follow = await openSse(
      stacks.server.port,
      `/api/stacks/streamed/deploys/${ack.runId}/log?follow=true`,
      TOKENS.admin,
    );
    expect([events.status, follow.status]).toEqual([200, 200]);
    await ended(events, 60_000);
    await ended(follow, 60_000);
    const eventLines = dataOf(events)
      .filter((m) => m.type === 'line')
      .map((m) => m.line);
    expect(eventLines).toEqual(lines);
    expect(dataOf(events).some((m) => typeof m.success === 'boolean')).toBe(true);
    expect(follow.text()).toContain('three');
    expect(follow.text()).toContain('four');
    const job = await waitJob(stacks.admin, ack.jobId);
    expect(job.result).toMatchObject({ success: true });
    expect(objectOf(await stacks.admin.get('/api/stacks/streamed?env=null')).name).toBe('streamed');
  });
});
