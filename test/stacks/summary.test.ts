import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isV2ProgressLine, SummaryCounter, wordShape, wordsOf } from '../../src/stacks/compose/summary.js';
import { PROTOTYPE_NAMES } from '../fuzz-names.js';

const count = (text: string) => {
  const c = new SummaryCounter();
  for (const l of text.split('\n')) c.add(l);
  return c.summary();
};

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'compose-output');
/** A fixture's lines as chronicle reads them (the last newline ends the last line). */
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8').replace(/\n$/, '');
const containers = (created: number, started: number, recreated: number, removed: number) => ({
  containersCreated: created,
  containersStarted: started,
  containersRecreated: recreated,
  containersRemoved: removed,
});

describe('SummaryCounter on real compose output (test/fixtures/compose-output)', () => {
  it('v1 up: two containers created and started (each line printed twice, names padded)', () => {
    expect(count(fixture('v1-up-create.txt'))).toEqual(containers(2, 2, 0, 0));
  });

  it('v1 up of a changed file: one recreated and started, one up to date', () => {
    expect(count(fixture('v1-up-changed.txt'))).toEqual(containers(0, 1, 1, 0));
  });

  it('v1 up --force-recreate, an orphan removed, a stopped one started', () => {
    expect(count(fixture('v1-up-force-recreate.txt'))).toEqual(containers(0, 2, 2, 0));
    expect(count(fixture('v1-up-orphan.txt'))).toEqual(containers(0, 0, 0, 1));
    expect(count(fixture('v1-up-start-stopped.txt'))).toEqual(containers(0, 1, 0, 0));
  });

  it('v1 stop, restart and down: container lines seen, removals counted', () => {
    expect(count(fixture('v1-stop.txt'))).toEqual(containers(0, 0, 0, 0));
    expect(count(fixture('v1-restart.txt'))).toEqual(containers(0, 0, 0, 0));
    expect(count(fixture('v1-down.txt'))).toEqual(containers(0, 0, 0, 1));
  });

  it('v1 build through the classic builder: one image built, then every step from the cache', () => {
    expect(count(fixture('v1-up-build.txt'))).toEqual({
      ...containers(1, 1, 0, 0),
      imagesBuilt: 1,
      buildStepsCached: 0,
    });
    expect(count(fixture('v1-up-build-cached.txt'))).toEqual({
      ...containers(0, 0, 0, 0),
      imagesBuilt: 1,
      buildStepsCached: 3,
    });
  });

  it('v1 pull that failed: a pull was seen, nothing pulled; no container counts', () => {
    expect(count(fixture('v1-pull-failed.txt'))).toEqual({ imagesPulled: 0 });
    expect(count('Pulling web ... \nPulling web ... done\nPulling db  ... done')).toEqual({
      imagesPulled: 2,
    });
  });

  it('v1 usage text (an unknown flag) is not a summary of anything', () => {
    expect(count(fixture('v1-up-unknown-flag.txt'))).toEqual({});
  });

  it('v2 up: network and two containers; a changed one recreated; an orphan removed', () => {
    expect(count(fixture('v2-up-create.txt'))).toEqual(containers(2, 2, 0, 0));
    expect(count(fixture('v2-up-changed.txt'))).toEqual(containers(0, 1, 1, 0));
    expect(count(fixture('v2-up-orphan.txt'))).toEqual(containers(0, 0, 0, 1));
    expect(count(fixture('v2-stop.txt'))).toEqual(containers(0, 0, 0, 0));
  });

  it('v2 pulls: pulled images counted once, skipped ones seen', () => {
    expect(count(fixture('v2-pull.txt'))).toEqual({ imagesPulled: 2 });
    expect(count(fixture('v2-pull-skipped.txt'))).toEqual({ imagesPulled: 1 });
  });

  it('v2 up --build with BuildKit: the Built event counts, CACHED steps are counted', () => {
    expect(count(fixture('v2-up-build-buildkit.txt'))).toEqual({
      ...containers(1, 1, 0, 0),
      imagesBuilt: 1,
      buildStepsCached: 2,
    });
  });
});

