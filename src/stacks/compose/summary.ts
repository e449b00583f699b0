/**
 * Counts for a deploy's `details.summary`, parsed incrementally from compose output of either generation
 * (fixtures in test/fixtures/compose-output/, real output of both).
 *
 * Compose v2's plain progress writer (used when its output is not a terminal, i.e. always here) prints
 * one line per event as `<id> <text> <status>` with a leading space: ` Container web-1  Started`,
 * ` Network app_default  Created`, ` web Pulled` (older) or ` Image nginx:1.27 Pulled` (newer),
 * ` web Built` / ` Service web  Built` / ` Image app-web Built`, ` web Skipped - Image is already present
 * locally`. The tty writer's decorations (a leading ✔/✘ and a trailing duration such as `0.4s`) are
 * tolerated. BuildKit prints `#5 [web 2/3] RUN ...`, `#5 CACHED` and `#12 naming to docker.io/library/x`.
 *
 * Compose v1 (1.29) prints `Creating shop_web_1 ... done` (after `Creating shop_web_1 ... ` when its
 * output is not a terminal), `Recreating`, `Starting`, `Stopping`, `Removing`, `Pulling web ... done`,
 * `shop_web_1 is up-to-date`, `Removing orphan container "shop_old_1"`, and for a build the classic
 * builder's `Building web`, `Step 1/5 : ...`, ` ---> Using cache`, `Successfully built 3c1218253ea6`.
 * In `up`, v1's `Creating x ... done` is printed once the container is created and started.
 *
 * Each container counts at most once per state it reached (compose may print an event again), so a
 * fresh container counts as created and started, a changed one as recreated and started. Images are
 * counted once per name; built images are counted from the compose `Built` events (or v1's builds) when
 * there are any, otherwise from BuildKit's `naming to` lines (both at once would count one build twice).
 *
 * Only what was seen is counted: the container counts are given when a container line was recognised,
 * `imagesPulled` when a pull line was, `imagesBuilt` and `buildStepsCached` when a build line was. A
 * deploy whose output is all unrecognised has an empty summary, never zeros.
 */
import type { DeploySummary } from '../../../streams/stacks.js';

/** Progress lines are short; anything longer is program output and is not parsed. */
const MAX_EVENT_LINE = 300;
const DURATION = /^\d+(?:\.\d+)?m?s$/;
const DECORATIONS = new Set(['✔', '✘', '⠿', '!', '-']);
const NAMING_TO = /naming to (\S+)/;

/** Whether a UTF-16 unit is white space as RegExp `\s` has it. */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/**
 * A line's words counted up to six, and where its first and last words are (`last*` only when it has
 * fewer than six), in one pass that makes no string: every output line goes through this, and the
 * RegExp's backtracking (then a split of each line with four or five words) was most of what a line
 * cost to count. One shared answer, overwritten by the next call.
 */
const shape = { count: 0, firstStart: 0, firstEnd: 0, lastStart: 0, lastEnd: 0 };
export function wordShape(line: string): Readonly<typeof shape> {
  let count = 0;
  let start = -1;
  for (let i = 0; i < line.length; i++) {
    if (isSpace(line.charCodeAt(i))) {
      if (start < 0) continue;
      if (count === 1) shape.firstEnd = i;
      shape.lastStart = start;
      shape.lastEnd = i;
      start = -1;
    } else if (start < 0) {
      start = i;
      if (++count === 6) break;
      if (count === 1) shape.firstStart = i;
    }
  }
  if (start >= 0 && count < 6) {
    if (count === 1) shape.firstEnd = line.length;
    shape.lastStart = start;
    shape.lastEnd = line.length;
  }
  shape.count = count;
  return shape;
}

/** The words of a line as `line.trim().split(/\s+/)` gives them (none for a blank line), in one pass. */
export function wordsOf(line: string): string[] {
  const words: string[] = [];
  let start = -1;
  for (let i = 0; i < line.length; i++) {
    if (isSpace(line.charCodeAt(i))) {
      if (start >= 0) words.push(line.slice(start, i));
      start = -1;
    } else if (start < 0) start = i;
  }
  if (start >= 0) words.push(line.slice(start));
  return words;
}

