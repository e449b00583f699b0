/**
 * The limits of the editor's HTTP transport, all of them: what the front listener reads and holds
 * (listener.ts) and what the router matches (app.ts); docs/editor.md lists them for
 * clients.
 */
import { MAX_REQUEST_BODY_BYTES } from '../../editor/capabilities.js';

/**
 * Largest request body passed on to a route: the engine's published `max_request_body_bytes`
 * (`GET /capabilities`), so a client reads the limit it is held to. A longer declared body is not read:
 * the route sees none.
 */
export const MAX_BODY_BYTES = MAX_REQUEST_BODY_BYTES;

/** Longest request head (request line and headers) the listener waits for; past it the connection closes. */
export const MAX_HEAD_BYTES = 64 * 1024;

/**
 * Longest path parameter the router matches: any one the request head can carry. Not find-my-way's
 * default of 100, with which a longer block, layout, selection set or app name in the path (DXF names
 * run to 255 characters) was refused.
 */
export const MAX_PARAM_LENGTH = MAX_HEAD_BYTES;

/** Connections served at once; Node closes a further one unanswered. */
export const MAX_CONNECTIONS = 8;

/**
 * The idle read and write time-out, and the time a request has in all to arrive (head and declared
 * body); neither runs while the request is served.
 */
export const IDLE_MS = 15_000;
