import type { Answer } from '../../../streams/editor.js';
import type { Caller } from '../../editor/request.js';
import type { JsonAnswer } from './answer.js';
import { statusOfCode } from './status.js';

/** Codes after which the wrapper re-reads state and tries once more (rule 5). */
const RETRY_CODES = new Set([
  'document_required',
  'document_closed',
  'document_not_active',
  'stale_state',
  'session_changed',
]);

interface Dispatcher {
  /** `caller`: who sent the request (a web page of another origin may not touch files); none = trusted. */
  dispatch(request: unknown, caller?: Caller): Promise<Answer>;
}

/**
 * The REST side of the dispatcher: the cached active document_id, the mutation wrapper (rules 1-7)
 * and the Run path. One per server; the dispatcher itself serializes mutations.
 */
export class EditorClient {
  private readonly dispatcher: Dispatcher;
  private documentId: number | undefined;
  private attempt = 0;
  private serial = 0;

  constructor(dispatcher: Dispatcher) {
    this.dispatcher = dispatcher;
  }

  /** `rest-<serial>` for generic Run requests without a request_id. */
  nextRestId(): string {
    this.serial += 1;
    return `rest-${this.serial}`;
  }

  /** Any answer carrying document_id, at the top or inside `state`, replaces the cached one. */
  private remember(answer: Answer): void {
    const top = answer.document_id;
    const state = answer.state as { document_id?: unknown } | undefined;
    const id = typeof top === 'number' ? top : state?.document_id;
    if (typeof id === 'number') this.documentId = id;
  }

  private async send(request: Record<string, unknown>, caller: Caller | undefined): Promise<Answer> {
    const answer = await this.dispatcher.dispatch(request, caller);
    this.remember(answer);
    return answer;
  }

  private envelope(op: string, fields: Record<string, unknown>): Record<string, unknown> {
    this.attempt += 1;
    return {
      protocol: 1,
      op,
      request_id: `http-${process.pid}-${this.attempt}`,
      ...(this.documentId !== undefined ? { document_id: this.documentId } : {}),
      ...fields,
    };
  }

  /** The mutation wrapper: envelope, one retry after re-reading state, `state` stripped, route status. */
  async mutate(
    op: string,
    fields: Record<string, unknown>,
    successStatus: number,
    caller?: Caller,
  ): Promise<JsonAnswer<Answer>> {
    let answer = await this.send(this.envelope(op, fields), caller);
    if (!answer.ok && RETRY_CODES.has(answer.code as string)) {
      const state = await this.dispatcher.dispatch({ protocol: 1, op: 'state' });
      const id = (state.state as { document_id?: unknown } | undefined)?.document_id;
      this.documentId = typeof id === 'number' ? id : undefined;
      answer = await this.send(this.envelope(op, fields), caller);
    }
    const { state: _state, ...body } = answer;
    return { status: body.ok ? successStatus : statusOfCode(body.code), body: body as Answer };
  }

  /** The Run path: the request as built, no wrapper, no retry, `state` kept. */
  async run(
    request: Record<string, unknown>,
    successStatus: number,
    caller?: Caller,
  ): Promise<JsonAnswer<Answer>> {
    const answer = await this.send(request, caller);
    return { status: answer.ok ? successStatus : statusOfCode(answer.code), body: answer };
  }
}
