/**
 * `chronicle editor --mcp` with the MCP SDK's own client over stdio: the tools and their schemas, the
 * resources, a scripted agent session (a line and a frame drawn, queried, captured and checked by
 * pixels, undone, diffed), idempotency and revision checks, every tool's bad arguments and failures as
 * tool errors with the protocol's code.
 */
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodePng, pixelsWhere, RED_LINE_CAPTURE, redLineProblem } from '../editor/capture/pixels.js';
import { type McpSession, okResult, startMcp, structured } from './helpers.js';

let mcp: McpSession;

beforeAll(async () => {
  mcp = await startMcp();
});

afterAll(async () => {
  await mcp?.close();
});

const green = ([r, g, b]: readonly number[]) =>
  (g as number) > (r as number) + 80 && (g as number) > (b as number) + 80;

/** The PNG of a capture tool result, decoded. */
function image(result: Awaited<ReturnType<McpSession['call']>>) {
  const part = result.content.find((c) => c.type === 'image');
  if (part?.type !== 'image') throw new Error(`no image: ${JSON.stringify(result.content).slice(0, 300)}`);
  expect(part.mimeType).toBe('image/png');
  return decodePng(Buffer.from(part.data, 'base64'));
}

describe('tools and resources', () => {
  it('lists the nine tools, each with a description and an object schema', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'sessions',
      'read',
      'execute',
      'capture',
      'history',
      'at',
      'diff',
      'undo',
      'redo',
    ]);
    for (const tool of tools) {
      expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(80);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema === undefined, tool.name).toBe(tool.name === 'capture');
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    const props = (name: string) =>
      byName.get(name)?.inputSchema.properties as Record<string, Record<string, unknown>>;
    const request = props('execute').request as { properties: Record<string, { enum: string[] }> };
    const executeOps = request.properties.op?.enum;
    expect(executeOps).toEqual(
      expect.arrayContaining(['entities_create', 'entities_transform', 'batch', 'undo', 'run']),
    );
    expect(executeOps).not.toContain('query');
    const readOps = props('read').op?.enum as string[];
    expect(readOps).toEqual(
      expect.arrayContaining([
        'state',
        'capabilities',
        'query',
        'xdata_get',
        'layers',
        'header',
        'records',
        'get_selection',
      ]),
    );
    expect(readOps).not.toContain('entities_create');
    expect(props('capture').width).toMatchObject({ type: 'integer', minimum: 256, maximum: 4096 });
    expect(byName.get('at')?.inputSchema.required).toEqual(['revision']);
  });

  it('offers the OpenAPI document and the capabilities as resources', async () => {
    const { resources } = await mcp.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([
      'chronicle://editor/openapi',
      'chronicle://editor/capabilities',
    ]);
    const read = async (uri: string) => {
      const [content] = (await mcp.client.readResource({ uri })).contents;
      expect(content?.mimeType).toBe('application/json');
      return JSON.parse(String((content as { text: string }).text)) as Record<string, unknown>;
    };
    const openapi = await read('chronicle://editor/openapi');
    expect(openapi.openapi).toBe('3.0.3');
    expect(Object.keys(openapi.paths as object)).toContain('/api/v1/capture');
    const capabilities = await read('chronicle://editor/capabilities');
    expect((capabilities.result as { ops: string[] }).ops).toContain('capture');
    await expect(mcp.client.readResource({ uri: 'chronicle://editor/nothing' })).rejects.toThrow(McpError);
  });
});

