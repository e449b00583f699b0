/**
 * A step larger than the store's 4 MiB event limit, against the real CLI over a LevelDB data dir:
 * deleting 20,000 entities at once (~4.5 MB of changes, each erased entity kept whole for undo) is one
 * undo step recorded in several events. It answers like any delete, undoes and redoes as one step,
 * shows as one revision in the history, travels in time, and comes back whole from the log after a
 * crash. One change alone over the limit is refused with `too_large` and changes nothing.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { assertBuilt, tempDir } from '../../cli/helpers.js';
import {
  arr,
  body,
  Client,
  createEntities,
  type EditorServer,
  type Json,
  num,
  startEditor,
} from './helpers.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const COUNT = 20_000;
let dataDir: string;
const running: EditorServer[] = [];
let client: Client;
const handles: string[] = [];
let documentId = 0;

async function editor(...extra: string[]): Promise<Client> {
  const server = await startEditor(['--data', dataDir, ...extra]);
  running.push(server);
  return new Client(server.port);
}

const entityCount = async (c: Client) => num(body(await c.get('/api/v1/entities?limit=1')), 'count');
const revision = async (c: Client) => num(body(await c.get('/api/v1/state')), 'state.revision');

beforeAll(async () => {
  assertBuilt();
  dataDir = await tempDir();
  client = await editor();
  documentId = num(body(await client.post('/api/v1/documents')), 'document_id');
  for (let k = 0; k < COUNT; k += 1_000) {
    handles.push(
      ...(await createEntities(
        client,
        Array.from({ length: 1_000 }, (_, i) => ({
          type: 'Line',
          start: [i, k],
          end: [i + 1, k + 1],
          // A long layer name makes each erased entity bigger: the step is well over 4 MiB.
          layer: 'a layer with a rather long name for the erased entities',
        })),
      )),
    );
  }
});

afterAll(async () => {
  for (const server of running.splice(0)) await server.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('a step over the event size limit', () => {
  it('deletes 20,000 entities in one request, as one undo step', async () => {
    expect(handles).toHaveLength(COUNT);
    expect(await entityCount(client)).toBe(COUNT);
    const before = await revision(client);
    const deleted = await client.del('/api/v1/entities', { handles });
    expect(deleted.status, deleted.text.slice(0, 300)).toBe(200);
    expect(body(deleted)).toMatchObject({ ok: true, result: { erased: COUNT } });
    expect(await entityCount(client)).toBe(0);
    expect(await revision(client)).toBe(before + 1);

    // The log holds the step in parts: the step event and its continuations, in one write.
    const session = body(await client.get('/api/v1/ready')).session_id as string;
    const events = arr(
      body(await client.get(`/api/v1/sessions/${session}/events?limit=1000`)),
      'events',
    ) as Json[];
    const types = events.map((e) => e.type);
    const erased = types.indexOf('EntitiesErased');
    expect(erased).toBeGreaterThan(0);
    const continued = types.slice(erased + 1).filter((t) => t === 'StepContinued').length;
    expect(continued).toBeGreaterThanOrEqual(2);
    expect(types.slice(erased + 1, erased + 1 + continued).every((t) => t === 'StepContinued')).toBe(true);

    const undone = await client.post('/api/v1/undo');
    expect(undone.status).toBe(200);
    expect(body(undone)).toMatchObject({ result: { undone: 'entities_delete' } });
    expect(await entityCount(client)).toBe(COUNT);
    expect(await revision(client)).toBe(before + 2);
    const redone = await client.post('/api/v1/redo');
    expect(redone.status).toBe(200);
    expect(await entityCount(client)).toBe(0);
  });

  it('shows one revision in the history, with every handle, and travels to either side of it', async () => {
    const history = body(await client.get(`/api/v1/documents/${documentId}/history?limit=1000`));
    const rows = history.revisions as Json[];
    const step = rows.find((r) => r.op === 'entities_delete') as Json;
    expect(step).toMatchObject({ kind: 'step', undone_by: [(step.revision as number) + 1] });
    expect(new Set(step.handles as string[])).toEqual(new Set(handles));
    const at = async (rev: number) =>
      num(body(await client.get(`/api/v1/documents/${documentId}/at/${rev}/entities?limit=1`)), 'count');
    expect(await at((step.revision as number) - 1)).toBe(COUNT);
    expect(await at(step.revision as number)).toBe(0);
    expect(await at((step.revision as number) + 1)).toBe(COUNT);
    const diff = body(
      await client.get(
        `/api/v1/documents/${documentId}/diff?from=${(step.revision as number) - 1}&to=${step.revision}`,
      ),
    );
    expect(diff.counts).toMatchObject({ entities: { added: 0, removed: COUNT, changed: 0 } });
  });

  it('comes back whole from the log after a crash (--resume)', async () => {
    // Back to the 20,000: the state the log must give again.
    expect((await client.post('/api/v1/undo')).status).toBe(200);
    const server = running.pop() as EditorServer;
    server.child.kill('SIGKILL');
    await server.done;
    const resumed = await editor('--resume');
    const state = body(await resumed.get('/api/v1/state'));
    const docs = arr(state, 'state.documents') as Json[];
    expect(docs.map((d) => d.id)).toContain(documentId);
    expect(state).toMatchObject({ state: { document_id: documentId } });
    expect(await entityCount(resumed)).toBe(COUNT);
    client = resumed;
  });

  it('refuses one change over the limit with too_large, and records no change', async () => {
    const before = await revision(client);
    const count = await entityCount(client);
    // One polyline of 300,000 vertices: ~8 MB in one change, which no part can hold.
    const vertices = Array.from({ length: 300_000 }, (_, i) => [i, (i * 7) % 1000]);
    const answer = await client.post('/api/v1/entities', { entities: [{ type: 'LwPolyline', vertices }] });
    expect(answer.status).toBe(400);
    expect(body(answer)).toMatchObject({ ok: false, code: 'too_large' });
    expect(body(answer).error).toMatch(/over the limit of 4194304 bytes/);
    expect(await revision(client)).toBe(before);
    expect(await entityCount(client)).toBe(count);
    // The session goes on.
    expect((await createEntities(client, [{ type: 'Line', start: [0, 0], end: [1, 1] }])).length).toBe(1);
  });
});
