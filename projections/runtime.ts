import { BehaviorSubject, type Observable, type Subscription } from 'rxjs';
import { SubscriberTooSlowError } from '../src/store/errors.js';
import type { EventStore, RecordedEvent } from '../src/store/types.js';
import { failureOf, ProjectionHaltedError, type ProjectionHealth, type ProjectionStatus } from './health.js';
import type { LiveRebuildOptions, LiveRebuildResult } from './live-model.js';
import { loadState, type Projection, persists, saveState } from './projection.js';
import { rebuildProjection } from './rebuild.js';

export { ProjectionHaltedError } from './health.js';

/** Raised to waiters still waiting when the runner is stopped: the position they wait for will not come. */
export class ProjectionStoppedError extends Error {
  constructor(name: string, position: number) {
    super(`projection ${name} stopped at position ${position}`);
    this.name = 'ProjectionStoppedError';
  }
}

interface ProjectionRunnerOptions {
  /** Persist a snapshot at most this often while events arrive (ms). */
  snapshotIntervalMs?: number;
  /** Live buffer of the store subscription (see SubscribeOptions.bufferSize). */
  bufferSize?: number;
  /**
   * Persist snapshots (default true). A read model of one stream that replays quickly but whose state
   * is large (an editor session with 100,000 entities is a 59 MB JSON value) is better rebuilt from its
   * stream than written out every few seconds.
   */
  snapshots?: boolean;
}

interface Waiter {
  position: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Feeds a projection from `store.subscribe()`: resumes from its snapshot (or from the start when the
 * snapshot is of another version), keeps `state` and `position`, snapshots now and then and on stop.
 * An event that `evolve` throws on halts it: the position stays before that event, the status is
 * unhealthy, waiters are rejected, and nothing after it is applied — an event is never skipped.
 */
export class ProjectionRunner<State> {
  readonly projection: Projection<State>;
  private readonly store: EventStore;
  private readonly options: Required<ProjectionRunnerOptions>;
  private current: State;
  private at = 0;
  private savedAt = 0;
  private status: ProjectionStatus = 'stopped';
  private failure: ProjectionHealth['failure'];
  private subscription: Subscription | undefined;
  private snapshotTimer: NodeJS.Timeout | undefined;
  private waiters: Waiter[] = [];
  private readonly changes: BehaviorSubject<{ state: State; position: number }>;

  constructor(store: EventStore, projection: Projection<State>, options: ProjectionRunnerOptions = {}) {
    this.store = store;
    this.projection = projection;
    this.options = { snapshotIntervalMs: 5_000, bufferSize: 65_536, snapshots: true, ...options };
    // A read model that is never written out (Projection.persist) gets no snapshots, whatever was asked.
    if (!persists(projection)) this.options.snapshots = false;
    this.current = projection.initial();
    this.changes = new BehaviorSubject({ state: this.current, position: 0 });
  }

  get state(): State {
    return this.current;
  }

  get name(): string {
    return this.projection.name;
  }

  get position(): number {
    return this.at;
  }

  /** State and position after each applied batch of events, for RxJS wiring (HTTP answers, SSE). */
  get updates(): Observable<{ state: State; position: number }> {
    return this.changes.asObservable();
  }

  health(): ProjectionHealth {
    return {
      name: this.projection.name,
      version: this.projection.version,
      status: this.status,
      healthy: this.status !== 'halted',
      position: this.at,
      ...(this.failure ? { failure: this.failure } : {}),
    };
  }

  /** Loads the snapshot and starts following the log; resolves once caught up with the current head. */
  async start(): Promise<void> {
    const snapshot = this.options.snapshots ? await this.store.loadSnapshot(this.projection.name) : undefined;
    if (snapshot && snapshot.version === this.projection.version) {
      this.current = loadState(this.projection, snapshot.state);
      this.at = this.savedAt = snapshot.position;
      this.changes.next({ state: this.current, position: this.at });
    }
    const head = await this.feedHead();
    this.follow();
    if (this.options.snapshots) {
      // A snapshot is a cache: one the store does not take now is tried at the next turn (a failed
      // store says why itself, src/store/failed-state.ts).
      this.snapshotTimer = setInterval(
        () => this.saveSnapshot().catch(() => undefined),
        this.options.snapshotIntervalMs,
      );
      this.snapshotTimer.unref();
    }
    await this.liveAt(head);
  }

  /** Reports `live` once every event up to `head` has been applied (unless halted or stopped first). */
  private async liveAt(head: number): Promise<void> {
    await this.waitFor(head);
    if (this.status === 'catching_up') this.status = 'live';
  }

  /** Resolves when every event up to `position` has been applied; rejects if the projection halts. */
  waitFor(position: number): Promise<void> {
    if (this.at >= position) return Promise.resolve();
    if (this.status === 'halted') return Promise.reject(new ProjectionHaltedError(this.health()));
    return new Promise((resolve, reject) => this.waiters.push({ position, resolve, reject }));
  }

