import type { ScheduledTask } from 'node-cron';
import { distinctUntilChanged, map, type Observable, type Subscription } from 'rxjs';
import type { GeneralSettings } from '../../../projections/settings.js';
import { cronTask } from '../schedules/cron-task.js';

/**
 * The `deploy_log_reconcile` schedule: one node-cron task on `deployLogReconcileCron` while
 * `deployLogReconcileEnabled`, none otherwise. It follows the settings read model, so a recorded
 * change takes effect at once (no restart), and `stop()` leaves no timer behind.
 */

/** The cron expression to run on, or null for no task: what a settings value means for the schedule. */
export type ReconcileSettings = Pick<GeneralSettings, 'deployLogReconcileCron' | 'deployLogReconcileEnabled'>;

export const scheduleOf = (settings: ReconcileSettings): string | null =>
  settings.deployLogReconcileEnabled ? settings.deployLogReconcileCron : null;

interface ReconcileScheduleOptions {
  settings: Observable<ReconcileSettings>;
  /** A scheduled tick: runs a reconcile (trigger `cron`). */
  tick: () => Promise<unknown>;
  log?: (message: string) => void;
}

export class ReconcileSchedule {
  private task: ScheduledTask | undefined;
  private subscription: Subscription | undefined;
  private expression: string | null = null;
  private readonly options: ReconcileScheduleOptions;

  constructor(options: ReconcileScheduleOptions) {
    this.options = options;
  }

  /** The expression the running task uses, or null when there is none. */
  get current(): string | null {
    return this.expression;
  }

  start(): void {
    this.subscription = this.options.settings
      .pipe(map(scheduleOf), distinctUntilChanged())
      .subscribe((expression) => this.reschedule(expression));
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    this.reschedule(null);
  }

  private reschedule(expression: string | null): void {
    const log = this.options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
    void this.task?.destroy();
    this.task =
      expression === null ? undefined : cronTask('deploy_log_reconcile', expression, this.options.tick, log);
    this.expression = this.task ? expression : null;
  }
}