describe('wordShape and wordsOf', () => {
  const unit = fc.constantFrom(
    'a',
    'B',
    '-',
    ' ',
    '\t',
    '\n',
    '\r',
    '\v',
    '\f',
    '\u00a0',
    '\u2003',
    '\u2028',
    '\u3000',
    '\ufeff',
    '\u0085',
    '\u200b',
    'é',
  );
  it('tells six words or more as /^\\s*(?:\\S+\\s+){5}\\S/ does, every kind of white space included', () => {
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), (line) => {
        expect(wordShape(line).count === 6).toBe(/^\s*(?:\S+\s+){5}\S/.test(line));
      }),
      { numRuns: 2_000 },
    );
  });

  it('counts words up to six and finds the first and the last as the split does', () => {
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), (line) => {
        const words = wordsOf(line);
        const shape = { ...wordShape(line) };
        expect(shape.count).toBe(Math.min(6, words.length));
        if (words.length >= 1) expect(line.slice(shape.firstStart, shape.firstEnd)).toBe(words[0]);
        if (words.length >= 1 && words.length < 6)
          expect(line.slice(shape.lastStart, shape.lastEnd)).toBe(words.at(-1));
      }),
      { numRuns: 2_000 },
    );
  });

  it('splits words as line.trim().split(/\\s+/) does (none for a blank line)', () => {
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), (line) => {
        expect(wordsOf(line)).toEqual(line.trim() === '' ? [] : line.trim().split(/\s+/));
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('SummaryCounter', () => {
  it('recognises each progress verb of v1 and each kind of build line (the first-character gates let all through)', () => {
    const verbs = [
      'Creating',
      'Recreating',
      'Starting',
      'Stopping',
      'Removing',
      'Restarting',
      'Killing',
      'Pausing',
      'Unpausing',
    ];
    for (const verb of verbs)
      expect(count(`${verb} shop_web_1 ... done`), verb).toHaveProperty('containersCreated');
    expect(count('Pulling web (nginx:1.27)...')).toEqual({ imagesPulled: 0 });
    for (const line of [' ---> Using cache', '#5 CACHED', ' => CACHED [web 2/3] RUN x'])
      expect(count(line), line).toEqual({ imagesBuilt: 0, buildStepsCached: 1 });
    for (const line of [
      'Step 1/5 : FROM node:22',
      '#3 [web 1/2] FROM docker.io/x',
      '[+] Building 1.2s (9/9)',
    ])
      expect(count(line), line).toEqual({ imagesBuilt: 0, buildStepsCached: 0 });
  });

  it('is undefined before any line, and empty (no zeros) after lines it does not recognise', () => {
    expect(new SummaryCounter().summary()).toBeUndefined();
    expect(count('hello\nWARNING: The TOKEN variable is not set')).toEqual({});
  });

  it('a first `up --detach` with a pull (plain progress writer)', () => {
    const transcript = [
      ' web Pulling ',
      ' db Pulling ',
      ' 1f7ce2fa46ab Pulling fs layer ',
      ' 1f7ce2fa46ab Downloading [==>    ]  1.2MB/29MB',
      ' 1f7ce2fa46ab Pull complete ',
      ' db Pulled ',
      ' web Pulled ',
      ' Network shop_default  Creating',
      ' Network shop_default  Created',
      ' Volume "shop_data"  Creating',
      ' Volume "shop_data"  Created',
      ' Container shop-db-1  Creating',
      ' Container shop-web-1  Creating',
      ' Container shop-db-1  Created',
      ' Container shop-web-1  Created',
      ' Container shop-db-1  Starting',
      ' Container shop-web-1  Starting',
      ' Container shop-db-1  Started',
      ' Container shop-web-1  Started',
    ].join('\n');
    expect(count(transcript)).toEqual({
      containersCreated: 2,
      containersStarted: 2,
      containersRecreated: 0,
      containersRemoved: 0,
      imagesPulled: 2,
    });
  });

  it('a redeploy with --force-recreate, an orphan removed, a running one untouched, newer image lines', () => {
    const transcript = [
      ' Image nginx:1.27 Pulling ',
      ' Image nginx:1.27 Pulled ',
      ' Container shop-old-1  Stopping',
      ' Container shop-old-1  Stopped',
      ' Container shop-old-1  Removing',
      ' Container shop-old-1  Removed',
      ' Container shop-web-1  Recreate',
      ' Container shop-web-1  Recreated',
      ' Container shop-web-1  Starting',
      ' Container shop-web-1  Started',
      ' Container shop-web-1  Started',
      ' Container shop-db-1  Running',
    ].join('\n');
    expect(count(transcript)).toMatchObject({
      containersCreated: 0,
      containersStarted: 1,
      containersRecreated: 1,
      containersRemoved: 1,
      imagesPulled: 1,
    });
  });

  it('tty decorations (check mark, durations) are tolerated', () => {
    const transcript = [
      ' ✔ Network shop_default    Created    0.1s',
      ' ✔ Container shop-web-1    Started    0.4s',
      ' ✔ web Pulled              3.2s',
      ' ✘ Container shop-db-1     Error      0.2s',
    ].join('\n');
    expect(count(transcript)).toMatchObject({ containersStarted: 1, imagesPulled: 1, containersCreated: 0 });
  });

  it('builds: compose Built events win over BuildKit naming lines; naming lines count alone otherwise', () => {
    const buildkit = [
      '#0 building with "default" instance using docker driver',
      '#5 [web 2/3] RUN npm ci',
      '#8 exporting to image',
      '#8 naming to docker.io/library/shop-web done',
      '#9 naming to docker.io/library/shop-api done',
      '#9 naming to docker.io/library/shop-api done',
    ];
    expect(count(buildkit.join('\n'))?.imagesBuilt).toBe(2);
    expect(
      count([...buildkit, ' web Built', ' Service api  Built', ' Image shop-web Built'].join('\n'))
        ?.imagesBuilt,
    ).toBe(3);
  });

  it('program output that merely mentions the words is not counted', () => {
    const transcript = [
      'web-1  | Container started in 12ms',
      'Error response from daemon: Container shop-web-1 is not running',
      'Started',
      ` Container ${'x'.repeat(400)}  Started`,
    ].join('\n');
    expect(count(transcript)).toEqual({});
  });

  it('names and words are opaque: prototype property names count like any other (property)', () => {
    // One transcript, rendered twice: with ordinary container, image and status words, and with
    // Object.prototype's property names in their places. The counts must not tell the two apart.
    const STATUSES = ['Created', 'Started', 'Recreated', 'Removed', 'Pulled', 'Built'];
    const ordinary = {
      names: ['web', 'db', 'api', 'cache', 'proxy'],
      words: ['Paused', 'Queued', 'Attached'],
    };
    const protoNames = [...PROTOTYPE_NAMES];
    const event = fc.record({
      prefix: fc.constantFrom('Container', 'Image', 'Service', 'Network', ''),
      name: fc.nat(4),
      // An index into STATUSES, or (negative) into the other words.
      status: fc.integer({ min: -3, max: STATUSES.length - 1 }),
      decorated: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 40 }),
        fc.shuffledSubarray(protoNames, { minLength: 8, maxLength: 8 }),
        (events, picked) => {
          const trap = { names: picked.slice(0, 5), words: picked.slice(5) };
          const render = (words: typeof ordinary) =>
            events.map((e) => {
              const status = e.status >= 0 ? STATUSES[e.status] : words.words[-e.status - 1];
              const head = e.prefix === '' ? '' : `${e.prefix} `;
              return `${e.decorated ? ' ✔' : ''} ${head}${words.names[e.name]}  ${status}${e.decorated ? ' 0.4s' : ''}`;
            });
          const plain = new SummaryCounter();
          for (const line of render(ordinary)) plain.add(line);
          const tricky = new SummaryCounter();
          for (const line of render(trap)) tricky.add(line);
          expect(tricky.summary()).toEqual(plain.summary());
        },
      ),
    );
  });
});

