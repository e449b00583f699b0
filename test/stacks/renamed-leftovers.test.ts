import type Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { renamedLeftovers } from '../../src/stacks/compose/renamed-containers.js';

const container = (name: string, labels: Record<string, string>): Docker.ContainerInfo =>
  ({ Id: `id-${name}`, Names: [`/${name}`], Labels: labels }) as unknown as Docker.ContainerInfo;
const service = { 'com.docker.compose.project': 'web', 'com.docker.compose.service': 'app' };

describe('renamedLeftovers', () => {
  it("finds the containers under compose's temporary name of either generation, sorted by name", () => {
    const found = renamedLeftovers([
      container('web-app-1', service),
      container('de33131e589a_web-app-1', service),
      container('01ef9bebfc8c_web_app_1', service),
    ]);
    expect(found).toEqual([
      { id: 'id-01ef9bebfc8c_web_app_1', name: '01ef9bebfc8c_web_app_1' },
      { id: 'id-de33131e589a_web-app-1', name: 'de33131e589a_web-app-1' },
    ]);
  });

  it('leaves alone names that only look alike, and containers without a compose service', () => {
    expect(
      renamedLeftovers([
        container('de33131e589_web-app-1', service), // 11 digits
        container('DE33131E589A_web-app-1', service), // compose writes lower case
        container('de33131e589ax_web-app-1', service),
        container('de33131e589a_', service),
        container('g0000000000a_web', service),
        container('de33131e589a_web-app-1', { 'com.docker.compose.project': 'web' }),
      ]),
    ).toEqual([]);
  });
});