  /** Stops following and persists a last snapshot. */
  async stop(): Promise<void> {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    clearInterval(this.snapshotTimer);
    if (this.status !== 'halted') this.status = 'stopped';
    this.rejectWaiters(new ProjectionStoppedError(this.projection.name, this.at));
    // A store that failed takes no snapshot: the next start replays from the last one (a cache), so
    // stopping goes on.
    await this.saveSnapshot().catch((error: unknown) => {
      if (this.store.failure === undefined) throw error;
    });
  }

  /** Position of the last event this projection is fed: of its stream, or of the whole log. */
  private feedHead(): Promise<number> {
    const stream = this.projection.stream;
    return stream === undefined ? this.store.headPosition() : this.lastPositionOf(stream);
  }

  private async lastPositionOf(stream: string): Promise<number> {
    for await (const last of this.store.readStream(stream, { direction: 'backwards', maxCount: 1 }))
      return last.position;
    return 0;
  }

  /** Persists state and position unless nothing changed since the last snapshot (or snapshots are off). */
  async saveSnapshot(): Promise<void> {
    if (!this.options.snapshots || this.savedAt === this.at) return;
    const position = this.at;
    await this.store.saveSnapshot({
      name: this.projection.name,
      version: this.projection.version,
      position,
      state: saveState(this.projection, this.current),
    });
    this.savedAt = position;
  }

  private follow(): void {
    this.status = 'catching_up';
    let pendingNotify = false;
    this.subscription = this.store
      .subscribe({ stream: this.projection.stream, from: this.at + 1, bufferSize: this.options.bufferSize })
      .subscribe({
        next: (event) => {
          if (this.status === 'halted') return;
          this.apply(event);
          // Waiters and observers hear once per turn of the event loop, not once per event.
          if (!pendingNotify) {
            pendingNotify = true;
            queueMicrotask(() => {
              pendingNotify = false;
              this.notify();
            });
          }
        },
        error: (error: unknown) => {
          if (error instanceof SubscriberTooSlowError && this.status !== 'halted') {
            // Dropped for lagging: the checkpoint is exact, so resubscribing loses nothing.
            this.follow();
            // follow() reports catching_up and only start() used to report live again, so a runner
            // dropped once stayed catching_up for good. A halt is reported by halt(), not here.
            void this.feedHead()
              .then((head) => this.liveAt(head))
              .catch(() => undefined);
            return;
          }
          this.halt(undefined, error);
        },
        complete: () => {
          if (this.status !== 'halted') this.status = 'stopped';
        },
      });
  }

  /**
   * Blue-green rebuild: replays the log into a new state beside the one that keeps answering (from a
   * rebuild checkpoint when an interrupted one left it), catches it up with the events this runner has
   * applied since, and swaps it in within one turn of the event loop — no answer ever sees half of it,
   * and no event is applied twice or skipped (the new state covers exactly the events up to `position`,
   * the live subscription goes on after it). Then saves it as the snapshot.
   */
  async rebuild(options: LiveRebuildOptions = {}): Promise<LiveRebuildResult> {
    const started = performance.now();
    const built = await rebuildProjection(this.store, this.projection, options.onProgress, 10_000, {
      save: false,
      ...(options.checkpointEvery !== undefined ? { checkpointEvery: options.checkpointEvery } : {}),
      ...(options.onCheckpoint ? { onCheckpoint: options.onCheckpoint } : {}),
      ...(options.onResume ? { onResume: options.onResume } : {}),
    });
    let state = built.state;
    let position = built.position;
    let events = built.events;
    for (;;) {
      if (this.status === 'halted') throw new ProjectionHaltedError(this.health());
      const target = this.at;
      for await (const event of this.store.readAll({ from: position + 1 })) {
        if (event.position > target) break;
        if (this.projection.stream !== undefined && event.stream !== this.projection.stream) continue;
        state = this.projection.evolve(state, event);
        position = event.position;
        events += 1;
      }
      // Nothing applied live while the catch-up read: the new state has every event the old one has.
      if (this.at === target) break;
    }
    this.current = state;
    this.savedAt = -1;
    this.changes.next({ state: this.current, position: this.at });
    await this.saveSnapshot();
    return {
      events,
      position: this.at,
      seconds: (performance.now() - started) / 1000,
      ...(built.resumedFrom !== undefined ? { resumedFrom: built.resumedFrom } : {}),
    };
  }

  private apply(event: RecordedEvent): void {
    try {
      this.current = this.projection.evolve(this.current, event);
    } catch (error) {
      this.halt(event, error);
      return;
    }
    this.at = event.position;
  }

  private notify(): void {
    this.changes.next({ state: this.current, position: this.at });
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (this.at >= waiter.position) waiter.resolve();
      else still.push(waiter);
    }
    this.waiters = still;
  }

  private halt(event: RecordedEvent | undefined, error: unknown): void {
    this.status = 'halted';
    this.subscription?.unsubscribe();
    this.failure = failureOf(event, error, this.at);
    this.rejectWaiters(new ProjectionHaltedError(this.health()));
  }

  private rejectWaiters(error: Error): void {
    for (const waiter of this.waiters) waiter.reject(error);
    this.waiters = [];
  }
}
