import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseSync } from 'oxc-parser';
import { EDITOR_ERRORS, type EditorErrorCode, isEditorErrorCode } from '../../src/editor/errors.js';
import { isStacksErrorCode, STACKS_ERRORS, type StacksErrorCode } from '../../src/stacks/errors.js';

/**
 * The tables of docs/ that are read from the code rather than written by hand: the event catalog of
 * docs/architecture.md and the error codes of docs/errors.md. They are read from the source's syntax
 * (oxc-parser), so a page is current exactly when rendering it again gives the same text.
 */

// oxc's tree is ESTree; only the fields read here are named, the rest is walked generically.
interface Node {
  type: string;
  start: number;
  end: number;
  [field: string]: unknown;
}

/** The name of a property's key; undefined for a spread or a computed key. */
const keyName = (property: Node): string | undefined => (property.key as { name?: string } | undefined)?.name;

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && typeof (value as Node).type === 'string';

function walk(
  node: unknown,
  visit: (node: Node, parents: readonly Node[]) => void,
  parents: Node[] = [],
): void {
  if (Array.isArray(node)) {
    for (const child of node) walk(child, visit, parents);
    return;
  }
  if (!isNode(node)) return;
  visit(node, parents);
  parents.push(node);
  for (const [key, child] of Object.entries(node)) if (key !== 'type') walk(child, visit, parents);
  parents.pop();
}

interface Parsed {
  file: string;
  source: string;
  program: Node;
  comments: readonly { type: string; value: string; start: number; end: number }[];
}

function parse(root: string, file: string): Parsed {
  const source = readFileSync(join(root, file), 'utf8');
  const { program, comments, errors } = parseSync(file, source);
  if (errors.length > 0) throw new Error(`${file}: ${errors[0]?.message}`);
  return { file, source, program: program as unknown as Node, comments };
}

function filesUnder(root: string, folder: string, keep: (file: string) => boolean): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .filter(keep)
    .sort();
}

/** The first sentence of a JSDoc block, on one line. */
function firstSentence(doc: string): string {
  const text = doc
    .split('\n')
    .map((line) => line.replace(/^\s*\*+ ?/, '').trim())
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  const end = text.search(/\.(\s|$)/);
  return (end === -1 ? text : text.slice(0, end + 1)).replace(/\|/g, '\\|');
}

/** The JSDoc block that ends right before `start` (only white space between), if any. */
function docBefore(parsed: Parsed, start: number): string | undefined {
  const comment = parsed.comments.findLast((c) => c.end <= start);
  if (comment?.type !== 'Block' || !comment.value.startsWith('*')) return undefined;
  if (parsed.source.slice(comment.end, start).trim() !== '') return undefined;
  return comment.value.slice(1);
}

export interface EventEntry {
  type: string;
  fields: string[];
  meaning: string;
}

/** The members of `interface <name>` in a catalog file: each event type, its payload's fields, its doc. */
function eventMap(parsed: Parsed, name: string): EventEntry[] {
  const entries: EventEntry[] = [];
  walk(parsed.program, (node) => {
    if (node.type !== 'TSInterfaceDeclaration' || (node.id as Node & { name: string }).name !== name) return;
    for (const member of (node.body as Node & { body: Node[] }).body) {
      const key = member.key as Node & { name: string };
      const annotation = (member.typeAnnotation as Node).typeAnnotation as Node;
      const fields: string[] = [];
      walk(annotation, (inner, parents) => {
        // The payload's own top-level fields: property signatures not nested in another type literal.
        if (inner.type !== 'TSPropertySignature') return;
        if (parents.filter((p) => p.type === 'TSTypeLiteral').length > 1) return;
        fields.push((inner.key as Node & { name: string }).name);
      });
      if (annotation.type === 'TSTypeReference' || annotation.type === 'TSIntersectionType') {
        const referenced = parsed.source.slice(annotation.start, annotation.end).match(/\b[A-Z]\w+/g) ?? [];
        for (const type of referenced) fields.unshift(`…${type}`);
      }
      const doc = docBefore(parsed, member.start);
      entries.push({ type: key.name, fields, meaning: doc === undefined ? '' : firstSentence(doc) });
    }
  });
  return entries;
}

