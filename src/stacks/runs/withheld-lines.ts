import { MAX_WITHHELD_PLACES, type WithheldPlace } from '../../../streams/stacks.js';

/**
 * Where a run's output had lines withheld by redaction, by the log's line numbers: the log file keeps
 * only the lines shown (clients page it by line), so the places are kept beside it, in the run's events
 * (RunLinesWithheld). Lines withheld one after the other make one place; past MAX_WITHHELD_PLACES places
 * they are counted only. Pure.
 */
export class WithheldLines {
  private readonly places: WithheldPlace[] = [];
  private total = 0;

  /** One withheld line, after log line `afterLine` (0: before the first). */
  add(afterLine: number): void {
    this.total += 1;
    const last = this.places.at(-1);
    if (last !== undefined && last.after_line === afterLine) last.lines += 1;
    else if (this.places.length < MAX_WITHHELD_PLACES) this.places.push({ after_line: afterLine, lines: 1 });
  }

  /** Lines withheld so far. */
  get lines(): number {
    return this.total;
  }

  /** The places so far (copies). */
  get at(): WithheldPlace[] {
    return this.places.map((place) => ({ ...place }));
  }
}
