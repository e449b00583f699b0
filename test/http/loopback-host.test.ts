import { describe, expect, it } from 'vitest';
import { loopbackAddress } from '../../src/http/loopback-host.js';

describe('loopbackAddress: the listening addresses that only this machine reaches', () => {
  it('127.0.0.0/8, ::1 in any spelling, its IPv4-mapped form and localhost are loopback', () => {
    for (const a of [
      '127.0.0.1',
      '127.3.4.5',
      '::1',
      '[::1]',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
      'localhost',
      'LocalHost',
    ])
      expect(loopbackAddress(a), a).toBe(true);
  });
  it('every other address, the wildcard ones included, is not', () => {
    for (const a of [
      '0.0.0.0',
      '::',
      '192.168.1.4',
      '10.0.0.1',
      '::ffff:10.0.0.1',
      '128.0.0.1',
      'example.com',
      '',
    ])
      expect(loopbackAddress(a), a).toBe(false);
  });
});
