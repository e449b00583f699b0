import { describe, expect, it } from 'vitest';
import type { Lease } from '../../../src/store/index.js';
import type { Harness } from './harness.js';

export function leaseContract(h: Harness) {
  describe('tryLease', () => {
    it('is exclusive by name until released', async () => {
      const store = await h.open();
      const first = (await store.tryLease('scheduler')) as Lease;
      expect(first.name).toBe('scheduler');
      expect(await store.tryLease('scheduler')).toBeUndefined();
      const other = await store.tryLease('instance:a');
      expect(other?.name).toBe('instance:a');
      await first.release();
      await first.release();
      const again = await store.tryLease('scheduler');
      expect(again?.name).toBe('scheduler');
      await again?.release();
      await other?.release();
    });

    it('ends every lease when the store closes: `lost` settles', async () => {
      const store = await h.open();
      const lease = (await store.tryLease('held')) as Lease;
      let lost = false;
      void lease.lost.then(() => {
        lost = true;
      });
      await store.close();
      await lease.lost;
      expect(lost).toBe(true);
    });
  });
}
