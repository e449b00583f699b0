/**
 * What the MCP tools drive: an editor session, in this process (LocalBackend) or in a running
 * `chronicle editor --http` reached over its REST surface (HttpBackend, http-backend.ts). Both answer
 * with the dispatcher's and the audit routes' own answers, so a tool behaves the same either way.
 */
import type { Answer } from '../../streams/editor.js';
import type { EditorSession } from '../editor/session.js';
import { type AuditContext, auditRoutes } from '../http/editor/audit-routes.js';
import { editorOpenApi } from '../http/editor/openapi.js';
import { version } from '../version.js';

/** The audit routes the tools read (editor/audit-routes.ts), by their path pattern. */
export type AuditPath =
  | '/sessions'
  | '/documents/:document_id/history'
  | '/documents/:document_id/at/:revision/entities'
  | '/documents/:document_id/diff';

export interface EditorBackend {
  /** `own`: a session of this process over the store; `attached`: a running editor's, at `url`. */
  readonly mode: 'own' | 'attached';
  readonly url: string | undefined;
  /** One protocol-1 request through the session's dispatcher; its answer, `state` included. */
  dispatch(request: Record<string, unknown>): Promise<Answer>;
  /** An audit route's answer; path parameters and query values as the REST surface reads them. */
  audit(path: AuditPath, params: Record<string, string>, query: Record<string, string>): Promise<Answer>;
  /** The OpenAPI description of the editor's REST surface. */
  openapi(): Promise<Record<string, unknown>>;
}

/** The session of this process: its dispatcher and its audit routes, called directly. */
export class LocalBackend implements EditorBackend {
  readonly mode = 'own';
  readonly url = undefined;
  private readonly session: EditorSession;
  private readonly routes: ReturnType<typeof auditRoutes>;

  constructor(session: EditorSession, audit: AuditContext) {
    this.session = session;
    this.routes = auditRoutes(audit);
  }

  dispatch(request: Record<string, unknown>): Promise<Answer> {
    return this.session.dispatch(request);
  }

  async audit(path: AuditPath, params: Record<string, string>, query: Record<string, string>) {
    const route = this.routes.find((r) => r.path === path);
    if (!route) throw new Error(`no audit route ${path}`);
    return (await route.handle({ params, query, body: undefined })).body;
  }

  async openapi() {
    return editorOpenApi(version);
  }
}
