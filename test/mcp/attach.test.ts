/**
 * `chronicle editor --mcp --attach URL` against a running `chronicle editor --http`: one session for the
 * agent and the REST client (what one does, the other sees), captures and history through REST.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodePng, RED_LINE_CAPTURE, redLineProblem } from '../editor/capture/pixels.js';
import { body, Client, type EditorServer, startEditor } from '../http/editor/helpers.js';
import { type McpSession, okResult, startMcp, structured } from './helpers.js';

let editor: EditorServer;
let rest: Client;
let mcp: McpSession;

beforeAll(async () => {
  editor = await startEditor();
  rest = new Client(editor.port);
  mcp = await startMcp(['--attach', `http://127.0.0.1:${editor.port}`]);
});

afterAll(async () => {
  await mcp?.close();
  await editor?.stop();
});

describe('--attach', () => {
  it("drives the running editor's session: what the agent does shows over REST, and back", async () => {
    const state = body(await rest.get('/api/v1/state'));
    const sessions = okResult(await mcp.call('sessions'));
    expect(sessions).toMatchObject({
      connection: 'attached',
      url: `http://127.0.0.1:${editor.port}`,
      session_id: state.session_id,
      document_id: state.document_id,
    });

    const created = okResult(
      await mcp.call('execute', {
        request: {
          op: 'entities_create',
          request_id: 'attached-1',
          entities: [{ type: 'Line', start: [0, 0], end: [100, 0], color: 1 }],
        },
      }),
    );
    const [line] = (created.result as { handles: string[] }).handles;
    const listed = body(await rest.get('/api/v1/entities'));
    expect(listed).toMatchObject({ count: 1, entities: [{ handle: line, type: 'Line' }] });

    // The REST client's change, seen by the agent.
    const circle = body(
      await rest.post('/api/v1/entities', { entities: [{ type: 'Circle', center: [50, 20], radius: 5 }] }),
    );
    const query = okResult(await mcp.call('read', { op: 'query', parameters: { type: 'Circle' } }));
    expect(query).toMatchObject({
      count: 1,
      entities: [{ handle: (circle.result as { handles: string[] }).handles[0] }],
    });

    const shot = await mcp.call('capture', RED_LINE_CAPTURE);
    const part = shot.content.find((c) => c.type === 'image');
    if (part?.type !== 'image') throw new Error('no image');
    expect(redLineProblem(decodePng(Buffer.from(part.data, 'base64')))).toBeUndefined();

    // undo through the dispatcher with the agent's request_id; the REST state follows.
    expect(okResult(await mcp.call('undo', { request_id: 'attached-undo' }))).toMatchObject({ ok: true });
    expect(body(await rest.get('/api/v1/entities'))).toMatchObject({
      count: 1,
      entities: [{ handle: line }],
    });
    const history = okResult(await mcp.call('history'));
    expect((history.revisions as Array<{ request_id: string | null }>).map((r) => r.request_id)).toContain(
      'attached-undo',
    );
    expect(okResult(await mcp.call('diff'))).toMatchObject({ counts: { entities: { removed: 1 } } });
    expect(okResult(await mcp.call('at', { revision: 1 }))).toMatchObject({
      count: 1,
      entities: [{ handle: line }],
    });
    const stale = await mcp.call('execute', {
      request: { op: 'entities_delete', handles: [line], revision: 0 },
    });
    expect(structured(stale)).toMatchObject({ ok: false, code: 'stale_state' });
    const openapi = (await mcp.client.readResource({ uri: 'chronicle://editor/openapi' })).contents[0];
    expect(JSON.parse(String((openapi as { text: string }).text))).toMatchObject({ openapi: '3.0.3' });
    expect(mcp.transportErrors).toEqual([]);
  });
});
