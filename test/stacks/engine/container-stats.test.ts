import { describe, expect, it } from 'vitest';
import { sampleOf } from '../../../src/stacks/engine/container-stats.js';

/** A sample as dockerd 20.10 sends it on cgroup v2 (the fields read). */
const raw = (total: number, preTotal: number, system: number, preSystem: number) => ({
  read: '2026-12-01T10:00:01.5Z',
  cpu_stats: { cpu_usage: { total_usage: total }, system_cpu_usage: system, online_cpus: 2 },
  precpu_stats: { cpu_usage: { total_usage: preTotal }, system_cpu_usage: preSystem },
  memory_stats: { usage: 10_000_000, limit: 1_000_000_000, stats: { inactive_file: 2_000_000 } },
  networks: { eth0: { rx_bytes: 1000, tx_bytes: 200 }, eth1: { rx_bytes: 24, tx_bytes: 6 } },
});

describe('sampleOf', () => {
  it("CPU as a share of a core, memory without the page cache, every network's bytes", () => {
    expect(sampleOf(raw(3_000_000, 1_000_000, 20_000_000, 10_000_000), 'shop-web-1', 'web')).toEqual({
      container: 'shop-web-1',
      service: 'web',
      time: '2026-12-01T10:00:01.5Z',
      cpuPercent: 40,
      memoryBytes: 8_000_000,
      memoryLimitBytes: 1_000_000_000,
      netRxBytes: 1024,
      netTxBytes: 206,
    });
  });

  it('the first sample (no previous one) has no CPU share; cgroup v1 cache and a sample with nothing', () => {
    expect(sampleOf(raw(3_000_000, 0, 20_000_000, 0), 'c', null).cpuPercent).toBeNull();
    const v1 = { memory_stats: { usage: 5000, limit: 9000, stats: { total_inactive_file: 1000 } } };
    expect(sampleOf(v1, 'c', null)).toMatchObject({ memoryBytes: 4000, cpuPercent: null, netRxBytes: 0 });
    expect(sampleOf(null, 'c', null)).toMatchObject({
      memoryBytes: 0,
      memoryLimitBytes: 0,
      cpuPercent: null,
    });
  });
});
