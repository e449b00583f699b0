/**
 * The editor's MCP server (the official SDK's `Server`): the tools of tools.ts and two resources, the
 * REST surface's OpenAPI document and the capabilities. The low-level server rather than `McpServer`:
 * arguments are checked here, so bad ones are tool errors with the protocol's `code`
 * (`invalid_arguments`) like every other failure, not the SDK's own text.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { isEditorOp } from '../editor/capabilities.js';
import { version } from '../version.js';
import type { EditorBackend } from './backend.js';
import { EXECUTE_OPS, failure, READ_OPS, TOOLS, type ToolResult } from './tools.js';

const OPENAPI_URI = 'chronicle://editor/openapi';
const CAPABILITIES_URI = 'chronicle://editor/capabilities';

const INSTRUCTIONS = `chronicle's CAD editor: every change is an event, so you can see what you changed, go back and compare.
Flow: call sessions (the active document_id and its revision), read (state, query...) what is there, execute a mutation with your own request_id (a retry with it never runs twice) and the revision you read (stale_state if the drawing moved on), capture to look at the result, history and diff to see what each step did, at to read an earlier revision, undo and redo to go back and forth.
Failures are tool errors whose structured content has the editor's code and message (e.g. entity_absent, invalid_point, stale_state, invalid_arguments).`;

/** A JSON Schema for the tools list: the zod schema's, without the draft marker clients do not need. */
function jsonSchema(schema: z.ZodType): { type: 'object'; [key: string]: unknown } {
  const { $schema: _draft, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return { ...rest, type: 'object' };
}

const OUTPUT_SCHEMA = {
  type: 'object' as const,
  properties: {
    ok: { type: 'boolean', description: 'true: the answer; false: code and error say why' },
    code: { type: 'string' },
    error: { type: 'string' },
  },
  required: ['ok'],
};

/** zod's complaints as one line: `request.op: Invalid option: ...; width: Too big...`. */
const issuesText = (error: z.ZodError) =>
  error.issues
    .map((issue) => `${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`)
    .join('; ');

/** A hint for an op sent to the wrong tool, which the schema's list of ops alone answers unhelpfully. */
function misplacedOp(tool: string, args: unknown): string | undefined {
  const op =
    tool === 'execute'
      ? (args as { request?: { op?: unknown } } | undefined)?.request?.op
      : (args as { op?: unknown } | undefined)?.op;
  if (!isEditorOp(op)) return undefined;
  if (op === 'capture') return 'capture has a tool of its own: call capture';
  if (tool === 'read' && EXECUTE_OPS.includes(op)) return `${op} changes the session: call execute`;
  if (tool === 'execute' && READ_OPS.includes(op)) return `${op} is a read: call read`;
  return undefined;
}

export function editorMcpServer(backend: EditorBackend): Server {
  const server = new Server(
    { name: 'chronicle', title: 'chronicle CAD editor', version },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: jsonSchema(tool.input),
      annotations: { title: tool.title, ...tool.annotations },
      ...(tool.structured ? { outputSchema: OUTPUT_SCHEMA } : {}),
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<ToolResult> => {
    const tool = TOOLS.find((t) => t.name === request.params.name);
    if (!tool) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `no tool ${JSON.stringify(request.params.name)}; tools: ${TOOLS.map((t) => t.name).join(', ')}`,
      );
    }
    const parsed = tool.input.safeParse(request.params.arguments ?? {});
    if (!parsed.success) {
      const hint = misplacedOp(tool.name, request.params.arguments);
      return failure('invalid_arguments', `${tool.name}: ${hint ?? issuesText(parsed.error)}`);
    }
    try {
      return await tool.run(parsed.data as Record<string, unknown>, backend);
    } catch (error) {
      process.stderr.write(`editor mcp: ${tool.name} failed: ${(error as Error).stack ?? String(error)}\n`);
      return failure('internal_error', error instanceof Error ? error.message : String(error));
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [
      {
        uri: OPENAPI_URI,
        name: 'openapi',
        title: "The editor's REST API (OpenAPI 3.0.3)",
        mimeType: 'application/json',
      },
      {
        uri: CAPABILITIES_URI,
        name: 'capabilities',
        title: 'What the editor offers: ops, entity types, query operators, limits',
        mimeType: 'application/json',
      },
    ],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    let value: unknown;
    if (uri === OPENAPI_URI) value = await backend.openapi();
    else if (uri === CAPABILITIES_URI) {
      const answer = await backend.dispatch({ protocol: 1, op: 'capabilities' });
      if (!answer.ok) throw new McpError(ErrorCode.InternalError, `${answer.code}: ${answer.error}`);
      const { state: _state, ...capabilities } = answer;
      value = capabilities;
    } else throw new McpError(ErrorCode.InvalidParams, `no resource ${uri}`);
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value) }] };
  });
  return server;
}
