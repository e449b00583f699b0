/**
 * Crash recovery, black-box: an editor on a LevelDB data dir takes changes over HTTP, is killed with
 * SIGKILL, and `chronicle editor --resume [SESSION]` must answer with every acknowledged change.
 */
import { rm } from 'node:fs/promises';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { editorEvent } from '../../../streams/editor.js';
import { assertBuilt, runCli, tempDir, withDataStore } from '../../cli/helpers.js';
import { arr, at, body, Client, type EditorServer, num, startEditor, str } from './helpers.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 30_000 });

beforeAll(() => assertBuilt());

let dataDir: string;
const running: EditorServer[] = [];

beforeEach(async () => {
  dataDir = await tempDir();
});

afterEach(async () => {
  for (const server of running.splice(0)) await server.stop();
  await rm(dataDir, { recursive: true, force: true });
});

async function editor(...extra: string[]): Promise<{ server: EditorServer; client: Client }> {
  const server = await startEditor(['--data', dataDir, ...extra]);
  running.push(server);
  return { server, client: new Client(server.port) };
}

async function killHard(server: EditorServer): Promise<void> {
  server.child.kill('SIGKILL');
  const ended = await server.done;
  expect(ended.signal).toBe('SIGKILL');
}

/** What a client can see of the session: documents, the active document's entities and layers. */
async function view(client: Client) {
  const state = body(await client.get('/api/v1/state'));
  const entities = body(await client.get('/api/v1/entities?detail=full'));
  const layers = body(await client.get('/api/v1/layers'));
  return {
    documents: arr(state, 'state.documents').map((d) => ({
      id: at(d, 'id'),
      title: at(d, 'title'),
      dirty: at(d, 'dirty'),
      revision: at(d, 'revision'),
    })),
    active: at(state, 'state.document_id'),
    entities: arr(entities, 'entities'),
    layers: arr(layers, 'result.layers')
      .map((l) => at(l, 'name'))
      .sort(),
  };
}

/**
 * Two documents (the blank drawing the editor starts with, and a new one), entities on a new layer, a
 * move, an erase, an undo: every answer acknowledged.
 */
async function makeChanges(client: Client): Promise<string[]> {
  const created = await client.post('/api/v1/entities', {
    entities: [
      { type: 'Line', start: [0, 0], end: [10, 0], layer: 'WALLS' },
      { type: 'Circle', center: [5, 5], radius: 2 },
      { type: 'Text', value: 'kept', position: [1, 1], height: 2.5 },
    ],
  });
  expect(created.status, created.text).toBe(201);
  const handles = arr(body(created), 'result.handles') as string[];
  const moved = await client.post('/api/v1/entities/transform', {
    handles: [handles[0]],
    action: 'move',
    vector: [1, 2],
  });
  expect(moved.status, moved.text).toBe(200);
  expect((await client.del(`/api/v1/entities?handles=${handles[1]}`)).status).toBe(200);
  expect((await client.post('/api/v1/undo')).status).toBe(200);
  // A second document, which stays the active one.
  expect((await client.post('/api/v1/documents', {})).status).toBe(201);
  const second = await client.post('/api/v1/entities', {
    entities: [{ type: 'Point', location: [3, 4], layer: 'MARKS' }],
  });
  expect(second.status, second.text).toBe(201);
  return handles;
}

describe('chronicle editor --resume', () => {
  it('after kill -9, reopens the last session with every acknowledged change, unsaved', async () => {
    const first = await editor();
    await makeChanges(first.client);
    const before = await view(first.client);
    const oldSession = str(body(await first.client.get('/api/v1/ready')), 'session_id');
    const firstDoc = before.documents[0]?.id as number;
    await first.client.post('/api/v1/activate', { document_id: firstDoc });
    const beforeFirst = await view(first.client);
    await first.client.post('/api/v1/activate', { document_id: before.active });
    await killHard(first.server);

    const second = await editor('--resume');
    expect(second.server.stderr()).toContain(`editor resumed session ${oldSession} at revision`);
    const newSession = str(body(await second.client.get('/api/v1/ready')), 'session_id');
    expect(newSession).not.toBe(oldSession);
    const after = await view(second.client);
    expect(after).toEqual(before);
    expect(after.documents.every((d) => d.dirty === true)).toBe(true);
    expect(after.layers).toContain('MARKS');
    await second.client.post('/api/v1/activate', { document_id: firstDoc });
    const afterFirst = await view(second.client);
    expect(afterFirst).toEqual(beforeFirst);
    expect(afterFirst.layers).toContain('WALLS');
    // The erase was undone before the crash: three entities, the line moved.
    expect(afterFirst.entities).toHaveLength(3);

    // The resumed session goes on: revisions continue, and it is resumable in its turn.
    const more = await second.client.post('/api/v1/entities', {
      entities: [{ type: 'Line', start: [0, 0], end: [1, 1] }],
    });
    expect(more.status, more.text).toBe(201);
    expect(num(body(await second.client.get('/api/v1/state')), 'state.revision')).toBe(
      (beforeFirst.documents[0]?.revision as number) + 1,
    );
    const third = view(second.client);
    const expected = await third;
    await killHard(second.server);
    const resumedAgain = await editor('--resume');
    expect(await view(resumedAgain.client)).toEqual(expected);
  });

  it('resumes a named session, not the last one', async () => {
    const a = await editor();
    await a.client.post('/api/v1/documents', {});
    await a.client.post('/api/v1/entities', { entities: [{ type: 'Circle', center: [0, 0], radius: 7 }] });
    const sessionA = str(body(await a.client.get('/api/v1/ready')), 'session_id');
    const viewA = await view(a.client);
    await killHard(a.server);

    const b = await editor();
    await b.client.post('/api/v1/documents', {});
    await b.client.post('/api/v1/entities', { entities: [{ type: 'Point', location: [1, 1] }] });
    const viewB = await view(b.client);
    await b.server.stop();

    const resumedA = await editor('--resume', sessionA);
    expect(await view(resumedA.client)).toEqual(viewA);
    await resumedA.server.stop();
    // Without an id: the last session with an event, here the one just stopped (resumed A).
    const last = await editor('--resume');
    expect(await view(last.client)).toEqual(viewA);
    expect(viewB.entities).not.toEqual(viewA.entities);
  });

  it('answers exit status 1 with one clear line when there is nothing to resume', async () => {
    const none = await runCli(['editor', '--http', '0', '--data', dataDir, '--resume']);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^chronicle editor: cannot resume: no editor session to resume in level:/m);

    const { server } = await editor();
    await server.stop();
    const unknown = await runCli(['editor', '--http', '0', '--data', dataDir, '--resume', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^chronicle editor: cannot resume: no editor session nope in level:/m);
  });

  it('refuses a session whose process still runs', async () => {
    // A session recorded as started by a process that is alive (this test's) and never ended.
    await withDataStore(dataDir, (store) =>
      store.append('editor-session-alive', [
        editorEvent('SessionStarted', { session_id: 'alive', version: 'test', pid: process.pid }),
      ]),
    );
    const refused = await runCli(['editor', '--http', '0', '--data', dataDir, '--resume', 'alive']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `chronicle editor: cannot resume: editor session alive is still running (process ${process.pid})`,
    );
  });

  it('refuses to resume into a data dir a running editor holds', async () => {
    await editor();
    const locked = await runCli(['editor', '--http', '0', '--data', dataDir, '--resume']);
    expect(locked.code).toBe(1);
    expect(locked.stderr).toMatch(/is in use by another process/);
  });
});
