/**
 * The stacks server in process (startStacksServer over a memory store): a client that stops reading an
 * event stream holds up neither the job nor another client, and close() ends with streams still open.
 */
import { rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type StacksServer, startStacksServer } from '../../src/cli/stacks.js';
import { resolveStacksConfig } from '../../src/stacks/config/stacks-config.js';
import { openStore } from '../../src/store/open.js';
import type { EventStore } from '../../src/store/types.js';
import { tempDir } from '../cli/helpers.js';
import {
  composeText,
  dataOf,
  ended,
  FAKE_COMPOSE,
  type Json,
  openSse,
  StacksClient,
  waitJob,
} from './stacks/helpers.js';

let store: EventStore;
let dataDir: string;
let server: StacksServer | undefined;

beforeEach(async () => {
  store = await openStore('memory:');
  dataDir = await tempDir();
  const { config } = resolveStacksConfig({
    users: [{ name: 'admin', token: 't-admin', admin: true }],
    compose: { command: [process.execPath, FAKE_COMPOSE] },
  });
  server = await startStacksServer({ store, dataDir, config, port: 0, host: '127.0.0.1' });
});

afterEach(async () => {
  await server?.close();
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
});

/**
 * A GET whose answer is not read until `resume()`: the client stops taking bytes from its socket once
 * its buffer is full, so the server's socket buffer fills and stays full. `bytesRead` is what it took.
 */
function stalledRequest(
  port: number,
  path: string,
): Promise<{ bytesRead(): number; resume(): Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, agent: false, headers: { Authorization: 'Bearer t-admin' } },
      (res) => {
        res.pause();
        const socket = res.socket;
        resolve({
          bytesRead: () => socket.bytesRead,
          resume: async () => {
            res.setEncoding('utf8');
            let text = '';
            for await (const chunk of res) text += chunk;
            return text;
          },
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The messages of an event stream's text (one JSON `data:` line per event). */
const messagesOf = (text: string): Json[] =>
  text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as Json);

describe('stacks server', () => {
  it('a client that never reads holds up neither the job nor another client', async () => {
    const port = (server as StacksServer).port;
    const admin = new StacksClient(port, 't-admin');
    const LINES = 100_000;
    const line = `output line padded to be long enough to fill socket buffers quickly ${'x'.repeat(60)}`;
    const created = await admin.post('/api/stacks', {
      name: 'big',
      compose: composeText({ lines: [line], repeat: LINES, sleepMs: 300 }),
      variables: [],
      secretProvider: null,
    });
    expect(created.status).toBe(202);
    const { jobId } = created.value as { jobId: string };
    const stalled = await stalledRequest(port, `/api/jobs/${jobId}/events`);
    const reader = await openSse(port, `/api/jobs/${jobId}/events`, 't-admin');
    const job = await waitJob(admin, jobId, 60_000);
    expect(job.result).toMatchObject({ success: true });
    await ended(reader, 60_000);
    const messages = dataOf(reader);
    expect(messages.filter((m) => m.type === 'line')).toHaveLength(LINES);
    expect(messages.at(-1)).toMatchObject({ type: 'result', success: true });
    // The order: the job ended and the other client had every message while the stalled one had taken
    // less than the lines' text alone, so neither waited for it.
    expect(stalled.bytesRead()).toBeLessThan(LINES * line.length);
    // It is not dropped for it either (its messages fit its buffer): read now, it gets them all.
    const late = messagesOf(await stalled.resume());
    expect(late.filter((m) => m.type === 'line')).toHaveLength(LINES);
    expect(late.at(-1)).toMatchObject({ type: 'result', success: true });
  }, 90_000);

  it('close() returns while an event stream and a followed log are still open', async () => {
    const port = (server as StacksServer).port;
    const admin = new StacksClient(port, 't-admin');
    const created = await admin.post('/api/stacks', {
      name: 'held',
      compose: composeText({ lines: ['waiting'], sleepMs: 30_000 }),
      variables: [],
      secretProvider: null,
    });
    const { jobId, runId } = created.value as { jobId: string; runId: number };
    const events = await openSse(port, `/api/jobs/${jobId}/events`, 't-admin');
    const follow = await openSse(port, `/api/stacks/held/deploys/${runId}/log?follow=true`, 't-admin');
    await server?.close();
    server = undefined;
    await ended(events, 5_000);
    await ended(follow, 5_000);
    // close() did not wait for the streams, nor for compose's 30 s: it stopped the job, and both
    // streams end with that, not with the deploy's own end.
    expect(dataOf(events).at(-1)).toMatchObject({
      type: 'result',
      success: false,
      error: expect.stringContaining('server was stopped'),
    });
    expect(dataOf(follow).at(-1)).toMatchObject({ type: 'end', status: 'failed' });
  }, 30_000);
});