describe('a scripted agent session', () => {
  it('draws a line and a frame, queries, captures (pixels), undoes, diffs, reads history and the past', async () => {
    const sessions = okResult(await mcp.call('sessions'));
    expect(sessions).toMatchObject({ ok: true, connection: 'own', mode: 'headless' });
    expect((sessions.sessions as Array<{ current: boolean }>).filter((s) => s.current)).toHaveLength(1);
    const document = sessions.document_id as number;
    const start = sessions.revision as number;

    const line = okResult(
      await mcp.call('execute', {
        request: {
          op: 'entities_create',
          request_id: 'agent-line',
          revision: start,
          entities: [{ type: 'Line', start: [0, 0], end: [100, 0], color: 1 }],
        },
      }),
    );
    expect(line).toMatchObject({ ok: true, document_id: document, revision: start + 1 });
    const frameAnswer = okResult(
      await mcp.call('execute', {
        request: {
          op: 'batch',
          request_id: 'agent-frame',
          atomic: true,
          steps: [
            {
              op: 'entities_create',
              entities: [
                {
                  type: 'LwPolyline',
                  layer: 'FRAME',
                  color: 3,
                  closed: true,
                  vertices: [
                    [-10, -40],
                    [110, -40],
                    [110, 40],
                    [-10, 40],
                  ],
                },
              ],
            },
          ],
        },
        response_detail: 'changed_entities',
      }),
    );
    const [frame] = frameAnswer.entities as Array<{ handle: string; type: string }>;
    expect(frame).toMatchObject({ type: 'LwPolyline' });

    const query = okResult(await mcp.call('read', { op: 'query', parameters: { layer: 'FRAME' } }));
    expect(query).toMatchObject({ count: 1, entities: [{ handle: frame?.handle }] });
    expect(query.state).toBeUndefined();

    const shot = await mcp.call('capture', RED_LINE_CAPTURE);
    expect(shot.isError).toBeFalsy();
    const drawn = image(shot);
    expect(redLineProblem(drawn)).toBeUndefined();
    expect(pixelsWhere(drawn, green).length).toBeGreaterThan(300);
    const info = JSON.parse(String((shot.content.find((c) => c.type === 'text') as { text: string }).text));
    expect(info).toMatchObject({
      width: 256,
      height: 200,
      entities: 2,
      revision: start + 2,
      document_id: document,
    });

    const undone = okResult(await mcp.call('undo', { request_id: 'agent-undo' }));
    expect(undone).toMatchObject({
      ok: true,
      revision: start + 3,
      changes: [{ handle: frame?.handle, kind: 'erased' }],
    });
    const after = image(await mcp.call('capture', RED_LINE_CAPTURE));
    expect(redLineProblem(after)).toBeUndefined();
    expect(pixelsWhere(after, green)).toEqual([]);

    // diff without revisions: what the last step (the undo) did.
    const diff = okResult(await mcp.call('diff'));
    expect(diff).toMatchObject({
      from: start + 2,
      to: start + 3,
      counts: { entities: { added: 0, removed: 1 } },
    });
    expect(okResult(await mcp.call('diff', { from: start, to: start + 2 }))).toMatchObject({
      counts: { entities: { added: 2, removed: 0, changed: 0 } },
    });
    const history = okResult(await mcp.call('history'));
    const ops = (history.revisions as Array<{ op: string; request_id: string | null }>).map((r) => [
      r.op,
      r.request_id,
    ]);
    expect(ops).toEqual(
      expect.arrayContaining([
        ['entities_create', 'agent-line'],
        ['batch', 'agent-frame'],
        ['undo', 'agent-undo'],
      ]),
    );
    expect(history.revision).toBe(start + 3);
    const past = okResult(await mcp.call('at', { revision: start + 2, layer: 'FRAME' }));
    expect(past).toMatchObject({ revision: start + 2, count: 1, entities: [{ handle: frame?.handle }] });
    expect(okResult(await mcp.call('redo'))).toMatchObject({
      changes: [{ handle: frame?.handle, kind: 'created' }],
    });
    expect(okResult(await mcp.call('read', { op: 'query', parameters: { layer: 'FRAME' } })).count).toBe(1);
  });
});

