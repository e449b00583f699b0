/**
 * The stacks server in process (startStacksServer over a memory store): a client that stops reading an
 * event stream holds up neither the job nor another client, and close() ends with streams still open.
 */
import { rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type StacksServer, startStacksServer } from '../../src/cli/stacks.js';
import { resolveStacksConfig } from '../../src/stacks/config.js';
import { openStore } from '../../src/store/open.js';
import type { EventStore } from '../../src/store/types.js';
import { tempDir } from '../cli/helpers.js';
import {
  composeText,
  dataOf,
  ended,
  FAKE_COMPOSE,
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

/** A GET whose answer is never read: the server's socket buffer fills and stays full. */
function stalledRequest(port: number, path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t-admin\r\n\r\n`);
      socket.pause();
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

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
    const started = Date.now();
    const job = await waitJob(admin, jobId, 60_000);
    expect(job.result).toMatchObject({ success: true });
    await ended(reader, 60_000);
    const messages = dataOf(reader);
    expect(messages.filter((m) => m.type === 'line')).toHaveLength(LINES);
    expect(messages.at(-1)).toMatchObject({ type: 'result', success: true });
    expect(Date.now() - started).toBeLessThan(30_000);
    stalled.destroy();
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
    const t0 = Date.now();
    await server?.close();
    server = undefined;
    expect(Date.now() - t0).toBeLessThan(10_000);
    await ended(events, 5_000);
    await ended(follow, 5_000);
  }, 30_000);
});
