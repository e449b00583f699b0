import { Job, Run } from '../src/http/stacks/api/answers.js';
import { stacksRoutes } from '../src/http/stacks/api/routes.js';
import { answerSerializer } from '../src/http/stacks/openapi.js';
import { type BenchReport, printReport } from './report.js';

/**
 * What checking answers against their schemas costs: the stacks app's serializer (zod checks
 * the answer, then JSON.stringify) against JSON.stringify alone (what Fastify does without a schema),
 * on the largest answers the service gives: a job poll's largest page (10,000 lines, `limit=10000`, the last
 * page of a 200,000-line deploy, under the page's 1 MiB of text), a page of 500 runs.
 * Target: under 5x JSON.stringify alone (the check walks the answer once more, and tests each time
 * against the ISO 8601 pattern).
 */

/** Lines in the job poll's page: its largest (`limit` is at most 10,000). */
const LINES = Number(process.env.BENCH_ANSWERS_LINES ?? 10_000);
/** Lines of the deploy the page ends: it is the last page, so the result is in it. */
const DEPLOY_LINES = 200_000;

/** The last page of a poll of a finished deploy, as GET /api/jobs/{id}?after=...&limit=... answers it. */
function jobPoll(lines: number) {
  const from = DEPLOY_LINES - lines;
  const messages = Array.from({ length: lines }, (_, i) => ({
    type: 'line' as const,
    line: ` Container stack-web-${(from + i) % 7}-1  Started ${'.'.repeat(60)}`,
  }));
  const result = { type: 'result' as const, success: true, exitCode: 0, output: ['done'] };
  return {
    id: '0b1c7a52-4a0e-4a8e-9d8f-35c0e4a3b6f1',
    status: 'done',
    from,
    messages: [...messages, result],
    more: false,
    next: DEPLOY_LINES,
    result,
  };
}

function runsPage(count: number) {
  const example = (Run.meta()?.examples as unknown[] | undefined)?.[0] as Record<string, unknown>;
  return Array.from({ length: count }, (_, i) => ({ ...example, id: i + 1, jobId: `job-${i}` }));
}

const elapsed = (f: () => unknown): number => {
  const start = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - start) / 1e6;
};

/**
 * The best of `rounds` runs of each, in ms, the two taken in turn (a loaded machine slows both alike),
 * after three of each to warm up (zod compiles a schema's checks on use).
 */
function bestOfEach(a: () => unknown, b: () => unknown, rounds: number): [number, number] {
  for (let i = 0; i < 3; i++) [a(), b()];
  let bestA = Number.POSITIVE_INFINITY;
  let bestB = Number.POSITIVE_INFINITY;
  for (let i = 0; i < rounds; i++) {
    bestA = Math.min(bestA, elapsed(a));
    bestB = Math.min(bestB, elapsed(b));
  }
  return [bestA, bestB];
}

export async function benchAnswers(): Promise<BenchReport> {
  const cases = [
    {
      name: `job poll, a page of ${LINES} lines`,
      schema: Job,
      data: jobPoll(LINES),
      url: stacksRoutes.getJob.url,
      rounds: 7,
    },
    {
      name: 'runs list, 500 runs',
      schema: stacksRoutes.listRuns.schema.response[200].content['application/json'].schema,
      data: runsPage(500),
      url: stacksRoutes.listRuns.url,
      rounds: 50,
    },
  ];
  const rows: BenchReport['rows'] = [];
  const ratios: BenchReport['ratios'] = {};
  for (const c of cases) {
    const serialize = answerSerializer({ schema: c.schema, method: 'GET', url: c.url, httpStatus: '200' });
    const bytes = JSON.stringify(c.data).length;
    const [plain, checked] = bestOfEach(
      () => JSON.stringify(c.data),
      () => serialize(c.data),
      c.rounds,
    );
    rows.push({
      answer: c.name,
      bytes,
      'JSON.stringify ms': plain,
      'checked ms': checked,
      ratio: checked / plain,
    });
    ratios[`${c.name}: checked / JSON.stringify`] = {
      value: checked / plain,
      target: 5,
      ok: checked / plain < 5,
      max: true,
    };
  }
  return { name: 'stacks answers checked against their schemas', rows, ratios };
}

export const runAnswersBench = async () => printReport(await benchAnswers());