describe('execute', () => {
  it('answers a retried request_id once, refuses a reused one and a stale revision', async () => {
    const count = async () => okResult(await mcp.call('read', { op: 'entities' }));
    const request = {
      op: 'entities_create',
      request_id: 'retry-1',
      entities: [{ type: 'Point', location: [5, 5] }],
    };
    const first = okResult(await mcp.call('execute', { request }));
    const before = await count();
    const second = okResult(await mcp.call('execute', { request }));
    expect(second.result).toEqual(first.result);
    expect(await count()).toEqual(before);
    const reused = await mcp.call('execute', {
      request: { ...request, entities: [{ type: 'Point', location: [6, 6] }] },
    });
    expect(reused.isError).toBe(true);
    expect(structured(reused)).toMatchObject({ ok: false, code: 'request_id_reused' });
    const stale = await mcp.call('execute', {
      request: { op: 'entities_create', revision: 0, entities: [{ type: 'Point', location: [1, 1] }] },
    });
    expect(structured(stale)).toMatchObject({ ok: false, code: 'stale_state' });
    expect(stale.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^stale_state: /) });
  });

  it('answers the state with response_detail full, and failures with their codes and fields', async () => {
    expect(
      okResult(await mcp.call('execute', { request: { op: 'select', clear: true }, response_detail: 'full' }))
        .state,
    ).toBeDefined();
    const absent = await mcp.call('execute', { request: { op: 'entities_delete', handles: ['FFFFF'] } });
    expect(structured(absent)).toMatchObject({ ok: false, code: 'entity_absent' });
    const batch = await mcp.call('execute', {
      request: {
        op: 'batch',
        steps: [
          { op: 'entities_create', entities: [{ type: 'Point', location: [9, 9] }] },
          { op: 'entities_delete', handles: ['FFFFF'] },
        ],
      },
    });
    expect(structured(batch)).toMatchObject({
      ok: false,
      code: 'entity_absent',
      completed_steps: 1,
      next_step: 1,
    });
  });
});

describe('bad arguments and failures', () => {
  it('every tool refuses bad arguments as invalid_arguments, saying what is wrong', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['sessions', { verbose: true }, /verbose/],
      ['read', {}, /op/],
      ['read', { op: 'entities_create' }, /changes the session: call execute/],
      ['read', { op: 'query', parameters: 'layer=0' }, /parameters/],
      ['execute', {}, /request/],
      ['execute', { request: { op: 'query' } }, /is a read: call read/],
      ['execute', { request: { op: 'capture' } }, /call capture/],
      ['execute', { request: { op: 'entities_create', request_id: '' } }, /request_id/],
      ['execute', { request: { op: 'undo' }, response_detail: 'everything' }, /response_detail/],
      ['capture', { width: 100 }, /width/],
      ['capture', { window: [0, 0, 1] }, /window/],
      ['history', { limit: 0 }, /limit/],
      ['at', {}, /revision/],
      ['at', { revision: -1 }, /revision/],
      ['diff', { from: 'one' }, /from/],
      ['undo', { document_id: 'first' }, /document_id/],
      ['redo', { request_id: 7 }, /request_id/],
    ];
    for (const [tool, args, message] of cases) {
      const result = await mcp.call(tool, args);
      expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      const answer = structured(result);
      expect(answer, tool).toMatchObject({ ok: false, code: 'invalid_arguments' });
      expect(String(answer.error), tool).toMatch(message);
    }
    await expect(mcp.call('draw', {})).rejects.toThrow(/no tool "draw"/);
  });

  it("answers the editor's failures as tool errors with its code", async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['read', { op: 'operation', parameters: { request_id: 'never-sent' } }, 'unknown_operation'],
      ['execute', { request: { op: 'entities_create', entities: [] } }, 'entities_required'],
      ['capture', { layout: 'Nowhere' }, 'layout_missing'],
      ['capture', { background: 'plaid' }, 'invalid_background'],
      ['capture', { document_id: 42 }, 'document_closed'],
      ['history', { document_id: 42 }, 'document_absent'],
      ['history', { session_id: 'no-such-session' }, 'session_absent'],
      ['at', { revision: 99_999 }, 'revision_absent'],
      ['diff', { from: 0, to: 99_999 }, 'revision_absent'],
      ['undo', { revision: 0 }, 'stale_state'],
      ['redo', {}, 'nothing_to_redo'],
    ];
    for (const [tool, args, code] of cases) {
      const result = await mcp.call(tool, args);
      expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(structured(result), tool).toMatchObject({ ok: false, code });
    }
    // Nothing above was a malformed message on stdout.
    expect(mcp.transportErrors).toEqual([]);
  });
});
