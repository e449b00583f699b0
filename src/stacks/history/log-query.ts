import { createReadStream } from 'node:fs';
import { StacksError } from '../errors.js';

/**
 * Server-side range and search over a run's log (docs/stacks.md#run-logs-download-range-search), for logs too large to send whole:
 * `fromLine` (1-based) and `limit` lines, or with `q` the lines from `fromLine` on that hold `q` (plain
 * text, case-insensitive), at most `limit` of them. The file is read once, in chunks, never whole: a log
 * may reach the environment's budget (2 GiB).
 */

interface LogQuery {
  fromLine: number;
  limit: number;
  /** Lower-cased search text, when searching. */
  q?: string;
}

interface LogPage {
  fromLine: number;
  limit: number;
  q?: string;
  lines: Array<{ line: number; text: string }>;
  /** Where the next page starts (the line after the last one given), or null when there is no more. */
  nextLine: number | null;
  totalLines: number;
  /** With `q`: how many lines from `fromLine` on hold it (all of them, also those past this page). */
  matches?: number;
}

const DEFAULT_LOG_LIMIT = 1000;
const MAX_LOG_LIMIT = 10_000;
const MAX_QUERY_LENGTH = 1000;
const CHUNK_BYTES = 1024 * 1024;

const one = (value: unknown): unknown => (Array.isArray(value) ? value[0] : value);

function positive(name: string, value: unknown, max: number): number {
  const n = typeof value === 'string' && /^[0-9]{1,15}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > max)
    throw new StacksError('invalid_query', `${name} must be an integer from 1 to ${max}`);
  return n;
}

/** The range or search a log request asks for; undefined when it asks for the whole log. */
export function parseLogQuery(query: Record<string, unknown>): LogQuery | undefined {
  const fromLine = one(query.fromLine);
  const limit = one(query.limit);
  const q = one(query.q);
  if (fromLine === undefined && limit === undefined && q === undefined) return undefined;
  if (q !== undefined && (typeof q !== 'string' || q.length === 0 || q.length > MAX_QUERY_LENGTH))
    throw new StacksError(
      'invalid_query',
      `q must be the text to search for (1 to ${MAX_QUERY_LENGTH} characters)`,
    );
  return {
    fromLine: fromLine === undefined ? 1 : positive('fromLine', fromLine, Number.MAX_SAFE_INTEGER),
    limit: limit === undefined ? DEFAULT_LOG_LIMIT : positive('limit', limit, MAX_LOG_LIMIT),
    ...(typeof q === 'string' ? { q: q.toLowerCase() } : {}),
  };
}

/** How many times `char` occurs in `bytes` (memchr through Buffer#indexOf). */
function countByte(bytes: Buffer, char: number): number {
  let count = 0;
  for (let at = bytes.indexOf(char); at !== -1; at = bytes.indexOf(char, at + 1)) count += 1;
  return count;
}

const NEWLINE = 10;

/**
 * Collects a page from blocks of whole lines handed over in order (lines numbered from 1). Pure. A block
 * that cannot hold a line of the page is only counted, never decoded (a range) or split (a search whose
 * text it does not hold): that is what keeps a 200,000-line log under 200 ms (`npm run bench -- log-query`).
 */
class LogPager {
  private readonly page: LogPage;
  private n = 0;
  private matches = 0;

  constructor(private readonly query: LogQuery) {
    this.page = {
      fromLine: query.fromLine,
      limit: query.limit,
      ...(query.q !== undefined ? { q: query.q } : {}),
      lines: [],
      nextLine: null,
      totalLines: 0,
    };
  }

  /** Lines joined by `\n`, without a final newline (so a block holds one line more than newlines). */
  addBlock(bytes: Buffer): void {
    const q = this.query.q;
    if (q === undefined) {
      const count = countByte(bytes, NEWLINE) + 1;
      if (this.n + count < this.query.fromLine || this.page.nextLine !== null) {
        this.n += count;
        return;
      }
      for (const line of bytes.toString('utf8').split('\n')) this.add(line, line);
      return;
    }
    const text = bytes.toString('utf8');
    // Lower-casing never adds or drops a newline: line i of the lowered text is line i of the text.
    const lowered = text.toLowerCase();
    if (!lowered.includes(q)) {
      this.n += countByte(bytes, NEWLINE) + 1;
      return;
    }
    const lines = text.split('\n');
    const low = lowered.split('\n');
    for (let i = 0; i < lines.length; i++) this.add(lines[i] as string, low[i] as string);
  }

  private add(text: string, lowered: string): void {
    this.n += 1;
    if (this.n < this.query.fromLine) return;
    if (this.query.q !== undefined && !lowered.includes(this.query.q)) return;
    this.matches += 1;
    if (this.page.lines.length < this.query.limit) this.page.lines.push({ line: this.n, text });
    else if (this.page.nextLine === null) this.page.nextLine = this.n;
  }

  done(): LogPage {
    this.page.totalLines = this.n;
    if (this.query.q !== undefined) this.page.matches = this.matches;
    return this.page;
  }
}

/** The page of the log at `path`; undefined when there is no log. */
export async function queryLog(path: string, query: LogQuery): Promise<LogPage | undefined> {
  const pager = new LogPager(query);
  let carry: Buffer = Buffer.alloc(0);
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: CHUNK_BYTES })) {
      const bytes: Buffer = carry.length > 0 ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
      const last = bytes.lastIndexOf(NEWLINE);
      if (last === -1) {
        carry = bytes;
        continue;
      }
      // Up to the last newline only: a character split by the chunk's end waits for its rest.
      pager.addBlock(bytes.subarray(0, last));
      carry = bytes.subarray(last + 1);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if (carry.length > 0) pager.addBlock(carry);
  return pager.done();
}

/** The file name a downloaded log is offered under. */
export const logDownloadName = (stack: string, runId: number) => `${stack}-run-${runId}.log`;
