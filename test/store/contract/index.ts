import { afterEach, describe } from 'vitest';
import { appendAndReadContract } from './append-read.js';
import { byStreamContract } from './by-stream.js';
import { concurrencyContract } from './concurrency.js';
import { deleteContract } from './delete.js';
import { expectedRevisionContract } from './expected-revision.js';
import { harness, type StoreAdapter } from './harness.js';
import { importContract } from './import.js';
import { leaseContract } from './leases.js';
import { processContract } from './processes.js';
import { lifecycleContract } from './reopen.js';
import { snapshotContract } from './snapshots.js';
import { subscribeContract } from './subscribe.js';
import { validationContract } from './validation.js';

export type { StoreAdapter } from './harness.js';

/** The event store port's contract (docs/architecture.md#the-parts), run against one adapter. */
export function describeStoreContract(name: string, adapter: StoreAdapter): void {
  describe(`event store contract: ${name}`, () => {
    const h = harness(name, adapter);
    afterEach(() => h.closeAll());

    appendAndReadContract(h);
    expectedRevisionContract(h);
    concurrencyContract(h);
    subscribeContract(h);
    deleteContract(h);
    validationContract(h);
    lifecycleContract(h);
    snapshotContract(h);
    processContract(h);
    importContract(h);
    leaseContract(h);
    byStreamContract(h);
  });
}
