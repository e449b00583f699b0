import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { type AuditFilter, auditEntries } from '../../../../projections/audit.js';
import { StacksError } from '../../../stacks/errors.js';
import { parseEnvParam } from '../../../stacks/names.js';
import type { StacksService } from '../../../stacks/stacks-service.js';
import { historySchemas } from '../api/history-routes.js';
import { userOf } from '../request.js';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

const one = (value: unknown): string | undefined => {
  const v = Array.isArray(value) ? value[0] : value;
  return typeof v === 'string' ? v : undefined;
};

function time(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const at = new Date(value);
  if (Number.isNaN(at.getTime()))
    throw new StacksError('invalid_query', `${name} must be a date and time (ISO 8601)`);
  return at.toISOString();
}

function count(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = /^[0-9]{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= min && n <= max))
    throw new StacksError('invalid_query', `${name} must be an integer from ${min} to ${max}`);
  return n;
}

/** The filter of `GET /api/audit`: `user`, `stack`, `env` (omitted: all; `null`: local), `type`, `since`, `until`. */
function filterOf(query: Record<string, unknown>): AuditFilter {
  const env = one(query.env);
  const types = one(query.type);
  const filter: AuditFilter = {};
  const user = one(query.user);
  const stack = one(query.stack);
  if (user !== undefined) filter.user = user;
  if (stack !== undefined) filter.stack = stack;
  if (env !== undefined) filter.environmentId = parseEnvParam(env);
  if (types !== undefined) filter.types = types.split(',').filter((t) => t.length > 0);
  const since = time('since', one(query.since));
  const until = time('until', one(query.until));
  if (since !== undefined) filter.since = since;
  if (until !== undefined) filter.until = until;
  return filter;
}

/**
 * `GET /api/audit` (docs/stacks.md#audit-trail): the audit trail, newest first, admins only. JSON pages
 * (`limit` 1-500, default 50; `offset`) with the total, or `format=ndjson`: every matching entry, one JSON
 * object a line, streamed (an export).
 */
export function auditRoutes(app: FastifyInstance, service: StacksService): void {
  app.get(historySchemas.listAudit.url, historySchemas.listAudit, async (request, reply) => {
    if (!userOf(request).admin) throw new StacksError('forbidden', 'Only an admin may read the audit log');
    const query = request.query as Record<string, unknown>;
    const filter = filterOf(query);
    const format = one(query.format) ?? 'json';
    if (format !== 'json' && format !== 'ndjson')
      throw new StacksError('invalid_query', 'format must be json or ndjson');
    const limit = count('limit', one(query.limit), DEFAULT_LIMIT, 1, MAX_LIMIT);
    const offset = count('offset', one(query.offset), 0, 0, 1_000_000_000);
    // What was done before this request is in the answer.
    await service.audit.waitFor(await service.store.headPosition());
    const state = service.audit.state;
    if (format === 'ndjson') {
      const lines = (function* () {
        for (const entry of auditEntries(state, filter)) yield `${JSON.stringify(entry)}\n`;
      })();
      return reply
        .type('application/x-ndjson')
        .header('content-disposition', 'attachment; filename="audit.ndjson"')
        .send(Readable.from(lines));
    }
    const entries = [];
    let total = 0;
    for (const entry of auditEntries(state, filter)) {
      if (total >= offset && entries.length < limit) entries.push(entry);
      total += 1;
    }
    return { entries, total };
  });
}