const V1_PROGRESS =
  /^(Creating|Recreating|Starting|Stopping|Removing|Restarting|Killing|Pausing|Unpausing|Pulling) (\S+)\s+\.\.\.\s*(\S*)\s*$/;
const V1_UP_TO_DATE = /^(\S+) is up-to-date$/;
const V1_ORPHAN = /^Removing orphan container "([^"]+)"$/;
const V1_PULL_FOR_UP = /^Pulling \S+ \(.+\)\.\.\.$/;
const DOCKER_PULL_STATUS = /^Status: (?:Downloaded newer image|Image is up to date) for (\S+)$/;
const V1_BUILDING = /^Building (\S+)$/;
const CLASSIC_STEP = /^Step \d+\/\d+ : /;
const CLASSIC_BUILT = /^Successfully built ([0-9a-f]+)$/;
const CLASSIC_CACHE = /^ ---> Using cache$/;
const BUILDKIT_CACHED = /^(?:#\d+ CACHED$| => CACHED )/;
const BUILDKIT_LINE = /^(?:#\d+ |\[\+\] Building )/;
const initials = (text: string) => new Set(Array.from(text, (c) => c.charCodeAt(0)));
/** The first letters of V1_PROGRESS's (and V1_PULL_FOR_UP's) verbs. */
const V1_VERB_INITIALS = initials('CRSKPU');
/** The first characters of CLASSIC_CACHE, BUILDKIT_CACHED, CLASSIC_STEP and BUILDKIT_LINE. */
const BUILD_INITIALS = initials(' #S[');

type ContainerState = 'created' | 'started' | 'recreated' | 'removed';
/**
 * v2's word for each counted state. A Map, because the word comes from an output line: looked up on a
 * plain object, `Container a constructor` would find Object.prototype's `constructor`.
 */
const V2_COUNTED: ReadonlyMap<string, ContainerState> = new Map([
  ['Created', 'created'],
  ['Started', 'started'],
  ['Recreated', 'recreated'],
  ['Removed', 'removed'],
]);
/** Every status v2 prints for a container: any of them shows that container lines are understood. */
const V2_CONTAINER_WORDS: ReadonlySet<string> = new Set([
  'Creating',
  'Created',
  'Recreate',
  'Recreated',
  'Starting',
  'Started',
  'Running',
  'Waiting',
  'Healthy',
  'Exited',
  'Stopping',
  'Stopped',
  'Killing',
  'Killed',
  'Removing',
  'Removed',
  'Restarting',
  'Restarted',
  'Error',
]);
/** v1's verbs whose `done` counts, and the states they reach. */
const V1_COUNTED: ReadonlyMap<string, readonly ContainerState[]> = new Map([
  ['Creating', ['created', 'started']],
  ['Recreating', ['recreated', 'started']],
  ['Starting', ['started']],
  ['Removing', ['removed']],
]);

/**
 * Whether a line is one of v2's progress events for a container, network or volume (` Container
 * web-app-1  Started`, ` Network web_default  Created`), which v2 prints on standard error: what a
 * failed run's error keeps of compose's stderr leaves them out (they say what went right). A container's
 * `Error` is not one of them.
 */
const V2_PROGRESS =
  /^\s(?:[✔✘⠿!-]\s+)?(?:Container|Network|Volume)\s+\S+\s+(?:Creating|Created|Recreate|Recreated|Starting|Started|Running|Waiting|Healthy|Exited|Stopping|Stopped|Killing|Killed|Removing|Removed|Restarting|Restarted)(?:\s+\d+(?:\.\d+)?m?s)?\s*$/;
export const isV2ProgressLine = (line: string): boolean =>
  line.length < MAX_EVENT_LINE && V2_PROGRESS.test(line);

export class SummaryCounter {
  private lines = 0;
  private readonly seen = { containers: false, pulls: false, builds: false };
  private readonly containers: Record<ContainerState, Set<string>> = {
    created: new Set(),
    started: new Set(),
    recreated: new Set(),
    removed: new Set(),
  };
  /** v1's `Creating x ... error` (and Recreating): made or not, only the engine can tell (`confirm`). */
  private readonly unsure = new Map<string, 'Creating' | 'Recreating'>();
  /** Every container a container line named (what `up` acted on, for the deploy's health check, runs/deploy.ts). */
  private readonly named = new Set<string>();
  private readonly pulled = new Set<string>();
  private readonly built = new Set<string>();
  private readonly namedImages = new Set<string>();
  private cached = 0;
  /** The service v1's classic builder is building (`Building web`), for its `Successfully built`. */
  private building: string | undefined;

  /** Feeds one output line (stdout or stderr, in arrival order). */
  add(line: string): void {
    this.lines++;
    if (line.length > MAX_EVENT_LINE) return;
    if (this.v1(line) || this.build(line)) return;
    this.v2(line);
  }

  /**
   * Compose v1's progress lines and docker's pull status; true when the line was one. Each pattern is
   * tried only on lines that hold its fixed text (most lines are program output that none matches).
   */
  private v1(line: string): boolean {
    // Every v1 progress line starts with one of V1_PROGRESS's verbs: the search for `...` is skipped
    // for the rest, nearly every line.
    const dots = V1_VERB_INITIALS.has(line.charCodeAt(0)) && line.includes('...');
    const progress = dots ? V1_PROGRESS.exec(line) : null;
    if (progress) {
      const [, verb, name, status] = progress as unknown as [string, string, string, string];
      if (verb === 'Pulling') {
        this.seen.pulls = true;
        if (status === 'done') this.pulled.add(name);
        return true;
      }
      this.seen.containers = true;
      if (verb !== 'Removing') this.named.add(name);
      if (status === 'done') for (const state of V1_COUNTED.get(verb) ?? []) this.containers[state].add(name);
      // v1 prints `Creating x ... error` whether the container was made (its start failed) or not.
      else if (status === 'error' && (verb === 'Creating' || verb === 'Recreating'))
        this.unsure.set(name, verb);
      return true;
    }
    const upToDate = line.endsWith(' is up-to-date') ? V1_UP_TO_DATE.exec(line) : null;
    if (upToDate?.[1] !== undefined) {
      this.seen.containers = true;
      this.named.add(upToDate[1]);
      return true;
    }
    const orphan = line.startsWith('Removing orphan') ? V1_ORPHAN.exec(line) : null;
    if (orphan?.[1] !== undefined) {
      this.seen.containers = true;
      this.containers.removed.add(orphan[1]);
      return true;
    }
    if (dots && V1_PULL_FOR_UP.test(line)) {
      this.seen.pulls = true;
      return true;
    }
    const pulled = line.startsWith('Status: ') ? DOCKER_PULL_STATUS.exec(line) : null;
    if (pulled?.[1] !== undefined) {
      this.seen.pulls = true;
      this.pulled.add(pulled[1]);
      return true;
    }
    return false;
  }

  /** Build output: v1's `Building`, the classic builder's and BuildKit's lines; true when it was one. */
  private build(line: string): boolean {
    const building = line.startsWith('Building ') ? V1_BUILDING.exec(line) : null;
    if (building?.[1] !== undefined) {
      this.seen.builds = true;
      this.building = building[1];
      return true;
    }
    const built = line.startsWith('Successfully built ') ? CLASSIC_BUILT.exec(line) : null;
    if (built?.[1] !== undefined) {
      this.seen.builds = true;
      this.built.add(this.building ?? built[1]);
      this.building = undefined;
      return true;
    }
    // The four patterns below start with ` `, `#`, `S` or `[`: not tried on other lines.
    const anchored = BUILD_INITIALS.has(line.charCodeAt(0));
    if (anchored && (CLASSIC_CACHE.test(line) || BUILDKIT_CACHED.test(line))) {
      this.seen.builds = true;
      this.cached++;
      return true;
    }
    if (line.includes('naming to ')) {
      const m = NAMING_TO.exec(line);
      if (m?.[1]) {
        this.seen.builds = true;
        this.namedImages.add(m[1]);
        return true;
      }
    }
    if (anchored && (CLASSIC_STEP.test(line) || BUILDKIT_LINE.test(line))) {
      this.seen.builds = true;
      return true;
    }
    return false;
  }

  /** Compose v2's progress events. */
  private v2(line: string): void {
    // No event but `Skipped` has more than three words besides a leading decoration and a trailing
    // duration. Told apart without splitting: most lines are program output, and a split of each was
    // most of what a deploy allocated (`npm run bench -- soak`).
    if (!line.includes('Skipped')) {
      const words = wordShape(line);
      if (words.count === 6) return;
      let spare = words.count - 3;
      if (
        spare > 0 &&
        words.firstEnd - words.firstStart === 1 &&
        DECORATIONS.has(line[words.firstStart] as string)
      )
        spare--;
      if (spare > 0 && DURATION.test(line.slice(words.lastStart, words.lastEnd))) spare--;
      if (spare > 0) return;
    }
    const tokens = wordsOf(line);
    if (tokens.length > 0 && DECORATIONS.has(tokens[0] as string)) tokens.shift();
    // `web Skipped - Image is already present locally`, `Image x Skipped - ...`: a pull that was not needed.
    const skipped = tokens.indexOf('Skipped');
    if (skipped === 1 || (skipped === 2 && tokens[0] === 'Image')) {
      this.seen.pulls = true;
      return;
    }
    if (tokens.length > 0 && DURATION.test(tokens[tokens.length - 1] as string)) tokens.pop();
    if (tokens.length < 2 || tokens.length > 3) return;
    const [first, second] = tokens as [string, string];
    const status = tokens[tokens.length - 1] as string;
    if (tokens.length === 3 && first === 'Container') {
      if (!V2_CONTAINER_WORDS.has(status)) return;
      this.seen.containers = true;
      if (status !== 'Removing' && status !== 'Removed') this.named.add(second);
      const state = V2_COUNTED.get(status);
      if (state) this.containers[state].add(second);
      return;
    }
    // `<name> Pulled` or `Image <name> Pulled`; likewise Built (also `Service <name> Built`).
    const name = tokens.length === 2 ? first : first === 'Image' || first === 'Service' ? second : undefined;
    if (name === undefined) return;
    if (status === 'Pulled' || status === 'Pulling') {
      this.seen.pulls = true;
      if (status === 'Pulled') this.pulled.add(name);
    } else if (status === 'Built' || status === 'Building') {
      this.seen.builds = true;
      if (status === 'Built') this.built.add(name);
    }
  }

  /** The containers v1 said it failed to create (`Creating x ... error`): `confirm` counts those made. */
  unsureCreations(): ReadonlySet<string> {
    return new Set(this.unsure.keys());
  }

  /** Counts the unsure creations the engine holds as created (or recreated); the others stay uncounted. */
  confirm(held: ReadonlySet<string>): void {
    for (const [name, verb] of this.unsure)
      if (held.has(name)) this.containers[verb === 'Creating' ? 'created' : 'recreated'].add(name);
    this.unsure.clear();
  }

  /** The containers the output named, but those it removed: what the deploy created, started or kept. */
  containerNames(): ReadonlySet<string> {
    return this.named;
  }

  /** The counts so far; undefined while no line was fed (unknown, never zero). */
  summary(): DeploySummary | undefined {
    if (this.lines === 0) return undefined;
    const summary: DeploySummary = {};
    if (this.seen.containers) {
      summary.containersCreated = this.containers.created.size;
      summary.containersStarted = this.containers.started.size;
      summary.containersRecreated = this.containers.recreated.size;
      summary.containersRemoved = this.containers.removed.size;
    }
    if (this.seen.pulls) summary.imagesPulled = this.pulled.size;
    if (this.seen.builds) {
      summary.imagesBuilt = this.built.size > 0 ? this.built.size : this.namedImages.size;
      summary.buildStepsCached = this.cached;
    }
    return summary;
  }
}
