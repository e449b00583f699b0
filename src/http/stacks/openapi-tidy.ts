/**
 * Pure tidying of a generated OpenAPI document (stacks/openapi.ts): what the generator leaves that a
 * reader or a client generator would trip over.
 */

/** The parts of a document these functions read and change. */
export interface OpenApiParts {
  paths?: Record<
    string,
    Record<string, { requestBody?: { required?: boolean }; [key: string]: unknown } | undefined> | undefined
  >;
  components?: { schemas?: Record<string, unknown>; [extension: `x-${string}`]: unknown };
}

const COMPONENT_REF = /#\/components\/schemas\/([A-Za-z0-9_.-]+)/g;

/** The component names a value mentions: in `$ref`s, and in prose that points a reader at one. */
const mentioned = (value: unknown): string[] =>
  [...JSON.stringify(value ?? null).matchAll(COMPONENT_REF)].map((m) => m[1] ?? '');

/**
 * The document without the schema components nothing reaches from its paths. The generator writes every
 * registered schema twice (as sent, `<Name>Input`, and as answered, `<Name>`); most are only one of
 * the two. A component named in an operation's description (the data of an event stream) counts as
 * reached.
 */
export function withoutUnusedComponents<D extends OpenApiParts>(doc: D): D {
  const schemas = doc.components?.schemas;
  if (schemas === undefined) return doc;
  const reached = new Set<string>();
  const pending = mentioned(doc.paths);
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (reached.has(name) || !Object.hasOwn(schemas, name)) continue;
    reached.add(name);
    pending.push(...mentioned(schemas[name]));
  }
  const kept = Object.fromEntries(Object.entries(schemas).filter(([name]) => reached.has(name)));
  return { ...doc, components: { ...doc.components, schemas: kept } };
}

/** `/api/stacks/:name/deploys/:runId` as OpenAPI writes it: `/api/stacks/{name}/deploys/{runId}`. */
export const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/**
 * Marks the request bodies a client may leave out as not required: the generator marks every body
 * required, as Fastify's validation would insist on one unless the schema takes none.
 */
export function withOptionalBodies<D extends OpenApiParts>(
  doc: D,
  optional: ReadonlyArray<{ method: string; url: string }>,
): D {
  for (const { method, url } of optional) {
    const operation = doc.paths?.[openApiPath(url)]?.[method.toLowerCase()];
    if (operation?.requestBody) operation.requestBody.required = false;
  }
  return doc;
}

const ERROR_REF = '#/components/schemas/Error';
/** The message an error answer's description names in parentheses: "No such run (`Run not found`)". */
const NAMED_MESSAGE = /\(`([^`]+)`\)/g;

interface Answer {
  description?: string;
  content?: Record<string, { schema?: unknown; example?: unknown }>;
}

/**
 * Gives each error answer whose description names its message an example of its own (the `Error`
 * component's example is one message for every status): the last message the description names.
 */
export function withErrorExamples<D extends OpenApiParts>(doc: D): D {
  for (const item of Object.values(doc.paths ?? {}))
    for (const operation of Object.values(item ?? {})) {
      const responses = (operation?.responses ?? {}) as Record<string, Answer>;
      for (const answer of Object.values(responses)) {
        const media = answer.content?.['application/json'];
        const schema = media?.schema as { $ref?: string } | undefined;
        if (!media || schema?.$ref !== ERROR_REF) continue;
        const named = [...(answer.description ?? '').matchAll(NAMED_MESSAGE)].at(-1)?.[1];
        if (named !== undefined) media.example = { error: named };
      }
    }
  return doc;
}

/** The failure codes of a surface: each one's HTTP status and meaning (src/stacks/errors.ts). */
type ErrorCatalogue = Readonly<Record<string, { readonly status: number; readonly meaning: string }>>;

/**
 * Lists the failure codes: every code of the catalogue once, with its status and meaning, under the
 * components' `x-error-codes`, and on each error answer the codes of its status (`x-error-codes`, by
 * name). A route's answer of a status may be any code of that status: which codes one route raises is
 * not read from its code, so the list is the status's, not the route's. Nothing else changes.
 */
export function withErrorCodes<D extends OpenApiParts>(doc: D, catalogue: ErrorCatalogue): D {
  const names = Object.keys(catalogue).sort();
  const ofStatus = (status: string) => names.filter((code) => String(catalogue[code]?.status) === status);
  for (const item of Object.values(doc.paths ?? {}))
    for (const operation of Object.values(item ?? {})) {
      const responses = (operation?.responses ?? {}) as Record<string, Answer & Record<string, unknown>>;
      for (const [status, answer] of Object.entries(responses)) {
        const schema = answer.content?.['application/json']?.schema as { $ref?: string } | undefined;
        const codes = ofStatus(status);
        if (schema?.$ref === ERROR_REF && codes.length > 0) answer['x-error-codes'] = codes;
      }
    }
  const listed = Object.fromEntries(names.map((code) => [code, catalogue[code]]));
  return { ...doc, components: { ...doc.components, 'x-error-codes': listed } };
}
