import { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import {
  type ContainerLogLine,
  readContainerLogs,
  sinceOf,
} from '../../../src/stacks/engine/container-logs.js';
import { createRedactor } from '../../../src/stacks/output/redaction.js';

/** A multiplexed frame of the engine's log answer. */
const frame = (stream: 1 | 2, text: string): Buffer => {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
};

type Line = [1 | 2, string, string];

/**
 * An engine stand-in with one container whose log file holds `lines` in this order (time, text): it
 * answers `logs` as dockerd does, filtering by `since`/`until` and `tail`, and a followed read ends
 * after what it holds. It records each read's options.
 */
function engineWith(lines: Line[]) {
  const reads: Array<Record<string, unknown>> = [];
  const seconds = (t: string) => Number(sinceOf(t));
  const docker = {
    info: async () => ({ SystemTime: '2026-12-01T10:00:10.000000000Z' }),
    getContainer: () => ({ inspect: async () => ({ Config: { Tty: false } }) }),
    modem: {
      dial: (options: { options: Record<string, unknown> }, callback: (e: unknown, s: unknown) => void) => {
        const asked = options.options;
        reads.push(asked);
        let chosen = lines.filter(([, time]) => {
          const at = seconds(time);
          return (
            (asked.since === undefined || at >= Number(asked.since)) &&
            (asked.until === undefined || at <= Number(asked.until))
          );
        });
        if (typeof asked.tail === 'number') chosen = chosen.slice(Math.max(0, chosen.length - asked.tail));
        callback(null, Readable.from(chosen.map(([s, time, text]) => frame(s, `${time} ${text}\n`))));
      },
    },
  } as unknown as Docker;
  return { docker, reads };
}

/** Three lines, the last two at the very same time (stdout and stderr). */
const TWO_AT_ONCE: Line[] = [
  [1, '2026-12-01T10:00:01.100000001Z', 'one'],
  [1, '2026-12-01T10:00:02.5Z', 'two'],
  [2, '2026-12-01T10:00:02.5Z', 'two on stderr'],
];

/** Follows shop-web-1's last 2 lines, and stops once 2 lines were given; the lines given. */
async function followTwoLines(docker: Docker, wholeProject = false): Promise<string[]> {
  const controller = new AbortController();
  const got: string[] = [];
  await readContainerLogs(
    { docker, project: 'shop', redactor: createRedactor([]) },
    [{ name: 'shop-web-1', service: 'web' }],
    { tail: 2, follow: true, signal: controller.signal },
    (lines) => {
      for (const line of lines) got.push(line.line);
      if (got.length === 2) setTimeout(() => controller.abort(), 50);
      return undefined;
    },
    wholeProject,
  );
  return got;
}

describe('readContainerLogs', () => {
  it("gives every line in the log's order, also one timed before the line written before it", async () => {
    // dockerd times stdout and stderr apart: the file can hold a later time before an earlier one.
    const { docker } = engineWith([
      [1, '2026-12-01T10:00:01.100Z', 'web-started'],
      [1, '2026-12-01T10:00:01.300Z', 'token=s3cr3t-token-value'],
      [2, '2026-12-01T10:00:01.200Z', 'web-warning'],
    ]);
    const got: ContainerLogLine[] = [];
    await readContainerLogs(
      { docker, project: 'shop', redactor: createRedactor(['s3cr3t-token-value']) },
      [{ name: 'shop-web-1', service: 'web' }],
      { tail: 'all', follow: false, signal: new AbortController().signal },
      (lines) => {
        got.push(...lines);
        return undefined;
      },
    );
    expect(got.map((l) => [l.stream, l.line])).toEqual([
      ['stdout', 'web-started'],
      ['stdout', 'token=***'],
      ['stderr', 'web-warning'],
    ]);
  });

  it('a followed container is one stream of the engine: its last lines, then on; the engine time unasked', async () => {
    const { docker, reads } = engineWith(TWO_AT_ONCE);
    let asked = 0;
    const counted = Object.assign(Object.create(docker), {
      info: async () => {
        asked += 1;
        return docker.info();
      },
    }) as typeof docker;
    const got = await followTwoLines(counted);
    // Two lines at the very same time, both given: nothing came before them to be repeated.
    expect(got).toEqual(['two', 'two on stderr']);
    expect(reads.map((r) => [r.tail, r.since, r.until, r.follow])).toEqual([[2, undefined, undefined, true]]);
    expect(asked).toBe(0);
  });

  it('a follow starts at the time of the last line given, to the nanosecond, and drops what it repeats', async () => {
    const { docker, reads } = engineWith(TWO_AT_ONCE);
    // A whole stack's follow (here of one container): its last lines up to the engine's time, then on.
    const got = await followTwoLines(docker, true);
    expect(got).toEqual(['two', 'two on stderr']);
    expect(reads.map((r) => [r.tail, r.since, r.until, r.follow])).toEqual([
      [2, undefined, 1796119210, undefined],
      [undefined, '1796119202.500000000', undefined, true],
    ]);
  });
});

describe('sinceOf', () => {
  it('an engine time as Unix seconds and nanoseconds', () => {
    expect(sinceOf('2026-12-01T10:00:02.5Z')).toBe('1796119202.500000000');
    expect(sinceOf('2026-12-01T10:00:02Z')).toBe('1796119202.000000000');
    expect(sinceOf('not a time')).toBeUndefined();
  });
});
