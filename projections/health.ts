import type { RecordedEvent } from '../src/store/types.js';

/**
 * What a projection reports about itself, and the error it halts with: shared by the live runner, the
 * rebuild and the on-demand models, which all stop on an event `evolve` throws on.
 */

export type ProjectionStatus = 'stopped' | 'catching_up' | 'live' | 'halted';

export interface ProjectionHealth {
  name: string;
  version: number;
  status: ProjectionStatus;
  healthy: boolean;
  position: number;
  /** Set when halted: the event evolve threw on, and what it threw. */
  failure?: { position: number; stream: string; revision: number; type: string; message: string };
}

/** Raised to waiters of a projection that stopped on an event it could not apply. */
export class ProjectionHaltedError extends Error {
  readonly health: ProjectionHealth;
  constructor(health: ProjectionHealth) {
    const f = health.failure;
    super(
      `projection ${health.name} halted at event ${f?.position} (${f?.type} in ${f?.stream}@${f?.revision}): ${f?.message}`,
    );
    this.name = 'ProjectionHaltedError';
    this.health = health;
  }
}

/** The failure record of an event `evolve` threw on (or of a subscription that failed: no event). */
export function failureOf(
  event: RecordedEvent | undefined,
  error: unknown,
  position: number,
): NonNullable<ProjectionHealth['failure']> {
  return {
    position: event?.position ?? position + 1,
    stream: event?.stream ?? '',
    revision: event?.revision ?? -1,
    type: event?.type ?? '(subscription failed)',
    message: error instanceof Error ? error.message : String(error),
  };
}
