import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sealedOutput } from '../../src/stacks/jobs/events.js';
import { newKey, seal } from '../../src/stacks/output/sealing.js';
import { knownJsonOf } from '../../src/store/validate.js';

describe('sealedOutput', () => {
  it('hands the store the very JSON text JSON.stringify writes for it (property)', () => {
    const key = newKey();
    fc.assert(
      fc.property(fc.string(), fc.nat(), fc.array(fc.string({ unit: 'grapheme' })), (jobId, count, lines) => {
        const data = sealedOutput(jobId, count, seal(key, 'job', JSON.stringify(lines)));
        expect(knownJsonOf(data)).toBe(JSON.stringify(data));
      }),
      { numRuns: 300 },
    );
  });
});
