/**
 * A run's log (finished, or followed live) with a marker where redaction withheld lines (`details.withheld`: after which log
 * line, how many): the log file holds only the lines shown, so the markers are placed between them here,
 * and the gutter keeps each line's own number (a marker has none). Pure.
 */

/** @param {number} count */
const withheldText = (count) =>
  `${count} line${count === 1 ? '' : 's'} withheld (holding a value too short to replace with ***)`;

/**
 * @typedef {{ lines: number, at: Array<{ afterLine: number, lines: number }> }} Withheld
 * @typedef {{ lines: string[], numbers: Array<number | null> | null }} MarkedLines
 */

/**
 * The lines with the markers among them, and each row's line number (null for a marker); `numbers` is
 * null when nothing was withheld (every row is its own line).
 * @param {string[]} lines @param {Withheld | undefined} withheld @returns {MarkedLines}
 */
export function markWithheld(lines, withheld) {
  if (!withheld || withheld.lines === 0) return { lines, numbers: null };
  /** @type {string[]} */
  const rows = [];
  /** @type {Array<number | null>} */
  const numbers = [];
  const places = [...withheld.at].sort((a, b) => a.afterLine - b.afterLine);
  let placed = 0;
  let next = 0;
  const mark = (/** @type {number} */ count) => {
    rows.push(withheldText(count));
    numbers.push(null);
    placed += count;
  };
  for (let i = 0; i <= lines.length; i++) {
    // Before line i + 1: the places after line i (a place past the end shows at the end).
    for (; next < places.length && ((places[next]?.afterLine ?? 0) <= i || i === lines.length); next++)
      mark(places[next]?.lines ?? 0);
    if (i === lines.length) break;
    rows.push(lines[i] ?? '');
    numbers.push(i + 1);
  }
  // Withheld past the places the run recorded (it records 1,000 at most): said once, at the end.
  const unplaced = withheld.lines - placed;
  if (unplaced > 0) {
    rows.push(`${withheldText(unplaced)}, at places not recorded`);
    numbers.push(null);
  }
  return { lines: rows, numbers };
}
