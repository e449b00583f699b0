/** The pure decisions of the deploy-log reconcile (spec, Reconcile rules 1-4): listings + records -> actions. */
import { describe, expect, it } from 'vitest';
import {
  environmentOfFolder,
  type FolderListing,
  modifiedKey,
  planReconcile,
  RECONCILE_GRACE_MS,
  RecordIndex,
  type RecordView,
  runIdOfLogName,
  unmatchedLogNames,
} from '../../src/stacks/reconcile/plan.js';
import type { EnvironmentId } from '../../streams/stacks.js';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const OLD = NOW - RECONCILE_GRACE_MS - 1;
const FRESH = NOW - RECONCILE_GRACE_MS + 1_000;

const rec = (id: number, env: EnvironmentId, terminal = true, logMissing = false): RecordView => ({
  id,
  environmentId: env,
  terminal,
  logMissing,
});
const folder = (env: EnvironmentId, names: string[], listed = true): FolderListing => ({
  environmentId: env,
  listed,
  names,
});

function plan(
  folders: FolderListing[],
  records: RecordView[],
  modified: Array<[EnvironmentId, string, number]> = [],
  after: RecordView[] = records,
) {
  return planReconcile({
    now: NOW,
    graceMs: RECONCILE_GRACE_MS,
    folders,
    modified: new Map(modified.map(([env, name, ms]) => [modifiedKey(env, name), ms])),
    before: new RecordIndex(records),
    after: new RecordIndex(after),
  });
}

describe('run-log and environment-folder names', () => {
  it('takes only `<positive int>.log` in one spelling', () => {
    expect(runIdOfLogName('1.log')).toBe(1);
    expect(runIdOfLogName('123456.log')).toBe(123456);
    for (const name of [
      '0.log',
      '007.log',
      '-1.log',
      '5.log.tmp',
      '5.LOG',
      'notes.txt',
      '5',
      '.log',
      ' 5.log',
    ])
      expect(runIdOfLogName(name)).toBeUndefined();
    expect(runIdOfLogName(`${'9'.repeat(20)}.log`)).toBeUndefined();
  });
  it('takes `null` and integers as environment folders, nothing else', () => {
    expect(environmentOfFolder('null')).toBeNull();
    expect(environmentOfFolder('3')).toBe(3);
    for (const name of ['local', '03', 'x', '', '1.5']) expect(environmentOfFolder(name)).toBeUndefined();
  });
});

describe('planReconcile', () => {
  it('deletes an old orphan, keeps a fresh one, and keeps every file that has a record', () => {
    const p = plan(
      [folder(null, ['1.log', '2.log', '3.log', '4.log'])],
      [rec(1, null), rec(2, null, false)],
      [
        [null, '3.log', OLD],
        [null, '4.log', FRESH],
      ],
    );
    expect(p.actions).toEqual([
      { kind: 'delete_file', environmentId: null, file: '3.log', runId: 3, modifiedMs: OLD },
    ]);
    expect(p.keptFresh).toBe(1);
    expect(p.environments).toEqual([null]);
  });

  it('keeps an orphan whose age is unknown (it was not stat-ed)', () => {
    const p = plan([folder(1, ['9.log'])], []);
    expect(p.actions).toEqual([]);
    expect(p.keptFresh).toBe(1);
  });

  it('flags a finished record without a file, once; never a queued/running/unknown one', () => {
    const p = plan(
      [folder(1, [])],
      [rec(10, 1), rec(11, 1, false), rec(12, 1, true, true), rec(13, 1, false)],
    );
    expect(p.actions).toEqual([{ kind: 'mark_missing', environmentId: 1, runId: 10, logFile: '10.log' }]);
  });

  it('works per environment: a file of run 5 in environment 2 is an orphan there even if run 5 is in 1', () => {
    const p = plan([folder(1, ['5.log']), folder(2, ['5.log'])], [rec(5, 1)], [[2, '5.log', OLD]]);
    expect(p.actions).toEqual([
      { kind: 'delete_file', environmentId: 2, file: '5.log', runId: 5, modifiedMs: OLD },
    ]);
    expect(p.environments).toEqual([1, 2]);
  });

  it('covers the union of environments with folders and with records, null first', () => {
    const p = plan([folder(3, []), folder(null, [])], [rec(1, 7), rec(2, null, false)]);
    expect(p.environments).toEqual([null, 3, 7]);
    expect(p.actions).toEqual([{ kind: 'mark_missing', environmentId: 7, runId: 1, logFile: '1.log' }]);
  });

  it('leaves and counts entries not named like run logs', () => {
    const p = plan(
      [folder(null, ['notes.txt', '007.log', '5.log.tmp', '0.log'])],
      [],
      [[null, '007.log', OLD]],
    );
    expect(p.actions).toEqual([]);
    expect(p.ignored).toBe(4);
    expect(p.keptFresh).toBe(0);
  });

  it('flags nothing of a folder that could not be listed, and deletes nothing there', () => {
    const p = plan([folder(1, [], false)], [rec(1, 1)]);
    expect(p.actions).toEqual([]);
    expect(p.environments).toEqual([1]);
  });

  it('does not flag a run that was still running before the listing (its file may have come after)', () => {
    const p = plan([folder(null, [])], [rec(1, null, false)], [], [rec(1, null, true)]);
    expect(p.actions).toEqual([]);
  });

  it('does not delete the file of a run that started during the listing', () => {
    const p = plan([folder(null, ['8.log'])], [], [[null, '8.log', OLD]], [rec(8, null, false)]);
    expect(p.actions).toEqual([]);
  });

  it('does not flag a run deleted during the listing', () => {
    const p = plan([folder(null, [])], [rec(4, null)], [], []);
    expect(p.actions).toEqual([]);
  });

  it('the grace is by modification time, exactly 5 minutes', () => {
    expect(RECONCILE_GRACE_MS).toBe(300_000);
    const edge = plan([folder(null, ['1.log'])], [], [[null, '1.log', NOW - RECONCILE_GRACE_MS]]);
    expect(edge.actions).toHaveLength(1);
    const inside = plan([folder(null, ['1.log'])], [], [[null, '1.log', NOW - RECONCILE_GRACE_MS + 1]]);
    expect(inside.actions).toHaveLength(0);
  });
});

describe('unmatchedLogNames', () => {
  it('names only run logs without a record in that environment (what needs a stat)', () => {
    const records = new RecordIndex([rec(1, null), rec(2, 1)]);
    expect(unmatchedLogNames(folder(null, ['1.log', '2.log', 'x.txt', '3.log']), records)).toEqual([
      '2.log',
      '3.log',
    ]);
  });
});
