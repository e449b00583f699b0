import { describe, expect, expectTypeOf, it } from 'vitest';
import { EDITOR_OPS, type EditorOp } from '../../src/editor/capabilities.js';
import { editorOps } from '../../src/editor/ops/index.js';
import { ENVELOPE_OPS } from '../../src/http/editor/routes.js';
import { EXECUTE_OPS, READ_OPS } from '../../src/mcp/tools.js';

describe('op names', () => {
  it('the op table holds exactly the ops the capabilities list', () => {
    expect(Object.keys(editorOps).sort()).toEqual([...EDITOR_OPS].sort());
    expectTypeOf<keyof typeof editorOps>().toEqualTypeOf<EditorOp>();
  });

  it('the envelope list names ops of the table', () => {
    const names: readonly string[] = EDITOR_OPS;
    for (const op of ENVELOPE_OPS) expect(names, op).toContain(op);
  });

  it('the MCP tools split the table: read takes every op that records nothing, execute every mutation', () => {
    expect([...READ_OPS, ...EXECUTE_OPS, 'capture'].sort()).toEqual([...EDITOR_OPS].sort());
    for (const op of EXECUTE_OPS) expect(editorOps[op].kind, op).toBe('mutation');
    for (const op of READ_OPS) expect(editorOps[op].kind, op).not.toBe('mutation');
  });
});
