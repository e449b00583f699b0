/**
 * The compose job queue (config `jobs.maxConcurrent`, docs/security.md#limits-and-their-defaults): at most that
 * many compose jobs of this process run at once; the others wait their turn, first come first served,
 * `queued` in their poll and their run. The decision is pure (`admit`, `leave` over a QueueState);
 * `ComposeSlots` holds the state of one pool and the promises of the jobs waiting in it.
 *
 * The service has two pools of the same size: jobs (deploys, start, stop...), and the save-time checks
 * (`compose config`), so a check answering a save never waits behind deploys, nor deadlocks when every
 * job slot is taken by a job that checks a file itself.
 */

/** One pool: how many may run, who runs, who waits (in arrival order). */
export interface QueueState {
  readonly limit: number;
  readonly running: readonly string[];
  readonly waiting: readonly string[];
}

/** What a change decided: the new state, and the ids that hold a slot from now on (in order). */
interface QueueDecision {
  state: QueueState;
  start: string[];
}

export const emptyQueue = (limit: number): QueueState => ({ limit, running: [], waiting: [] });

/** Moves waiting ids into free slots, the first come first. */
function fill(state: QueueState): QueueDecision {
  const free = Math.max(0, state.limit - state.running.length);
  const start = state.waiting.slice(0, free);
  if (start.length === 0) return { state, start };
  return {
    state: {
      limit: state.limit,
      running: [...state.running, ...start],
      waiting: state.waiting.slice(start.length),
    },
    start,
  };
}

/**
 * A job asks for a slot: it runs at once when one is free (nobody waits then: a free slot is always
 * given away at once), else it waits after every job that asked before it. An id already in the queue
 * changes nothing.
 */
export function admit(state: QueueState, id: string): QueueDecision {
  if (state.running.includes(id) || state.waiting.includes(id)) return { state, start: [] };
  return fill({ ...state, waiting: [...state.waiting, id] });
}

/**
 * A job leaves: a running one frees its slot for the first waiting job; a waiting one is withdrawn (the
 * others keep their order). An unknown id changes nothing.
 */
export function leave(state: QueueState, id: string): QueueDecision {
  if (state.running.includes(id))
    return fill({ ...state, running: state.running.filter((running) => running !== id) });
  if (state.waiting.includes(id))
    return { state: { ...state, waiting: state.waiting.filter((waiting) => waiting !== id) }, start: [] };
  return { state, start: [] };
}

/** How many jobs wait before `id`; undefined when it does not wait. */
export function aheadOf(state: QueueState, id: string): number | undefined {
  const index = state.waiting.indexOf(id);
  return index < 0 ? undefined : index;
}

/** A job's place in a pool, from its request to its release. */
export interface Ticket {
  readonly id: string;
  /** Whether it had to wait when it asked (no slot was free). */
  readonly queued: boolean;
  /** Jobs that waited before it when it asked (0 when it ran at once). */
  readonly ahead: number;
  /** The pool's size. */
  readonly limit: number;
  /** Resolves once the job holds a slot; rejects with the reason given to `withdraw`. */
  readonly granted: Promise<void>;
  /** Whether it waits now. */
  readonly waiting: boolean;
  /** Leaves the pool: frees the slot, or leaves the queue (`granted` then rejects). Later calls: nothing. */
  release(): void;
  /** A waiting job leaves the queue, `granted` rejecting with `reason`; false when it does not wait. */
  withdraw(reason: Error): boolean;
}

/** A withdrawn ticket's reason when none is given. */
export class QueueWithdrawnError extends Error {
  constructor(message = 'The job left the queue before it ran') {
    super(message);
    this.name = 'QueueWithdrawnError';
  }
}

interface Waiter {
  resolve: () => void;
  reject: (reason: Error) => void;
}

/** One pool of slots (see the module's comment): tickets over the pure queue. */
export class ComposeSlots {
  private state: QueueState;
  private readonly waiters = new Map<string, Waiter>();
  private nextId = 0;

  constructor(limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 1)
      throw new RangeError(`a pool needs 1 slot or more, not ${limit}`);
    this.state = emptyQueue(limit);
  }

  get limit(): number {
    return this.state.limit;
  }

  /** Jobs holding a slot now. */
  get running(): number {
    return this.state.running.length;
  }

  /** Jobs waiting now. */
  get waiting(): number {
    return this.state.waiting.length;
  }

  /** Asks for a slot for the job `id` (unique in the pool: a job id). */
  request(id: string): Ticket {
    const decision = admit(this.state, id);
    this.state = decision.state;
    const ahead = aheadOf(this.state, id);
    const queued = ahead !== undefined;
    let released = false;
    const granted = queued
      ? new Promise<void>((resolve, reject) => {
          this.waiters.set(id, { resolve, reject });
        })
      : Promise.resolve();
    // A job that is withdrawn before it awaits its turn must not be an unhandled rejection.
    granted.catch(() => undefined);
    this.grant(decision.start.filter((started) => started !== id));
    const slots = this;
    return {
      id,
      queued,
      ahead: ahead ?? 0,
      limit: this.state.limit,
      granted,
      get waiting() {
        return slots.waiters.has(id);
      },
      release: () => {
        if (released) return;
        released = true;
        const waiter = this.waiters.get(id);
        this.waiters.delete(id);
        this.apply(leave(this.state, id));
        waiter?.reject(new QueueWithdrawnError());
      },
      withdraw: (reason: Error) => {
        const waiter = this.waiters.get(id);
        if (!waiter || released) return false;
        released = true;
        this.waiters.delete(id);
        this.apply(leave(this.state, id));
        waiter.reject(reason);
        return true;
      },
    };
  }

  /** Runs `work` in a slot of its own, waiting its turn first; the slot is freed when it settles. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    this.nextId += 1;
    const ticket = this.request(`work-${this.nextId}`);
    try {
      await ticket.granted;
      return await work();
    } finally {
      ticket.release();
    }
  }

  /** Withdraws every waiting job with `reason` (the server stops); returns how many. */
  withdrawAll(reason: Error): number {
    const ids = [...this.state.waiting];
    for (const id of ids) {
      const waiter = this.waiters.get(id);
      this.waiters.delete(id);
      this.apply(leave(this.state, id));
      waiter?.reject(reason);
    }
    return ids.length;
  }

  private apply(decision: QueueDecision): void {
    this.state = decision.state;
    this.grant(decision.start);
  }

  private grant(ids: readonly string[]): void {
    for (const id of ids) {
      const waiter = this.waiters.get(id);
      this.waiters.delete(id);
      waiter?.resolve();
    }
  }
}
