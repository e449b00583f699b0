import { map } from 'rxjs';
import type { DeployRunsState } from '../../../projections/deploy-runs.js';
import { type ExecutionsState, reconcileExecutions } from '../../../projections/executions.js';
import { ProjectionRunner } from '../../../projections/runtime.js';
import { type GeneralSettings, generalSettings } from '../../../projections/settings.js';
import type { EventStore } from '../../store/types.js';
import type { User } from '../contracts.js';
import { Reconciler } from '../reconcile/reconciler.js';
import { ReconcileSchedule } from '../reconcile/schedule.js';
import {
  type ExecutionsPage,
  type ExtraExecution,
  listExecutions,
  type RunErrorOf,
} from './executions-list.js';
import { ScheduleLease } from './lease.js';
import { SettingsBook } from './settings.js';

interface StacksSchedulesOptions {
  store: EventStore;
  dataDir: string;
  runs: ProjectionRunner<DeployRunsState>;
}

/**
 * The stacks service's schedule side: general settings, the `deploy_log_reconcile` job and its cron
 * task, and the execution rows. Opened and closed with the service.
 */
export class StacksSchedules {
  readonly settings: SettingsBook;
  readonly reconciler: Reconciler;
  private readonly runs: ProjectionRunner<DeployRunsState>;
  private readonly executionsModel: ProjectionRunner<ExecutionsState>;
  private readonly settingsModel: ProjectionRunner<GeneralSettings>;
  private readonly schedule: ReconcileSchedule;
  private readonly leadership: ScheduleLease;

  private constructor(
    options: StacksSchedulesOptions,
    executionsModel: ProjectionRunner<ExecutionsState>,
    settingsModel: ProjectionRunner<GeneralSettings>,
  ) {
    this.runs = options.runs;
    this.executionsModel = executionsModel;
    this.settingsModel = settingsModel;
    this.settings = new SettingsBook(options.store, settingsModel);
    this.reconciler = new Reconciler({
      store: options.store,
      dataDir: options.dataDir,
      runs: options.runs,
      executions: executionsModel,
    });
    this.schedule = new ReconcileSchedule({
      settings: settingsModel.updates.pipe(map((update) => update.state)),
      tick: () => this.reconciler.run('cron', null),
    });
    this.leadership = new ScheduleLease(
      options.store,
      'deploy_log_reconcile:schedule',
      'reconcile',
      (lease) => {
        this.schedule.start();
        void lease.lost.then(() => {
          if (this.leadership.isStopped || this.leadership.held !== lease) return;
          // The lease's connection broke: another instance may take the schedule now.
          this.schedule.stop();
          void this.leadership.retake();
        });
      },
    );
  }

  /**
   * Catches the read models up and closes the executions a stopped server left `running`; the schedule
   * starts with startSchedule(). Nothing keeps running when it rejects.
   */
  static async open(options: StacksSchedulesOptions): Promise<StacksSchedules> {
    const executions = new ProjectionRunner(options.store, reconcileExecutions);
    const settings = new ProjectionRunner(options.store, generalSettings);
    try {
      await executions.start();
      await settings.start();
      const schedules = new StacksSchedules(options, executions, settings);
      await schedules.reconciler.closeInterrupted();
      return schedules;
    } catch (error) {
      await Promise.allSettled([executions.stop(), settings.stop()]);
      throw error;
    }
  }

  /**
   * Starts the cron task the settings ask for (it follows every later change of them) once this
   * instance holds the scheduler lease: with several instances on one log, one runs the schedule and
   * the others try again every few seconds, taking over when the holder is gone. Resolves when this
   * first attempt is decided.
   */
  startSchedule(): Promise<void> {
    return this.leadership.take();
  }

  /** The settings as they change (the retention schedule follows them too). */
  get settingsUpdates() {
    return this.settingsModel.updates.pipe(map((update) => update.state));
  }

  /** The reconcile schedule's cron expression now, or null when it is off. */
  get scheduledCron(): string | null {
    return this.schedule.current;
  }

  executions(
    user: User,
    page: { limit: number; offset: number },
    errorOf?: RunErrorOf,
    more: readonly ExtraExecution[] = [],
  ): Promise<ExecutionsPage> {
    return listExecutions(this.runs.state, this.executionsModel.state, user, page, errorOf, more);
  }

  /** Stops the cron task (no timer stays), ends a running reconcile, persists the read models. */
  async close(): Promise<void> {
    this.leadership.stop();
    this.schedule.stop();
    await this.leadership.release();
    await this.reconciler.stop();
    await Promise.allSettled([this.executionsModel.stop(), this.settingsModel.stop()]);
  }
}
