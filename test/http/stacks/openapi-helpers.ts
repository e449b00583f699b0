/**
 * Checks answers against the stacks OpenAPI document as a client generated from it would read it: the
 * document is dereferenced (swagger-parser) and each answer's body is validated (Ajv, JSON Schema
 * 2020-12, the dialect of OpenAPI 3.1) against the schema its route documents for its status and media
 * type. A status the route does not document fails as well.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { type StacksRouteName, stacksRoutes } from '../../../src/http/stacks/api/routes.js';
import { openApiPath } from '../../../src/http/stacks/openapi-tidy.js';
import { header } from '../editor/helpers.js';
import type { Reply } from './helpers.js';

export type Json = Record<string, unknown>;
type OpenApiInput = Parameters<typeof SwaggerParser.validate>[0];

export interface Operation {
  operationId?: string;
  security?: unknown[];
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Json }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema?: Json }> }>;
}

export type Paths = Record<string, Record<string, Operation>>;

/** A route registered outside `stacksRoutes` (the deploy history's), by its method and Fastify URL. */
export interface Endpoint {
  method: string;
  url: string;
}

const nameOf = (route: StacksRouteName | Endpoint) =>
  typeof route === 'string' ? route : `${route.method} ${route.url}`;

/** Validates a copy (swagger-parser dereferences in place) as OpenAPI 3.1. */
export const validateDocument = (doc: Json) =>
  SwaggerParser.validate(structuredClone(doc) as unknown as OpenApiInput);

/** A JSON Schema 2020-12 validator that knows the formats the document uses (date-time). */
export function schemaValidator(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: false });
  addFormats.default(ajv);
  // Annotations of OpenAPI's Schema Object that JSON Schema leaves to the reader.
  ajv.addKeyword('example');
  return ajv;
}

const shown = (errors: ErrorObject[] | null | undefined) =>
  (errors ?? [])
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
    .join('; ');

/** The media type of an answer, without its parameters. */
const mediaOf = (reply: Reply) => (header(reply, 'content-type') ?? '').split(';')[0]?.trim() ?? '';

export class AnswerChecker {
  private readonly ajv = schemaValidator();
  private readonly compiled = new Map<string, ValidateFunction>();
  /** Routes and statuses answers were checked for: what the session covered. */
  readonly seen = new Set<string>();

  private constructor(
    readonly paths: Paths,
    private readonly components: Record<string, Json>,
  ) {}

  /** From the document as served: dereferenced, so each answer schema stands alone. */
  static async of(doc: Json): Promise<AnswerChecker> {
    const dereferenced = (await SwaggerParser.dereference(
      structuredClone(doc) as unknown as OpenApiInput,
    )) as unknown as {
      paths: Paths;
      components: { schemas: Record<string, Json> };
    };
    return new AnswerChecker(dereferenced.paths, dereferenced.components.schemas);
  }

  operation(route: StacksRouteName | Endpoint): Operation {
    const { method, url } = typeof route === 'string' ? stacksRoutes[route] : route;
    const operation = this.paths[openApiPath(url)]?.[method.toLowerCase()];
    if (!operation) throw new Error(`${method} ${url} is not in the document`);
    return operation;
  }

  /** The schema of a route's answer for a status and media type; throws when the document has none. */
  schemaOf(route: StacksRouteName | Endpoint, status: number, media: string): Json {
    const name = nameOf(route);
    const answer = this.operation(route).responses[String(status)];
    if (!answer) throw new Error(`${name} does not document the status ${status}`);
    const schema = answer.content?.[media]?.schema;
    if (!schema) throw new Error(`${name} ${status} documents no ${media} answer`);
    return schema;
  }

  /** Validates a schema's data, failing with the first problems. */
  validate(key: string, schema: Json, data: unknown): void {
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.compiled.set(key, validate);
    }
    if (!validate(data))
      throw new Error(`${key}: ${shown(validate.errors)}\nin ${JSON.stringify(data).slice(0, 1500)}`);
  }

  /** The answer's status is documented for its route, and its body validates against that schema. */
  check(route: StacksRouteName | Endpoint, reply: Reply): Reply {
    const media = mediaOf(reply);
    const name = nameOf(route);
    const schema = this.schemaOf(route, reply.status, media);
    const body: unknown = media === 'application/json' ? JSON.parse(reply.text) : reply.text;
    this.validate(`${name} ${reply.status} ${media}`, schema, body);
    this.seen.add(`${name} ${reply.status}`);
    return reply;
  }

  /** Validates data against a component (the data of event-stream events). */
  checkComponent(name: string, data: unknown): void {
    const schema = this.components[name];
    if (!schema) throw new Error(`no component ${name}`);
    this.validate(`component ${name}`, schema, data);
  }
}
