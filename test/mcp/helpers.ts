/**
 * The MCP SDK's own client over stdio against the built CLI (`chronicle editor --mcp ...`), and a raw
 * line reader of the same command's standard output for the tests about the bytes on it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { assertBuilt, cleanEnv, mainJs, repoRoot } from '../cli/helpers.js';

export interface McpSession {
  client: Client;
  /** What the server wrote on standard error so far. */
  stderr(): string;
  /** Errors the transport reported: a line on stdout that is no JSON-RPC message would be one. */
  transportErrors: Error[];
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** Starts `chronicle editor --mcp <args>` (default: on a memory store) and connects the SDK's client. */
export async function startMcp(args: readonly string[] = ['--store', 'memory:']): Promise<McpSession> {
  assertBuilt();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [mainJs, 'editor', '--mcp', ...args],
    cwd: repoRoot,
    env: cleanEnv() as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const transportErrors: Error[] = [];
  const client = new Client({ name: 'chronicle-tests', version: '1.0.0' });
  await client.connect(transport);
  // Set after connect: the client installs its own handler there and calls the one it found.
  const previous = transport.onerror;
  transport.onerror = (error) => {
    transportErrors.push(error);
    previous?.(error);
  };
  return {
    client,
    stderr: () => stderr,
    transportErrors,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: () => client.close(),
  };
}

/** The structured content of a tool result (its JSON answer). */
export const structured = (result: CallToolResult): Record<string, unknown> =>
  (result.structuredContent ?? {}) as Record<string, unknown>;

/** The structured content of a result that must have succeeded. */
export function okResult(result: CallToolResult): Record<string, unknown> {
  if (result.isError) throw new Error(`tool failed: ${JSON.stringify(result.content)}`);
  return structured(result);
}
