import type { EventEmitter } from 'node:events';

/**
 * Settles on whichever of `events` the emitter fires first, leaving none of these listeners behind: how a
 * writer waits for `drain` without hanging on a stream that fails or closes instead.
 */
export function firstEvent(emitter: EventEmitter, events: readonly string[]): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      for (const event of events) emitter.off(event, done);
      resolve();
    };
    for (const event of events) emitter.once(event, done);
  });
}
