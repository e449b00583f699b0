/**
 * Counts for a deploy's `details.summary`, parsed incrementally from docker compose v2 output.
 *
 * Compose's plain progress writer (used when its output is not a terminal, i.e. always here) prints one
 * line per event as `<id> <text> <status>` with a leading space: ` Container web-1  Started`,
 * ` Network app_default  Created`, ` web Pulled` (older) or ` Image nginx:1.27 Pulled` (newer),
 * ` web Built` / ` Service web  Built` / ` Image app-web Built`. BuildKit's own output names built
 * images as `#12 naming to docker.io/library/app-web done` (or ` => => naming to ...` in its tty form).
 * The tty writer's decorations (a leading ✔/✘ and a trailing duration such as `0.4s`) are tolerated.
 *
 * Each container counts at most once per state it reached (compose may print an event again), so a
 * fresh container counts as created and started, a changed one as recreated and started. Images are
 * counted once per name; built images are counted from the compose `Built` events when there are any,
 * otherwise from BuildKit's `naming to` lines (both at once would count one build twice).
 */
import type { DeploySummary } from '../../streams/stacks.js';

/** Progress lines are short; anything longer is program output and is not parsed. */
const MAX_EVENT_LINE = 300;
const DURATION = /^\d+(?:\.\d+)?m?s$/;
const DECORATIONS = new Set(['✔', '✘', '⠿', '!', '-']);
const NAMING_TO = /naming to (\S+)/;
const SIX_WORDS = /^\s*(?:\S+\s+){5}\S/;

type ContainerState = 'created' | 'started' | 'recreated' | 'removed';
/**
 * Compose's word for each state. A Map, because the word comes from an output line: looked up on a plain
 * object, `Container a constructor` would find Object.prototype's `constructor` (issue 15).
 */
const CONTAINER_STATES: ReadonlyMap<string, ContainerState> = new Map([
  ['Created', 'created'],
  ['Started', 'started'],
  ['Recreated', 'recreated'],
  ['Removed', 'removed'],
]);

export class SummaryCounter {
  private lines = 0;
  private readonly containers: Record<ContainerState, Set<string>> = {
    created: new Set(),
    started: new Set(),
    recreated: new Set(),
    removed: new Set(),
  };
  private readonly pulled = new Set<string>();
  private readonly built = new Set<string>();
  private readonly namedImages = new Set<string>();

  /** Feeds one output line (stdout or stderr, in arrival order). */
  add(line: string): void {
    this.lines++;
    if (line.length > MAX_EVENT_LINE) return;
    if (line.includes('naming to ')) {
      const m = NAMING_TO.exec(line);
      if (m?.[1]) this.namedImages.add(m[1]);
      return;
    }
    // More than a decoration, three words and a duration: no event. Told apart without splitting, as
    // most lines are program output, and a split of each is most of what a deploy allocates.
    if (SIX_WORDS.test(line)) return;
    const tokens = line.trim().split(/\s+/);
    if (tokens.length > 0 && DECORATIONS.has(tokens[0] as string)) tokens.shift();
    if (tokens.length > 0 && DURATION.test(tokens[tokens.length - 1] as string)) tokens.pop();
    if (tokens.length < 2 || tokens.length > 3) return;
    const [first, second] = tokens as [string, string];
    const status = tokens[tokens.length - 1] as string;
    if (tokens.length === 3 && first === 'Container') {
      const state = CONTAINER_STATES.get(status);
      if (state) this.containers[state].add(second);
      return;
    }
    // `<name> Pulled` or `Image <name> Pulled`; likewise Built (also `Service <name> Built`).
    const name = tokens.length === 2 ? first : first === 'Image' || first === 'Service' ? second : undefined;
    if (name === undefined) return;
    if (status === 'Pulled') this.pulled.add(name);
    else if (status === 'Built') this.built.add(name);
  }

  /** The counts so far; undefined while no line was fed (unknown, never zero). */
  summary(): DeploySummary | undefined {
    if (this.lines === 0) return undefined;
    return {
      containersCreated: this.containers.created.size,
      containersStarted: this.containers.started.size,
      containersRecreated: this.containers.recreated.size,
      containersRemoved: this.containers.removed.size,
      imagesPulled: this.pulled.size,
      imagesBuilt: this.built.size > 0 ? this.built.size : this.namedImages.size,
    };
  }
}
