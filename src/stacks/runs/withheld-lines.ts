import { MAX_WITHHELD_PLACES, type WithheldPlace } from '../../../streams/stacks.js';

/**
 * Where a run's output had lines withheld by redaction, by the log's line numbers: the log file keeps
 * only the lines shown (clients page it by line), so the places are kept beside it, in the run's events
 * (RunLinesWithheld), recorded as they come so a log followed live shows them. Lines withheld one after
 * the other make one place; past MAX_WITHHELD_PLACES places they are counted only. Pure.
 */
export class WithheldLines {
  private readonly places: WithheldPlace[] = [];
  private total = 0;
  /** What `changes` last gave: the lines, the places, and the last place's lines then. */
  private given = { lines: 0, places: 0, lastLines: 0 };

  /**
   * One withheld line, after log line `afterLine` (0: before the first). True when it made a new place
   * (one a reader has not seen yet); false when it joined the last one or is counted only.
   */
  add(afterLine: number): boolean {
    this.total += 1;
    const last = this.places.at(-1);
    if (last !== undefined && last.after_line === afterLine) last.lines += 1;
    else if (this.places.length < MAX_WITHHELD_PLACES) {
      this.places.push({ after_line: afterLine, lines: 1 });
      return true;
    }
    return false;
  }

  /**
   * What changed since the last call, as RunLinesWithheld records it: every line so far (`lines`), and
   * the places from the first one that changed (`from`, its index; the last place given may have grown
   * since); undefined when nothing did. The places before `from` are those given before.
   */
  changes(): { lines: number; from: number; at: WithheldPlace[] } | undefined {
    if (this.total === this.given.lines) return undefined;
    let from = this.given.places;
    if (from > 0 && this.places[from - 1]?.lines !== this.given.lastLines) from -= 1;
    const at = this.places.slice(from).map((place) => ({ ...place }));
    this.given = { lines: this.total, places: this.places.length, lastLines: this.places.at(-1)?.lines ?? 0 };
    return { lines: this.total, from, at };
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
