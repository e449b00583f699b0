import cron, { type ScheduledTask } from 'node-cron';

/**
 * The node-cron task of a schedule (`name`, as its stderr lines name it): `tick` on `expression`, one at a
 * time (a tick still running makes the next skip its turn). A tick that throws (a manual run going on, a
 * store failure) is logged and the next one tries again. Undefined, logged, when node-cron refuses the
 * expression: settings are checked before they are recorded, so one it still refuses (a log written by
 * another version, say) leaves the schedule off rather than the service down.
 */
export function cronTask(
  name: string,
  expression: string,
  tick: () => Promise<unknown>,
  log: (line: string) => void,
): ScheduledTask | undefined {
  try {
    return cron.schedule(
      expression,
      async () => {
        try {
          await tick();
        } catch (error) {
          log(`stacks: scheduled ${name} did not run: ${(error as Error).message}`);
        }
      },
      {
        name,
        noOverlap: true,
        logger: {
          info: () => {},
          debug: () => {},
          warn: (message) => log(`stacks: ${name} schedule: ${message}`),
          error: (message) => log(`stacks: ${name} schedule: ${String(message)}`),
        },
      },
    );
  } catch (error) {
    log(`stacks: cannot schedule ${name} on ${JSON.stringify(expression)}: ${(error as Error).message}`);
    return undefined;
  }
}
