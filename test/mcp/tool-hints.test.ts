/**
 * What the MCP tools tell a client before it runs one: which change nothing (readOnlyHint) and which
 * change the drawing (destructiveHint), the real maximum of a page (`limit`), and a `sessions` answer
 * that stays small however many documents are open (its documents paged).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpSession, okResult, startMcp, structured } from './helpers.js';

let mcp: McpSession;

beforeAll(async () => {
  mcp = await startMcp();
});

afterAll(async () => {
  await mcp?.close();
});

describe('tool annotations', () => {
  it('the six tools that change nothing say readOnlyHint; execute, undo and redo say destructiveHint', async () => {
    const { tools } = await mcp.client.listTools();
    const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    for (const name of ['sessions', 'read', 'capture', 'history', 'at', 'diff']) {
      expect(hints[name], name).toMatchObject({ readOnlyHint: true });
      expect(hints[name]?.destructiveHint, name).not.toBe(true);
    }
    for (const name of ['execute', 'undo', 'redo']) {
      expect(hints[name], name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    }
    expect(hints.read?.title).toBe('Read the drawing');
  });

  it("read's parameters.limit advertises the server's real maximum, 10,000, and it is the server's", async () => {
    const { tools } = await mcp.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    const props = (name: string) =>
      byName.get(name)?.inputSchema.properties as Record<string, Record<string, unknown>>;
    const parameters = props('read').parameters as { properties: Record<string, Record<string, unknown>> };
    expect(parameters.properties.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 10_000 });
    for (const name of ['at', 'history', 'diff']) expect(props(name).limit?.maximum, name).toBe(10_000);
    // The server takes the advertised maximum and refuses one more, in the tool's schema already.
    const most = await mcp.call('read', { op: 'query', parameters: { limit: 10_000 } });
    expect(most.isError, JSON.stringify(most.content)).toBeFalsy();
    const over = await mcp.call('read', { op: 'query', parameters: { limit: 10_001 } });
    expect(structured(over)).toMatchObject({ ok: false, code: 'invalid_arguments' });
  });
});

describe('sessions', () => {
  it('pages the documents of each session (limit, offset, documents_total)', async () => {
    for (let i = 0; i < 139; i++) {
      const made = await mcp.call('execute', { request: { op: 'new' } });
      expect(made.isError, JSON.stringify(made.content)).toBeFalsy();
    }
    const first = okResult(await mcp.call('sessions'));
    expect(first).toMatchObject({ documents_total: 140, offset: 0, limit: 50 });
    expect(first.documents as unknown[]).toHaveLength(50);
    const running = (first.sessions as Array<Record<string, unknown>>).find((s) => s.current);
    expect(running).toMatchObject({ documents_total: 140 });
    expect(running?.documents as unknown[]).toHaveLength(50);
    // Small enough for an agent's context however many documents are open.
    expect(JSON.stringify(first).length).toBeLessThan(24_000);
    // The active document is named whether or not it is on the page.
    expect(first.document_id).toBe(140);

    const last = okResult(await mcp.call('sessions', { offset: 130, limit: 20 }));
    const ids = (last.documents as Array<{ id: number }>).map((d) => d.id);
    expect(ids).toEqual(Array.from({ length: 10 }, (_, i) => 131 + i));
    expect(last).toMatchObject({ documents_total: 140, offset: 130, limit: 20 });

    const refused = await mcp.call('sessions', { limit: 1001 });
    expect(structured(refused)).toMatchObject({ ok: false, code: 'invalid_arguments' });
  });
});
