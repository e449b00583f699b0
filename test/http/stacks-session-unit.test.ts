/**
 * The pure parts of the web page's server side: the cookie reader, the session book (idle and absolute
 * ends, a user removed from the config) and the change an event stands for.
 */
import { describe, expect, it } from 'vitest';
import { type Change, changeOf, type Place } from '../../src/http/stacks/routes/events.js';
import { cookieOf, Sessions } from '../../src/http/stacks/session.js';
import type { StacksConfig, User } from '../../src/stacks/contracts.js';
import type { RecordedEvent } from '../../src/store/types.js';

const admin: User = { name: 'admin', token: 't', admin: true, grants: [], environmentAccess: '*' };
const config = { environments: [], users: [admin] } as unknown as StacksConfig;

describe('cookieOf', () => {
  it('finds one cookie among others, trimmed, and nothing else', () => {
    expect(cookieOf('a=1; chronicle_session=abc ; b=2', 'chronicle_session')).toBe('abc');
    expect(cookieOf('xchronicle_session=abc', 'chronicle_session')).toBeUndefined();
    expect(cookieOf('chronicle_session', 'chronicle_session')).toBeUndefined();
    expect(cookieOf(undefined, 'chronicle_session')).toBeUndefined();
    expect(cookieOf('__proto__=1', 'constructor')).toBeUndefined();
  });
});

describe('Sessions', () => {
  it('knows a session until it idles out, and every request restarts the idle clock', () => {
    const sessions = new Sessions(config);
    const id = sessions.create(admin, 0);
    const idle = 8 * 60 * 60 * 1000;
    expect(sessions.userOf(id, idle - 1)?.name).toBe('admin');
    expect(sessions.userOf(id, 2 * idle - 2)?.name).toBe('admin');
    expect(sessions.userOf(id, 3 * idle)).toBeUndefined();
    // Gone for good once ended.
    expect(sessions.userOf(id, 3 * idle)).toBeUndefined();
  });

  it('ends a session 7 days after sign-in however busy, and on sign-out', () => {
    const sessions = new Sessions(config);
    const id = sessions.create(admin, 0);
    const hour = 60 * 60 * 1000;
    for (let t = hour; t < 7 * 24 * hour; t += hour) expect(sessions.userOf(id, t)).toBeDefined();
    expect(sessions.userOf(id, 7 * 24 * hour + 1)).toBeUndefined();
    const other = sessions.create(admin, 0);
    sessions.delete(other);
    expect(sessions.userOf(other, 1)).toBeUndefined();
    expect(sessions.userOf('no-such-id', 1)).toBeUndefined();
    expect(sessions.userOf(undefined, 1)).toBeUndefined();
  });

  it('gives random ids and forgets the sessions of a user no longer in the config', () => {
    const sessions = new Sessions(config);
    const ghost: User = { ...admin, name: 'ghost' };
    const a = sessions.create(admin, 0);
    const b = sessions.create(ghost, 0);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sessions.userOf(b, 1)).toBeUndefined();
  });
});

const event = (stream: string, type: string, data: unknown = {}): RecordedEvent => ({
  stream,
  type,
  data,
  revision: 0,
  position: 1,
  metadata: { at: '2026-01-01T00:00:00Z' } as RecordedEvent['metadata'],
});

describe('changeOf', () => {
  const jobs = new Map<string, Place>([['j1', { stack: 'web', environmentId: 1, runId: 7 }]]);
  const runs = new Map<number, Place>([[7, { stack: 'web', environmentId: 1 }]]);
  const places = { job: (id: string) => jobs.get(id), run: (id: number) => runs.get(id) };

  it('names the run, job or stack of an event, with its place', () => {
    expect(changeOf(event('deploy-run-7', 'RunCompleted'), places)).toEqual<Change>({
      kind: 'run',
      type: 'RunCompleted',
      runId: 7,
      stack: 'web',
      environmentId: 1,
    });
    expect(changeOf(event('stack-job-j1', 'JobFinished'), places)).toEqual<Change>({
      kind: 'job',
      type: 'JobFinished',
      jobId: 'j1',
      stack: 'web',
      environmentId: 1,
      runId: 7,
    });
    expect(
      changeOf(event('stack-local-web', 'StackCreated', { stack: 'web', environment_id: null }), places),
    ).toEqual<Change>({ kind: 'stack', type: 'StackCreated', stack: 'web', environmentId: null });
    expect(changeOf(event('stack-2-api', 'StackDeleted'), places)).toEqual<Change>({
      kind: 'stack',
      type: 'StackDeleted',
      stack: 'api',
      environmentId: 2,
    });
    expect(changeOf(event('stacks-settings', 'SettingsChanged'), places)).toEqual({
      kind: 'settings',
      type: 'SettingsChanged',
    });
    expect(changeOf(event('schedule-execution-3', 'ExecutionStarted'), places)?.kind).toBe('schedule');
  });

  it('leaves out output lines, unknown jobs and runs, and other streams', () => {
    expect(changeOf(event('stack-job-j1', 'JobOutput'), places)).toBeUndefined();
    expect(changeOf(event('stack-job-j1', 'JobOutputSealed'), places)).toBeUndefined();
    expect(changeOf(event('stack-job-unknown', 'JobFinished'), places)).toBeUndefined();
    expect(changeOf(event('deploy-run-99', 'RunCompleted'), places)).toBeUndefined();
    expect(changeOf(event('key-run-7', 'OutputKeyCreated'), places)).toBeUndefined();
    expect(changeOf(event('editor-session-1', 'EntityAdded'), places)).toBeUndefined();
  });
});