const CATALOGS = [
  {
    file: 'streams/editor.ts',
    map: 'EditorEventMap',
    title: 'Editor events',
    streams: 'editor-session-<session id>',
  },
  {
    file: 'streams/stacks.ts',
    map: 'StacksEventMap',
    title: 'Stacks events',
    streams:
      'stack-…, stack-job-…, deploy-run-…, key-…, schedule-execution-… and the others of streams/stacks.ts',
  },
] as const;

/** The event catalog section of docs/architecture.md. */
export function renderEventCatalog(root: string): string {
  const parts = [
    'Generated from `streams/editor.ts` and `streams/stacks.ts` (`npm run docs` writes it again; a test',
    'fails when it is not current). Fields starting with `…` are those of a shared payload type.',
  ];
  for (const catalog of CATALOGS) {
    const entries = eventMap(parse(root, catalog.file), catalog.map);
    parts.push(
      '',
      `### ${catalog.title}`,
      '',
      `${entries.length} types, in \`${catalog.map}\` (\`${catalog.file}\`); streams: ${catalog.streams}.`,
      '',
      '| Type | Fields | What it records |',
      '|---|---|---|',
      ...entries.map(
        (e) => `| \`${e.type}\` | ${e.fields.map((f) => `\`${f}\``).join(', ')} | ${e.meaning} |`,
      ),
    );
  }
  parts.push(
    '',
    '### System events',
    '',
    '| Type | Fields | What it records |',
    '|---|---|---|',
    '| `StreamDeleted` | `stream`, `lastRevision` | Appended to `$streams` by `deleteStream` in the same batch that removes the stream (`streams/system.ts`). |',
  );
  return parts.join('\n');
}

/** One place a code is raised: the file and the message it gives (its `${…}` parts as `…`). */
interface Raised {
  code: string;
  file: string;
  message: string;
  /** The status the place answers with itself (`failure(500, 'internal_error', …)`); else the code's. */
  status?: number;
}

function textOf(parsed: Parsed, node: Node | undefined): string | undefined {
  if (!node) return undefined;
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type === 'TemplateLiteral') {
    const quasis = node.quasis as Array<Node & { value: { cooked: string } }>;
    return quasis.map((q) => q.value.cooked).join('…');
  }
  if (node.type === 'BinaryExpression' && node.operator === '+') {
    const left = textOf(parsed, node.left as Node);
    const right = textOf(parsed, node.right as Node);
    return `${left ?? '…'}${right ?? '…'}`;
  }
  return undefined;
}

const CODE = /^[a-z]+(_[a-z0-9]+)+$|^(busy|cancelled)$/;

/** The string values a template's `${name}` takes, when `name` is typed as a union of literals or `keyof typeof X`. */
function literalValues(parsed: Parsed, name: string): string[] {
  const values: string[] = [];
  walk(parsed.program, (node) => {
    if (node.type !== 'Identifier' || node.name !== name || !node.typeAnnotation) return;
    const type = (node.typeAnnotation as Node).typeAnnotation as Node;
    walk(type, (inner) => {
      if (inner.type === 'TSLiteralType') {
        const literal = inner.literal as Node;
        if (typeof literal.value === 'string') values.push(literal.value);
      }
      if (inner.type === 'TSTypeQuery') {
        const target = (inner.exprName as Node & { name: string }).name;
        walk(parsed.program, (decl) => {
          if (decl.type !== 'VariableDeclarator' || (decl.id as Node & { name?: string }).name !== target)
            return;
          let init = decl.init as Node;
          if (init.type === 'TSAsExpression') init = init.expression as Node;
          for (const property of (init.properties as Node[]) ?? [])
            values.push((property.key as Node & { name: string }).name);
        });
      }
    });
  });
  return [...new Set(values)];
}

/** The codes a code argument stands for: a literal, or a template over literal-typed names. */
function codesOf(parsed: Parsed, node: Node | undefined): string[] {
  if (!node) return [];
  if (node.type === 'Literal' && typeof node.value === 'string')
    return CODE.test(node.value) ? [node.value] : [];
  // `undo ? 'nothing_to_undo' : 'nothing_to_redo'`: either branch.
  if (node.type === 'ConditionalExpression')
    return [...codesOf(parsed, node.consequent as Node), ...codesOf(parsed, node.alternate as Node)];
  if (node.type !== 'TemplateLiteral') return [];
  const quasis = (node.quasis as Array<Node & { value: { cooked: string } }>).map((q) => q.value.cooked);
  const expressions = node.expressions as Node[];
  let codes = [quasis[0] ?? ''];
  for (const [i, expression] of expressions.entries()) {
    if (expression.type !== 'Identifier') return [];
    const values = literalValues(parsed, expression.name as string);
    if (values.length === 0) return [];
    codes = codes.flatMap((code) => values.map((value) => `${code}${value}${quasis[i + 1] ?? ''}`));
  }
  return codes.filter((code) => CODE.test(code));
}

/** The class a node is in (its name and the class it extends), from the node's parents. */
function classOf(parents: readonly Node[]): { name: string; extends: string | undefined } | undefined {
  const found = parents.findLast((p) => p.type === 'ClassDeclaration' || p.type === 'ClassExpression');
  const name = (found?.id as { name?: string } | null | undefined)?.name;
  if (!found || !name) return undefined;
  return { name, extends: (found.superClass as { name?: string } | null)?.name };
}

/** The texts a file's variables are declared with (`const message = `…``), by name. */
function localTexts(p: Parsed): Map<string, string> {
  const texts = new Map<string, string>();
  walk(p.program, (node) => {
    if (node.type !== 'VariableDeclarator') return;
    const name = (node.id as { name?: string }).name;
    const text = textOf(p, node.init as Node | undefined);
    if (name && text !== undefined) texts.set(name, text);
  });
  return texts;
}

/** Where a function that raises a code takes it, and the status it is given, if it takes one. */
interface Taker {
  code: number;
  status?: number;
}

/** Functions of a file that take a parameter named `code`: their name and where they take it. */
function codeTakers(parsed: Parsed, takers: Map<string, Taker>): void {
  walk(parsed.program, (node, parents) => {
    const isFunction = ['FunctionDeclaration', 'ArrowFunctionExpression', 'FunctionExpression'].includes(
      node.type,
    );
    if (!isFunction) return;
    let name = (node.id as (Node & { name: string }) | null)?.name;
    const parent = parents.at(-1);
    if (!name && parent?.type === 'VariableDeclarator') name = (parent.id as Node & { name: string }).name;
    // A class's constructor: `new TheClass(code, …)`.
    if (!name && parent?.type === 'MethodDefinition' && parent.kind === 'constructor')
      name = classOf(parents)?.name;
    if (!name) return;
    const names = (node.params as Node[]).map(
      (param) => ((param.type === 'AssignmentPattern' ? param.left : param) as Node & { name?: string }).name,
    );
    const code = names.indexOf('code');
    const status = names.indexOf('status');
    if (code !== -1) takers.set(name, status === -1 ? { code } : { code, status });
  });
}

/** Every editor error code the code raises, with where and the message it gives. */
function editorCodes(root: string): Raised[] {
  const files = [
    ...filesUnder(root, 'src/editor', () => true),
    ...filesUnder(root, 'src/http', (f) => /^src\/http\/(editor|viewer)\//.test(f)),
    ...filesUnder(root, 'src/mcp', () => true),
  ];
  const parsed = files.map((file) => parse(root, file));
  const takers = new Map<string, Taker>([['EditorError', { code: 0 }]]);
  for (const p of parsed) codeTakers(p, takers);
  const raised: Raised[] = [];
  for (const p of parsed) {
    const texts = localTexts(p);
    const messageOf = (node: Node | undefined) =>
      node?.type === 'Identifier' ? texts.get(node.name as string) : textOf(p, node);
    walk(p.program, (node, parents) => {
      if (node.type === 'TSTypeAliasDeclaration' && /ErrorCode$/.test((node.id as { name: string }).name)) {
        // A union of the codes an error class takes: each is a code of the surface.
        walk(node.typeAnnotation, (inner) => {
          const literal = inner.type === 'TSLiteralType' ? (inner.literal as Node) : undefined;
          if (typeof literal?.value === 'string' && CODE.test(literal.value))
            raised.push({ code: literal.value, file: p.file, message: '' });
        });
      }
      if (node.type === 'CallExpression' || node.type === 'NewExpression') {
        const callee = node.callee as Node & { name?: string; property?: Node & { name?: string } };
        // `super(code, …)` in a class extending one that takes a code.
        const name =
          callee.type === 'Super' ? classOf(parents)?.extends : (callee.name ?? callee.property?.name);
        const taker = name === undefined ? undefined : takers.get(name);
        if (taker === undefined) return;
        const args = node.arguments as Node[];
        const message = args.slice(taker.code + 1).find((a) => messageOf(a) !== undefined);
        const status = taker.status === undefined ? undefined : numberOf(args[taker.status]);
        for (const code of codesOf(p, args[taker.code]))
          raised.push({
            code,
            file: p.file,
            message: messageOf(message) ?? '',
            ...(status ? { status } : {}),
          });
      }
      if (node.type === 'AssignmentPattern') {
        const left = node.left as Node & { name?: string };
        if (left.name === 'code')
          for (const code of codesOf(p, node.right as Node)) raised.push({ code, file: p.file, message: '' });
      }
      if (node.type === 'ObjectExpression') {
        const properties = (node.properties as Node[]).filter((q) => q.type === 'Property');
        const code = properties.find((q) => keyName(q) === 'code');
        if (!code) return;
        const message = properties.find((q) => ['error', 'message'].includes(keyName(q) ?? ''));
        const status = explicitStatus(node, parents);
        for (const value of codesOf(p, code.value as Node))
          raised.push({
            code: value,
            file: p.file,
            message: messageOf(message?.value as Node) ?? '',
            ...(status ? { status } : {}),
          });
      }
    });
  }
  return raised;
}

const numberOf = (node: Node | undefined) =>
  node?.type === 'Literal' && typeof node.value === 'number' ? node.value : undefined;

/**
 * The status a failure body is sent with where it is made: `jsonBody(500, { code })`,
 * `{ status: 500, body: { code } }` or its own `http_status`. Undefined when the code's status decides.
 */
function explicitStatus(body: Node, parents: readonly Node[]): number | undefined {
  // A body that carries its own `http_status: 415` (the viewer's `reply.code(415).send({ … })`).
  const own = (body.properties as Node[]).find((q) => keyName(q) === 'http_status');
  const carried = numberOf(own?.value as Node | undefined);
  if (carried !== undefined) return carried;
  const parent = parents.at(-1);
  if (parent?.type === 'CallExpression') {
    const args = parent.arguments as Node[];
    if (args[1] === body) return numberOf(args[0]);
  }
  const holder = parents.at(-2);
  if (parent?.type === 'Property' && holder?.type === 'ObjectExpression') {
    const status = (holder.properties as Node[]).find((q) => keyName(q) === 'status');
    return numberOf(status?.value as Node | undefined);
  }
  return undefined;
}

/**
 * A stacks failure the code raises: its status, message (or code) and file, and the code of the
 * catalogue it is raised with (none for an answer a route sends itself). `forwarded` when the message is
 * a parameter of a helper (its callers say it): the code is counted, the message is not.
 */
type StacksRaised = Raised & { status: number; forwarded?: boolean };

/** Every stacks failure the code raises: its status, message (or code), code and file. */
function stacksFailures(root: string): StacksRaised[] {
  const files = [
    ...filesUnder(root, 'src/stacks', () => true),
    ...filesUnder(root, 'src/http', (f) => /^src\/http\/(stacks\/|sse\/stream-budget)/.test(f)),
  ];
  const parsed = files.map((file) => parse(root, file));
  // Messages held in constants (`conflict(STACK_BUSY_MESSAGE)`): every string constant of these files.
  // A local one (`const taken = `…`; throw new StacksError(429, taken)`) of the file itself.
  const constants = new Map<string, string>();
  const locals = new Map<string, Map<string, string>>();
  for (const p of parsed) {
    const own = localTexts(p);
    locals.set(p.file, own);
    for (const [name, text] of own) if (/^[A-Z][A-Z0-9_]+$/.test(name)) constants.set(name, text);
  }
  const textOrConstant = (p: Parsed, node: Node | undefined) => {
    if (node?.type !== 'Identifier') return textOf(p, node);
    const name = node.name as string;
    return locals.get(p.file)?.get(name) ?? constants.get(name);
  };
  const found: StacksRaised[] = [];
  for (const p of parsed) {
    const file = p.file;
    walk(p.program, (node, parents) => {
      if (node.type !== 'CallExpression' && node.type !== 'NewExpression') return;
      const callee = node.callee as Node & {
        name?: string;
        property?: Node & { name?: string };
        object?: Node;
      };
      const args = node.arguments as Node[];
      const name = callee.name ?? callee.property?.name;
      let status: number | undefined;
      let message: string | undefined;
      let code = '';
      if (node.type === 'NewExpression' && name === 'StacksError') {
        // `new StacksError(code, message)`: the status is the catalogue's for the code.
        code = textOrConstant(p, args[0]) ?? '';
        if (!isStacksErrorCode(code))
          throw new Error(`${file}: a StacksError with a code not in STACKS_ERRORS`);
        status = STACKS_ERRORS[code].status;
        message = textOrConstant(p, args[1]);
      } else if (name === 'send' && callee.object?.type === 'CallExpression') {
        // reply.code(N).send({ error: '…' })
        const inner = callee.object as Node & {
          callee: Node & { property?: Node & { name?: string } };
          arguments: Node[];
        };
        const body = args[0];
        if (inner.callee.property?.name !== 'code' || body?.type !== 'ObjectExpression') return;
        const error = (body.properties as Node[]).find((q) => keyName(q) === 'error');
        if (!error) return;
        // `reply.code(statusOf('code'))`: the catalogue's status for the code; or a status of its own.
        const given = inner.arguments[0] as Node & { callee?: Node & { name?: string }; arguments?: Node[] };
        const named = given.callee?.name === 'statusOf' ? textOf(p, given.arguments?.[0]) : undefined;
        if (named !== undefined) {
          if (!isStacksErrorCode(named)) throw new Error(`${file}: statusOf of a code not in STACKS_ERRORS`);
          code = named;
          status = STACKS_ERRORS[named].status;
        } else status = given.value as number;
        message = textOrConstant(p, error.value as Node);
      }
      if (typeof status !== 'number' || status < 400) return;
      // A helper handing its own parameter on (`badRequest = (message) => new StacksError(400, message)`)
      // raises nothing itself: its callers are counted.
      const forwarded = message === undefined && forwardsParameter(node, parents);
      found.push({ status, code, file, message: message ?? '… (made at run time)', forwarded });
    });
  }
  return found;
}

/** Whether a call's message argument is a parameter of the function the call is in. */
function forwardsParameter(call: Node, parents: readonly Node[]): boolean {
  const args = call.arguments as Node[];
  const named = args.filter((a) => a.type === 'Identifier').map((a) => a.name as string);
  const fn = parents.findLast((p) =>
    ['FunctionDeclaration', 'ArrowFunctionExpression', 'FunctionExpression'].includes(p.type),
  );
  if (!fn) return false;
  const params = (fn.params as Node[]).map(
    (q) => ((q.type === 'AssignmentPattern' ? q.left : q) as Node).name,
  );
  return named.some((name) => params.includes(name));
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ').replace(/`/g, "'");

/** docs/errors.md. */
export function renderErrorsPage(root: string): string {
  const raised = editorCodes(root);
  // Codes in answer bodies made as object literals are not typed by the catalogue: a code found in the
  // source that the catalogue lacks fails here rather than reaching a page (or a client) unlisted.
  const unlisted = [...new Set(raised.map((r) => r.code))].filter((code) => !isEditorErrorCode(code));
  if (unlisted.length > 0) throw new Error(`codes raised but not in EDITOR_ERRORS: ${unlisted.join(', ')}`);
  const codes = (Object.keys(EDITOR_ERRORS) as EditorErrorCode[]).sort();
  const editorRows = codes.map((code) => {
    const where = raised.filter((r) => r.code === code);
    const files = [...new Set(where.map((r) => r.file))];
    const { status: listed, meaning } = EDITOR_ERRORS[code];
    const answered = [listed, ...where.map((r) => r.status ?? listed)];
    const status = [...new Set(answered)].sort((a, b) => a - b).join(', ');
    return `| \`${code}\` | ${status} | ${cell(meaning)} | ${files.map((f) => `\`${f}\``).join(', ')} |`;
  });
  const raisedStacks = stacksFailures(root);
  const failures = raisedStacks.filter((f) => !f.forwarded);
  const stacksCodes = (Object.keys(STACKS_ERRORS) as StacksErrorCode[]).sort();
  const stacksCodeRows = stacksCodes.map((code) => {
    const files = [...new Set(raisedStacks.filter((f) => f.code === code).map((f) => f.file))];
    const { status, meaning } = STACKS_ERRORS[code];
    return `| \`${code}\` | ${status} | ${cell(meaning)} | ${files.map((f) => `\`${f}\``).join(', ')} |`;
  });
  const statuses = [...new Set(failures.map((f) => f.status))].sort((a, b) => a - b);
  const stacksRows = statuses.flatMap((status) => {
    const messages = new Map<string, Set<string>>();
    for (const f of failures.filter((x) => x.status === status)) {
      const files = messages.get(f.message) ?? new Set<string>();
      files.add(f.file);
      messages.set(f.message, files);
    }
    return [...messages]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(
        ([message, files]) =>
          `| ${status} | ${cell(message)} | ${[...files].map((f) => `\`${f}\``).join(', ')} |`,
      );
  });
  return `${[
    '# Errors',
    '',
    '<!-- Generated from the source by test/docs/catalog.ts: `npm run docs` writes it again, and',
    'test/docs/generated.test.ts fails when it is not current. Do not edit by hand. -->',
    '',
    'Every failure each surface answers, read from the code as it is. Where a failure is explained at',
    'length: [editor](editor.md), [stacks](stacks.md), [security](security.md), [operations](operations.md).',
    '',
    '## The editor',
    '',
    'A failure is `{"ok": false, "code", "error", ...}` (the MCP server answers the same `code` and message',
    'as a tool error). The codes are those of the catalogue `EDITOR_ERRORS` in `src/editor/errors.ts`,',
    'each with its HTTP status and meaning: `EditorError` takes only its codes, the status of an answer is',
    'looked up there (there is no default status), and the OpenAPI document lists them (the `code` of its',
    "`Answer` schema). A few places answer with a status of their own (the transport's `internal_error` is",
    '500), so a code may have two. "Where" names the files that raise it; the answer\'s `error` says what',
    'was wrong with the request.',
    '',
    `${codes.length} codes.`,
    '',
    '| Code | Status | Meaning | Where |',
    '|---|---|---|---|',
    ...editorRows,
    '',
    '## The stacks service',
    '',
    'A failure is `{"error": "<message>"}` with its status, and beside it for some the fields they name',
    '(`compose_changed`: `message`, `composeHash`; `store_failed`: `message`, `reason`). Each failure kind',
    'has a code of the catalogue `STACKS_ERRORS` in `src/stacks/errors.ts`, with its HTTP status and',
    'meaning: `StacksError` takes only its codes, its status is looked up there (there is no default status),',
    'and the OpenAPI document lists them by status. The code is not in the answer, except where it is the',
    "message itself (`compose_changed`, `store_failed`). A request that does not fit its route's schema is a",
    "400 in the schema's words (`src/http/stacks/api/`). The transport's own answers: 408 for a request that",
    'does not arrive in time, 413 for a body past its limit, 415 for a body that is not JSON',
    '([limits](security.md#limits-and-their-defaults)).',
    '',
    `${stacksCodes.length} codes.`,
    '',
    '| Code | Status | Meaning | Where |',
    '|---|---|---|---|',
    ...stacksCodeRows,
    '',
    'Every message the code answers, by status (`…` stands for what the request or the engine fills in):',
    '',
    '| Status | Message (or code) | Where |',
    '|---|---|---|',
    ...stacksRows,
    '',
    '## The command line',
    '',
    '| Exit status | Meaning |',
    '|---|---|',
    '| 0 | Done; a server stopped by SIGINT or SIGTERM |',
    '| 1 | A runtime failure: one `chronicle: …` line on standard error |',
    '| 2 | Bad command-line input: the usage on standard error |',
  ].join('\n')}\n`;
}
