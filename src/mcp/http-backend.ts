/**
 * The MCP tools over a running editor's REST surface (`chronicle editor --mcp --attach URL`): requests
 * go to `POST /api/v1/dispatch` (the dispatcher, as is), the audit routes and `GET /api/v1/openapi`, so
 * an agent and a person at the GUI-hosted editor's viewer share one session.
 */
import type { Answer } from '../../streams/editor.js';
import type { AuditPath, EditorBackend } from './backend.js';

/** Why an attached editor did not answer: the tools answer it with this code. */
const UNREACHABLE = 'editor_unreachable';

/** `http://127.0.0.1:<port>` (or localhost, [::1]) without a path; undefined for anything else. */
export function attachUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'http:' || !loopback || url.port === '' || !['', '/'].includes(url.pathname))
    return undefined;
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') return undefined;
  return `http://${url.host}`;
}

export class HttpBackend implements EditorBackend {
  readonly mode = 'attached';
  readonly url: string;

  constructor(url: string) {
    this.url = url;
  }

  private async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
    let response: Response;
    try {
      response = await fetch(`${this.url}/api/v1${path}`, {
        method,
        ...(body !== undefined
          ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }
          : {}),
      });
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
      return { ok: false, code: UNREACHABLE, error: `the editor at ${this.url} did not answer: ${cause}` };
    }
    const text = await response.text();
    try {
      const { http_status: _status, ...answer } = JSON.parse(text) as Answer;
      return answer as Answer;
    } catch {
      return {
        ok: false,
        code: UNREACHABLE,
        error: `the editor at ${this.url} answered ${method} ${path} with ${response.status} and no JSON: ${text.slice(0, 200)}`,
      };
    }
  }

  dispatch(request: Record<string, unknown>): Promise<Answer> {
    return this.call('POST', '/dispatch', request);
  }

  audit(path: AuditPath, params: Record<string, string>, query: Record<string, string>): Promise<Answer> {
    const route = path.replace(/:([a-z_]+)/g, (_m, name: string) =>
      encodeURIComponent(new Map(Object.entries(params)).get(name) ?? ''),
    );
    const search = new URLSearchParams(Object.entries(query)).toString();
    return this.call('GET', `${route}${search ? `?${search}` : ''}`);
  }

  async openapi(): Promise<Record<string, unknown>> {
    const document = await this.call('GET', '/openapi');
    if (document.ok === false) throw new Error(String(document.error));
    return document;
  }
}
