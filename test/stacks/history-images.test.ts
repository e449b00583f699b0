import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { deployHistory } from '../../projections/deploy-history.js';
import { diffRuns, type RunSide } from '../../src/stacks/history/diff.js';
import { describePins, pinImages, runImagesOf, serviceImages } from '../../src/stacks/history/images.js';
import type { ContainerStatus } from '../../src/stacks/stack/status.js';
import type { RecordedEvent } from '../../src/store/types.js';
import { type RunImage, runStream } from '../../streams/stacks.js';

const ID_A = `sha256:${'a'.repeat(64)}`;
const ID_B = `sha256:${'b'.repeat(64)}`;
const DIGEST = `nginx@sha256:${'c'.repeat(64)}`;

const container = (over: Partial<ContainerStatus>): ContainerStatus => ({
  service: 'web',
  name: 'p-web-1',
  state: 'running',
  health: null,
  exitCode: null,
  image: 'x:latest',
  imageId: ID_A,
  imageDigest: null,
  ports: [],
  startedAt: null,
  finishedAt: null,
  restartCount: 0,
  ...over,
});

const image = (over: Partial<RunImage>): RunImage => ({
  service: 'web',
  image: 'x:latest',
  imageId: ID_A,
  repoDigest: null,
  ...over,
});

const side = (runId: number, images: RunImage[]): RunSide => ({
  runId,
  compose: 'services: {}\n',
  composeHash: 'h',
  variables: [],
  secretProvider: null,
  options: { pull: false, build: false, forceRecreate: false },
  commit: null,
  images,
});

describe('runImagesOf', () => {
  it('takes one image per service (the first container by name), sorted, and skips containers of no service', () => {
    expect(
      runImagesOf([
        container({ service: 'web', name: 'p-web-2', imageId: ID_B }),
        container({ service: 'db', name: 'p-db-1', image: 'nginx:1', imageDigest: DIGEST }),
        container({ service: 'web', name: 'p-web-1' }),
        container({ service: null, name: 'stray' }),
      ]),
    ).toEqual([
      { service: 'db', image: 'nginx:1', imageId: ID_A, repoDigest: DIGEST },
      { service: 'web', image: 'x:latest', imageId: ID_A, repoDigest: null },
    ]);
    expect(runImagesOf([])).toEqual([]);
  });
});

describe('serviceImages', () => {
  it("each service's image: as written; services without one or of another shape left out", () => {
    const compose = `services:\n  web:\n    image: nginx:1.27\n  app:\n    build: .\n  odd: 3\n  db:\n    image: \${DB}:16\n`;
    expect([...serviceImages(compose)]).toEqual([
      ['web', 'nginx:1.27'],
      ['db', `\${DB}:16`],
    ]);
    expect(serviceImages('services: [unclosed').size).toBe(0);
  });
});

describe('pinImages', () => {
  const compose = [
    '# the web tier',
    'services:',
    '  web:',
    '    image: x:latest # moves',
    '  db:',
    '    image: nginx:1',
    '  built:',
    '    build: .',
    '  added:',
    '    command: ["true"]',
    '',
  ].join('\n');

  it('pins by registry digest when one was recorded, else by image id; keeps the rest of the text', () => {
    const pins = pinImages(compose, [
      image({ service: 'web' }),
      image({ service: 'db', image: 'nginx:1', repoDigest: DIGEST }),
      image({ service: 'added', imageId: ID_B }),
    ]);
    expect(pins.pinned).toEqual([
      { service: 'web', reference: ID_A },
      { service: 'db', reference: DIGEST },
      { service: 'added', reference: ID_B },
    ]);
    expect(parse(pins.compose)).toEqual({
      services: {
        web: { image: ID_A },
        db: { image: DIGEST },
        built: { build: '.' },
        added: { command: ['true'], image: ID_B },
      },
    });
    expect(pins.compose).toContain('# the web tier');
    expect(describePins(pins.pinned)).toBe(`web=${ID_A}, db=${DIGEST}, added=${ID_B}`);
  });

  it('leaves built services, services the text lacks, and unreadable texts as they are', () => {
    const none = pinImages(compose, [image({ service: 'built' }), image({ service: 'gone' })]);
    expect(none).toEqual({ compose, pinned: [] });
    expect(pinImages('services: [', [image({})])).toEqual({ compose: 'services: [', pinned: [] });
    expect(pinImages('services: 3\n', [image({})]).pinned).toEqual([]);
    expect(pinImages(compose, [])).toEqual({ compose, pinned: [] });
  });
});

describe('the image section of a diff', () => {
  it('names services whose image changed, came or went, by what the engine ran, not by the name used', () => {
    const from = side(1, [
      image({ service: 'same' }),
      image({ service: 'rebuilt' }),
      image({ service: 'gone' }),
      image({ service: 'repinned' }),
    ]);
    const to = side(2, [
      image({ service: 'same' }),
      image({ service: 'rebuilt', imageId: ID_B }),
      image({ service: 'new' }),
      image({ service: 'repinned', image: ID_A }),
    ]);
    expect(diffRuns(from, to).images).toEqual([
      { service: 'gone', from: from.images[2], to: null },
      { service: 'new', from: null, to: to.images[2] },
      { service: 'rebuilt', from: from.images[1], to: to.images[1] },
    ]);
    const digest = side(3, [image({ service: 'same', repoDigest: DIGEST })]);
    expect(diffRuns(side(4, [image({ service: 'same' })]), digest).images).toHaveLength(1);
  });
});

describe('the deploy-history projection', () => {
  let position = 0;
  const event = (type: string, data: unknown): RecordedEvent => ({
    stream: runStream(7),
    revision: position,
    position: ++position,
    type,
    data,
    metadata: { at: '2026-11-26T00:00:00.000Z' },
  });
  const content = {
    run_id: 7,
    compose_id: 'c',
    compose_hash: 'h',
    variables_id: 'v',
    variables_hash: 'w',
    secret_provider: null,
  };

  it('keeps the images a run recorded; a log without them (older runs, a fake compose) replays with none', () => {
    const recorded = [image({}), image({ service: 'db', repoDigest: DIGEST })];
    let state = deployHistory.initial();
    state = deployHistory.evolve(state, event('RunContentRecorded', content));
    expect(state.runs.get(7)?.images).toEqual([]);
    state = deployHistory.evolve(state, event('RunImagesRecorded', { run_id: 7, images: recorded }));
    expect(state.runs.get(7)?.images).toEqual(recorded);
  });
});
