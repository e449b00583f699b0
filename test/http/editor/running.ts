/**
 * A slow request started in the background, and the wait until `GET /state` shows it running: the
 * tests of long operations (plot, capture, query) assert the order answers come in, never time.
 */
import { expect } from 'vitest';
import { type Answer, body, type Client } from './helpers.js';

export interface Started {
  /** True once the request has answered. */
  done: boolean;
  answer: Promise<Answer>;
}

/** Sends `method path` with `json`; `done` turns true when it answers. */
export function startCall(client: Client, method: 'GET' | 'POST', path: string, json?: unknown): Started {
  const started: Started = { done: false, answer: Promise.resolve(undefined as unknown as Answer) };
  started.answer = client.call(method, path, json === undefined ? {} : { json }).then((answer) => {
    started.done = true;
    return answer;
  });
  return started;
}

/**
 * Reads the state until it shows `op` running (true) — each read answered while the request runs —
 * or until the request has answered (false).
 */
export async function seenRunning(client: Client, started: Started, op: string): Promise<boolean> {
  while (!started.done) {
    const state = await client.get('/api/v1/state');
    expect(state.status, state.text).toBe(200);
    const operation = (body(state).state as { operation?: { op?: string; status?: string } | null })
      .operation;
    if (operation?.op === op && operation.status === 'running') return true;
  }
  return false;
}
