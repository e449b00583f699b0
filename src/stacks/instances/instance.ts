import { randomUUID } from 'node:crypto';
import type { EventStore, Lease } from '../../store/types.js';

const INSTANCE_LEASE = 'stacks-instance:';

/**
 * This stacks service process among the others on one log (several instances on PostgreSQL). Each
 * holds a lease named after its id for as long as it lives; the runs and jobs it starts carry that id
 * (`metadata.instanceId`). A run left `running` is closed as interrupted only when its instance's
 * lease is free, that is when that instance is gone, never while another live instance still runs it.
 */
export class Instance {
  readonly id: string;
  private readonly store: EventStore;
  private lease: Lease;

  private left = false;

  private constructor(store: EventStore, id: string, lease: Lease) {
    this.store = store;
    this.id = id;
    this.lease = lease;
    this.keep(lease);
  }

  /**
   * A lease lost with its connection (a database away for a moment) is taken again once the store
   * answers: otherwise another instance would take this live one for gone and close its runs.
   */
  private keep(lease: Lease): void {
    void lease.lost.then(async () => {
      for (let wait = 200; !this.left; wait = Math.min(wait * 2, 5_000)) {
        try {
          const again = await this.store.tryLease(`${INSTANCE_LEASE}${this.id}`);
          if (again) {
            this.lease = again;
            if (this.left) await again.release();
            else this.keep(again);
            return;
          }
        } catch (error) {
          // A closed store: this process is stopping.
          if ((error as { code?: string }).code === 'store_closed') return;
        }
        await new Promise((resolve) => setTimeout(resolve, wait).unref());
      }
    });
  }

  static async join(store: EventStore): Promise<Instance> {
    const id = randomUUID();
    const lease = await store.tryLease(`${INSTANCE_LEASE}${id}`);
    if (!lease) throw new Error(`instance lease ${id} is taken: ids are random, this should not happen`);
    return new Instance(store, id, lease);
  }

  /**
   * Whether the instance that started something is alive. Undefined (records of a build that did not
   * say) counts as gone, as before instances were told apart: the store then has one process.
   */
  async isAlive(owner: string | undefined): Promise<boolean> {
    if (owner === undefined) return false;
    if (owner === this.id) return true;
    const probe = await this.store.tryLease(`${INSTANCE_LEASE}${owner}`);
    if (!probe) return true;
    await probe.release();
    return false;
  }

  async leave(): Promise<void> {
    this.left = true;
    await this.lease.release();
  }
}
