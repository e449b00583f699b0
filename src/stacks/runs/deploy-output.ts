import type { ComposeGroup } from '../../../streams/stacks.js';
import { paceOutput } from '../compose/line-consumer.js';
import type { ComposeProcess, OutputLine, Redactor } from '../contracts.js';
import type { Job } from '../jobs/job-book.js';
import { createRedactor } from '../output/redaction.js';
import type { RunRecorder } from './run-recorder.js';

/** What a deploy tells its job (Job): statuses, shown lines, its compose's process group. */
export type DeployJob = Pick<
  Job,
  | 'id'
  | 'status'
  | 'line'
  | 'budgetReached'
  | 'composeStarted'
  | 'dequeued'
  | 'backlogBytes'
  | 'recorded'
  | 'error'
  | 'finish'
>;

/** What a deploy tells its run (RunRecorder); a job that records no run has none. */
export type DeployRecord = Pick<
  RunRecorder,
  | 'runId'
  | 'line'
  | 'withheld'
  | 'composeStarted'
  | 'backlogBytes'
  | 'queuedLineBytes'
  | 'dequeued'
  | 'resolveSource'
  | 'leftoversRemoved'
  | 'note'
  | 'complete'
>;

interface DeployOutputOptions {
  /** false: compose's lines go to the run's log only, never to the job (a git deploy's). */
  forwardLines: boolean;
  /** The job's status once the run's log budget is reached (log-files.ts `budgetNotice`). */
  budgetNotice: string;
}

/**
 * The status a job gets where redaction withheld output lines (each holds a value too short to replace
 * with `***`): how many, never what they held.
 */
export const withheldNotice = (count: number) =>
  `${count} line${count === 1 ? '' : 's'} withheld (holding a value too short to replace with ***)`;

/**
 * The one way out for everything a deploy shows: each line is redacted once, by the one redactor the
 * deploy has, then goes to the run's log and to the job (the job takes no line the log's budget
 * dropped). It counts the lines redaction withheld, so the job can say how many where they were; it
 * records where compose runs (the run's stream when there is a run, else the job's); and it holds
 * compose back while the job and the log have more than they can take.
 *
 * The redactor is extended when the deploy learns more values (a git source's credentials, the secret
 * provider's values), never made again from the whole list: values are only ever added.
 */
export class DeployOutput {
  private redacting: Redactor;
  /** Every value the redactor hides, so that `extend` compiles only for values it does not hold. */
  private readonly values: Set<string>;
  /** Lines withheld since the last one shown, in this compose step. */
  private withheldSince = 0;

  constructor(
    private readonly job: DeployJob,
    private readonly run: DeployRecord | undefined,
    values: readonly string[],
    private readonly options: DeployOutputOptions,
  ) {
    this.values = new Set(values);
    this.redacting = createRedactor([...this.values]);
  }

  /** The redactor as it is now (for a text beside the output: an error message, a container name). */
  get redactor(): Redactor {
    return this.redacting;
  }

  /** Values to hide from now on; those already hidden change nothing (the redactor is not compiled again). */
  extend(values: readonly string[]): void {
    const fresh = values.filter((value) => !this.values.has(value));
    if (fresh.length === 0) return;
    for (const value of fresh) this.values.add(value);
    this.redacting = this.redacting.with([...new Set(fresh)]);
  }

  /** A status that may hold a value (a stage a variant reports): redacted, and left out when withheld. */
  status(text: string): void {
    const shown = this.redacting.line(text);
    if (shown !== null) this.job.status(shown);
  }

  /** A status in chronicle's own words, holding nothing of the stack (`Running compose up`). */
  notice(text: string): void {
    this.job.status(text);
  }

  /**
   * A line of compose's output: redacted (a cut line whole, then cut, so a value crossing the cut never
   * shows its start), then to the run's log and the job. Null when redaction withheld it.
   */
  output(line: OutputLine): string | null {
    const shown =
      line.cut === undefined
        ? this.redacting.line(line.line)
        : this.redacting.cut(line.line, line.cut.keep, line.cut.marker);
    if (shown === null) {
      this.withheldSince += 1;
      this.run?.withheld();
      return null;
    }
    this.sayWithheld();
    // Past the environment's log budget the line is dropped, and the job stops taking lines too.
    const logged = this.run?.line(shown) ?? true;
    if (this.options.forwardLines && logged) this.job.line(shown);
    else if (this.options.forwardLines) this.job.budgetReached(this.options.budgetNotice);
    return shown;
  }

  /**
   * A line chronicle adds to the output (a container it removed before an `up`): redacted, to the run's
   * log and, unless the budget dropped it, to the job, also for a deploy whose compose lines do not go
   * there; a withheld one has its place in the run.
   */
  say(text: string): void {
    const shown = this.redacting.line(text);
    if (shown === null) {
      this.run?.withheld();
      return;
    }
    if (this.run?.line(shown) ?? true) this.job.line(shown);
  }

  /** A compose step's output has ended: the lines withheld at its end are said too. */
  endStep(): void {
    this.sayWithheld();
  }

  /**
   * Compose started, leading its own process group: recorded so that a restart after a crash can stop
   * it (RunComposeStarted for a run, JobComposeStarted for a job without one).
   */
  composeStarted(group: ComposeGroup): void {
    if (this.run) void this.run.composeStarted(group);
    else this.job.composeStarted(group);
  }

  /**
   * Bytes of output accepted and not recorded yet. The job and the run's log queue the very same line
   * strings: the output held is the longer of the two queues, and the log's write in flight (a copy of
   * its own). Their sum counted every line twice: compose was paused at half the bound.
   */
  get backlogBytes(): number {
    const run = this.run;
    if (run === undefined) return this.job.backlogBytes;
    return Math.max(this.job.backlogBytes, run.queuedLineBytes) + (run.backlogBytes - run.queuedLineBytes);
  }

  /** Output that comes faster than the store and the log file take it waits in compose's pipe. */
  pace(process: ComposeProcess): void {
    paceOutput(process, () => this.backlogBytes);
  }

  private sayWithheld(): void {
    if (this.withheldSince > 0 && this.options.forwardLines)
      this.job.status(withheldNotice(this.withheldSince));
    this.withheldSince = 0;
  }
}
