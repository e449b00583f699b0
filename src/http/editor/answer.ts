/**
 * What the editor's REST surface answers, from a route handler to the listener that writes it: one
 * type for every answer, and the failures built one way.
 */
import type { Answer } from '../../../streams/editor.js';

/** A JSON body: the dispatcher's answer, an audit route's, the OpenAPI document, a failure. */
type JsonBody = Readonly<Record<string, unknown>>;

/** An answer with a JSON body, sent with `http_status` added, as `application/json`. */
export interface JsonAnswer<Body extends JsonBody = JsonBody> {
  readonly status: number;
  readonly body: Body;
}

/** A status and a JSON body, or bytes of their own type (the PNG of `POST /capture`; no body at all). */
export type HttpAnswer =
  | JsonAnswer
  | { readonly status: number; readonly type: string; readonly bytes: Buffer };

/**
 * A failure in the spec's form: `{ ok: false, code, error }` (and `http_status` when sent). Named apart
 * from the MCP server's `failure(code, error)`: docs/errors.md is read from the calls of both.
 */
export const failureAnswer = (status: number, code: string, error: string): JsonAnswer<Answer> => ({
  status,
  body: { ok: false, code, error },
});

/** 500 `internal_error` for anything thrown on the way from a request to its answer's bytes. */
export const internalError = (error: unknown): HttpAnswer =>
  failureAnswer(500, 'internal_error', error instanceof Error ? error.message : String(error));

/** No body at all (the 204 of a preflight), sent with the JSON content type as every other answer. */
export const noContent: HttpAnswer = { status: 204, type: 'application/json', bytes: Buffer.alloc(0) };
