/**
 * Settings and the reconcile schedule: the body check (unknown keys, types, cron problems named), what
 * a settings value means for the schedule, and a node-cron task that follows the settings at once and
 * leaves no task behind when stopped.
 */
import cron from 'node-cron';
import { BehaviorSubject } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { applySettingsChange, DEFAULT_SETTINGS } from '../../projections/settings.js';
import { StacksError } from '../../src/stacks/errors.js';
import {
  ReconcileSchedule,
  type ReconcileSettings,
  scheduleOf,
} from '../../src/stacks/reconcile/schedule.js';
import {
  cronProblem,
  parseSettingsPatch,
  settingsChangedEvent,
} from '../../src/stacks/schedules/settings.js';

const badRequest = (body: unknown): string => {
  try {
    parseSettingsPatch(body);
  } catch (error) {
    expect(error).toBeInstanceOf(StacksError);
    expect((error as StacksError).status).toBe(400);
    return (error as StacksError).message;
  }
  throw new Error(`accepted ${JSON.stringify(body)}`);
};

describe('settings bodies', () => {
  it('accepts a partial body of known keys', () => {
    expect(parseSettingsPatch({})).toEqual({});
    expect(parseSettingsPatch({ deployLogReconcileEnabled: false })).toEqual({
      deployLogReconcileEnabled: false,
    });
    expect(parseSettingsPatch({ deployLogReconcileCron: '*/5 * * * *' })).toEqual({
      deployLogReconcileCron: '*/5 * * * *',
    });
    expect(parseSettingsPatch({ deployLogReconcileCron: '* * * * * *' }).deployLogReconcileCron).toBe(
      '* * * * * *',
    );
  });
  it('refuses unknown keys, wrong types and non-objects, naming them', () => {
    expect(badRequest({ deployLogReconcile: true })).toMatch(/Unknown setting "deployLogReconcile"/);
    expect(badRequest({ deployLogReconcileEnabled: 'yes' })).toMatch(
      /deployLogReconcileEnabled must be a boolean/,
    );
    expect(badRequest({ deployLogReconcileCron: 5 })).toMatch(/deployLogReconcileCron must be a string/);
    expect(badRequest([])).toMatch(/JSON object/);
    expect(badRequest(null)).toMatch(/JSON object/);
  });
  it('refuses an invalid cron expression, naming the field and the problem', () => {
    expect(badRequest({ deployLogReconcileCron: '61 * * * *' })).toMatch(
      /"61 \* \* \* \*" is not a valid cron expression: minute: 61/,
    );
    expect(badRequest({ deployLogReconcileCron: 'daily' })).toMatch(/expected 5 or 6 fields but got 1/);
    expect(badRequest({ deployLogReconcileCron: '' })).toMatch(/it is empty/);
    expect(cronProblem('0 25 * * *')).toMatch(/hour/);
    expect(cronProblem('0 3 * * *')).toBeUndefined();
  });
  it('records only the keys a change sets, and the read model lays them over the settings', () => {
    const event = settingsChangedEvent({ deployLogReconcileEnabled: false }, 'admin');
    expect(event).toEqual({ deploy_log_reconcile_enabled: false, user_id: 'admin' });
    expect(applySettingsChange(DEFAULT_SETTINGS, event)).toEqual({
      deployLogReconcileCron: '0 3 * * *',
      deployLogReconcileEnabled: false,
      deployRunRetentionCron: '30 3 * * *',
      deployRunRetentionEnabled: true,
    });
  });
  it('the defaults: daily, enabled', () => {
    expect(DEFAULT_SETTINGS).toEqual({
      deployLogReconcileCron: '0 3 * * *',
      deployLogReconcileEnabled: true,
      deployRunRetentionCron: '30 3 * * *',
      deployRunRetentionEnabled: true,
    });
    expect(cron.validate(DEFAULT_SETTINGS.deployLogReconcileCron)).toBe(true);
  });
});

describe('the reconcile schedule', () => {
  let schedule: ReconcileSchedule | undefined;
  afterEach(() => schedule?.stop());

  it('disabled means no task; enabled means a task on the cron expression', () => {
    expect(scheduleOf({ deployLogReconcileCron: '0 3 * * *', deployLogReconcileEnabled: false })).toBeNull();
    expect(scheduleOf({ deployLogReconcileCron: '0 3 * * *', deployLogReconcileEnabled: true })).toBe(
      '0 3 * * *',
    );
  });

  it('follows the settings at once: a task per change, none when disabled, none after stop()', async () => {
    const tasksBefore = cron.getTasks().size;
    const settings = new BehaviorSubject<ReconcileSettings>({ ...DEFAULT_SETTINGS });
    let ticks = 0;
    const tick = async () => {
      ticks += 1;
    };
    schedule = new ReconcileSchedule({ settings, tick, log: () => {} });
    schedule.start();
    expect(schedule.current).toBe('0 3 * * *');
    expect(cron.getTasks().size).toBe(tasksBefore + 1);

    settings.next({ deployLogReconcileCron: '* * * * * *', deployLogReconcileEnabled: true });
    expect(schedule.current).toBe('* * * * * *');
    expect(cron.getTasks().size).toBe(tasksBefore + 1);
    const deadline = Date.now() + 5_000;
    while (ticks === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(ticks).toBeGreaterThan(0);

    settings.next({ deployLogReconcileCron: '* * * * * *', deployLogReconcileEnabled: false });
    expect(schedule.current).toBeNull();
    expect(cron.getTasks().size).toBe(tasksBefore);
    const after = ticks;
    await new Promise((r) => setTimeout(r, 2_200));
    expect(ticks).toBe(after);

    settings.next({ deployLogReconcileCron: '0 4 * * *', deployLogReconcileEnabled: true });
    expect(cron.getTasks().size).toBe(tasksBefore + 1);
    schedule.stop();
    expect(cron.getTasks().size).toBe(tasksBefore);
  });

  it('a failing tick (a manual run holds the lock) is logged, and the schedule goes on', async () => {
    const settings = new BehaviorSubject<ReconcileSettings>({
      deployLogReconcileCron: '* * * * * *',
      deployLogReconcileEnabled: true,
    });
    const logged: string[] = [];
    let ticks = 0;
    schedule = new ReconcileSchedule({
      settings,
      tick: async () => {
        ticks += 1;
        throw new Error('A deploy_log_reconcile is already running');
      },
      log: (m) => logged.push(m),
    });
    schedule.start();
    const deadline = Date.now() + 5_000;
    while (logged.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(logged[0]).toMatch(/did not run: A deploy_log_reconcile is already running/);
    expect(schedule.current).toBe('* * * * * *');
    expect(ticks).toBeGreaterThan(0);
  });
});