describe('isV2ProgressLine', () => {
  it("v2's container, network and volume events, with or without the tty writer's decorations", () => {
    for (const line of [
      ' Container web-app-1  Started',
      ' Network web_default  Created',
      ' Volume "web_data"  Created',
      ' ✔ Container web-app-1  Started  0.4s',
      ' Container web-app-1  Waiting',
    ])
      expect(isV2ProgressLine(line), line).toBe(true);
    for (const line of [
      ' Container web-app-1  Error',
      'Error response from daemon: boom',
      'Creating web_app_1 ... done',
      'container web-app-1 exited (3)',
    ])
      expect(isV2ProgressLine(line), line).toBe(false);
  });
});

describe("v1's Creating x ... error", () => {
  it('counts as created only when the engine holds the container', () => {
    const counter = new SummaryCounter();
    for (const line of [
      'Creating shop_web_1 ... ',
      'Creating shop_web_1 ... error',
      'Creating shop_db_1 ... error',
    ])
      counter.add(line);
    expect([...counter.unsureCreations()].sort()).toEqual(['shop_db_1', 'shop_web_1']);
    expect(counter.summary()).toMatchObject({ containersCreated: 0, containersStarted: 0 });
    counter.confirm(new Set(['shop_web_1']));
    expect(counter.summary()).toMatchObject({ containersCreated: 1, containersStarted: 0 });
    expect(counter.unsureCreations().size).toBe(0);
  });
});
