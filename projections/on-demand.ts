import type { EventStore } from '../src/store/types.js';
import { failureOf, ProjectionHaltedError } from './health.js';
import { loadState, type Projection, saveState } from './projection.js';

/**
 * A read model caught up when it is read rather than fed live. A live subscriber makes the store decode
 * every committed event on the appender's turn of the event loop — in the editor that is the whole DXF
 * of an open (100 MB of JSON for 300,000 entities), which would stall every other caller for seconds.
 * A read model that only an occasional audit request reads is cheaper caught up then: from its snapshot,
 * through the log's new events, and snapshotted again.
 */
export class OnDemandProjection<State> {
  private readonly store: EventStore;
  private readonly projection: Projection<State>;
  private state: State;
  private position = 0;
  private loaded = false;
  private reading: Promise<State> = Promise.resolve(undefined as State);

  constructor(store: EventStore, projection: Projection<State>) {
    this.store = store;
    this.projection = projection;
    this.state = projection.initial();
  }

  /** The state with every event committed before the call applied; one catch-up at a time. */
  read(): Promise<State> {
    const next = this.reading.catch(() => undefined).then(() => this.catchUp());
    this.reading = next;
    return next;
  }

  private async catchUp(): Promise<State> {
    if (!this.loaded) {
      const snapshot = await this.store.loadSnapshot(this.projection.name);
      if (snapshot && snapshot.version === this.projection.version) {
        this.state = loadState(this.projection, snapshot.state);
        this.position = snapshot.position;
      } else {
        this.state = this.projection.initial();
        this.position = 0;
      }
      this.loaded = true;
    }
    const from = this.position;
    const head = await this.store.headPosition();
    for await (const event of this.store.readAll({ from: this.position + 1 })) {
      if (event.position > head) break;
      try {
        this.state = this.projection.evolve(this.state, event);
      } catch (error) {
        // evolve may have changed the state in place: start again from the snapshot next time.
        this.loaded = false;
        throw new ProjectionHaltedError({
          name: this.projection.name,
          version: this.projection.version,
          status: 'halted',
          healthy: false,
          position: this.position,
          failure: failureOf(event, error, this.position),
        });
      }
      this.position = event.position;
    }
    if (this.position > from) {
      await this.store.saveSnapshot({
        name: this.projection.name,
        version: this.projection.version,
        position: this.position,
        state: saveState(this.projection, this.state),
      });
    }
    return this.state;
  }
}
