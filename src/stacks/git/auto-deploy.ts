/**
 * The git stacks' auto-deploy schedules: one node-cron task per git stack with an `autoDeployCron`.
 * The tasks follow the git-stacks read model: `sync` is called with every new state, so a stack created
 * gets its task, a changed expression gets a new one, and a deleted stack (or a cron set to null)
 * loses its task; on start the first state re-creates them all. What a tick does (compare the remote's
 * commit with the last deployed one, deploy when it changed) is the caller's `tick`.
 */
import cron, { type ScheduledTask } from 'node-cron';

/** Which tasks to stop and which to start so that `current` becomes `wanted` (key → expression). */
export function planSchedules(
  current: ReadonlyMap<string, string>,
  wanted: ReadonlyMap<string, string>,
): { stop: string[]; start: Array<[key: string, expression: string]> } {
  const stop: string[] = [];
  const start: Array<[string, string]> = [];
  for (const [key, expression] of current) if (wanted.get(key) !== expression) stop.push(key);
  for (const [key, expression] of wanted) if (current.get(key) !== expression) start.push([key, expression]);
  return { stop, start };
}

// node-cron's own warnings (a missed second while the loop was busy) are noise here; failures of a
// tick are reported by the tick itself.
const quietLogger = {
  info: () => {},
  warn: () => {},
  debug: () => {},
  error: (message: string | Error) => {
    process.stderr.write(
      `stacks: auto-deploy scheduler: ${message instanceof Error ? message.message : message}\n`,
    );
  },
};

export class AutoDeploySchedules {
  private readonly tasks = new Map<string, { expression: string; task: ScheduledTask }>();
  /** Expressions node-cron refused, by stack key: said once, tried again only when they change. */
  private readonly refused = new Map<string, string>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly tick: (key: string) => Promise<void>) {}

  /** Expressions of the scheduled tasks, by stack key. */
  get scheduled(): Map<string, string> {
    return new Map([...this.tasks].map(([key, { expression }]) => [key, expression]));
  }

  /** Brings the tasks in line with `wanted` (stack key → cron expression). */
  sync(wanted: ReadonlyMap<string, string>): void {
    if (this.stopped) return;
    const plan = planSchedules(new Map([...this.scheduled, ...this.refused]), wanted);
    for (const key of plan.stop) {
      const entry = this.tasks.get(key);
      this.tasks.delete(key);
      this.refused.delete(key);
      void entry?.task.destroy();
    }
    for (const [key, expression] of plan.start) {
      // Expressions are checked before they are recorded, but a log written by another version may
      // hold one node-cron refuses: that stack goes without its schedule, the others keep theirs, and
      // the caller (a subscriber of the read model) never throws.
      try {
        const task = cron.schedule(expression, () => this.run(key), {
          name: `git-auto-deploy ${key}`,
          // A tick that is still fetching or deploying makes the next ones skip their turn.
          noOverlap: true,
          logger: quietLogger,
        });
        this.tasks.set(key, { expression, task });
      } catch (error) {
        this.refused.set(key, expression);
        process.stderr.write(
          `stacks: cannot schedule the auto-deploy of ${key} on ${JSON.stringify(expression)}: ${(error as Error).message}\n`,
        );
      }
    }
  }

  private run(key: string): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const done = this.tick(key).finally(() => this.running.delete(done));
    this.running.add(done);
    return done;
  }

  /** Stops every task; ticks already running go on (see `drain`). */
  stop(): void {
    this.stopped = true;
    for (const { task } of this.tasks.values()) void task.destroy();
    this.tasks.clear();
  }

  /** Waits for the ticks still running. */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }
}
