import { defineConfig } from 'vitest/config';

/**
 * Time-outs are nets for a hung test, never a measure: vitest's 5 s default turned tests that spawn the
 * CLI red on a loaded 2-core machine (two CLI starts under load took longer). A test that must wait
 * longer still says so itself.
 */
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
