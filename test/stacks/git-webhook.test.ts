/**
 * The webhook's pure parts (src/stacks/git/webhook.ts): the signature check, what a push payload names,
 * and the bounded set of delivery ids.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  deliveryIdsOf,
  deliveryList,
  emptyDeliveryIds,
  isBranchRef,
  pushedRef,
  rememberDelivery,
  signatureOf,
  verifySignature,
} from '../../src/stacks/git/webhook.js';

const SECRET = 'webhook-secret-123';
const BODY = Buffer.from('{"ref":"refs/heads/main","after":"abc"}');
// Computed independently of the module: the header GitHub would send.
const GITHUB = `sha256=${createHmac('sha256', SECRET).update(BODY).digest('hex')}`;

describe('verifySignature', () => {
  it('accepts the signature GitHub computes, in either hex case', () => {
    expect(signatureOf(SECRET, BODY)).toBe(GITHUB);
    expect(verifySignature(SECRET, BODY, GITHUB)).toBe('valid');
    expect(verifySignature(SECRET, BODY, `sha256=${GITHUB.slice(7).toUpperCase()}`)).toBe('valid');
    expect(verifySignature(SECRET, BODY, [GITHUB])).toBe('valid');
  });

  it('reports a missing header as missing', () => {
    expect(verifySignature(SECRET, BODY, undefined)).toBe('missing');
    expect(verifySignature(SECRET, BODY, '')).toBe('missing');
    expect(verifySignature(SECRET, BODY, '  ')).toBe('missing');
  });

  it('refuses a wrong secret, a changed body, a short or malformed value and sha1', () => {
    expect(verifySignature('other-secret', BODY, GITHUB)).toBe('invalid');
    expect(verifySignature(SECRET, Buffer.from(`${BODY.toString()} `), GITHUB)).toBe('invalid');
    expect(verifySignature(SECRET, BODY, GITHUB.slice(0, -2))).toBe('invalid');
    expect(verifySignature(SECRET, BODY, `${GITHUB}00`)).toBe('invalid');
    expect(verifySignature(SECRET, BODY, GITHUB.slice(7))).toBe('invalid');
    expect(
      verifySignature(SECRET, BODY, `sha1=${createHmac('sha1', SECRET).update(BODY).digest('hex')}`),
    ).toBe('invalid');
    expect(verifySignature(SECRET, BODY, `sha256=${'z'.repeat(64)}`)).toBe('invalid');
  });

  it('never accepts anything without a secret, not even a signature made with an empty key', () => {
    expect(verifySignature(null, BODY, GITHUB)).toBe('invalid');
    expect(verifySignature(null, BODY, signatureOf('', BODY))).toBe('invalid');
  });
});

describe('pushedRef', () => {
  it('reads ref from a JSON push payload and from the form-encoded one', () => {
    expect(pushedRef(BODY, 'application/json')).toBe('refs/heads/main');
    const form = Buffer.from(`payload=${encodeURIComponent('{"ref":"refs/heads/dev"}')}`);
    expect(pushedRef(form, 'application/x-www-form-urlencoded')).toBe('refs/heads/dev');
  });

  it('gives undefined for bodies that are not push payloads', () => {
    expect(pushedRef(Buffer.from(''), undefined)).toBeUndefined();
    expect(pushedRef(Buffer.from('not json'), 'application/json')).toBeUndefined();
    expect(pushedRef(Buffer.from('[1]'), 'application/json')).toBeUndefined();
    expect(pushedRef(Buffer.from('{"zen":"x"}'), 'application/json')).toBeUndefined();
  });

  it('matches only the branch itself', () => {
    expect(isBranchRef('refs/heads/main', 'main')).toBe(true);
    expect(isBranchRef('refs/heads/main2', 'main')).toBe(false);
    expect(isBranchRef('refs/tags/main', 'main')).toBe(false);
  });
});

describe('delivery ids', () => {
  it('remembers ids once and forgets the oldest past the limit', () => {
    const ids = emptyDeliveryIds();
    for (let i = 0; i < 25; i++) rememberDelivery(ids, `d${i}`, 10);
    rememberDelivery(ids, 'd24', 10);
    expect(ids.seen.size).toBe(10);
    expect(deliveryList(ids)).toEqual(Array.from({ length: 10 }, (_, i) => `d${i + 15}`));
    expect(ids.seen.has('d14')).toBe(false);
    expect(ids.seen.has('d15')).toBe(true);
    // The array of forgotten ids is compacted, not kept for ever.
    expect(ids.order.length).toBeLessThanOrEqual(21);
  });

  it('keeps the last 10,000 by default and round-trips through a list', () => {
    const ids = emptyDeliveryIds();
    for (let i = 0; i < 10_050; i++) rememberDelivery(ids, `id-${i}`);
    expect(ids.seen.size).toBe(10_000);
    expect(ids.seen.has('id-49')).toBe(false);
    expect(ids.seen.has('id-50')).toBe(true);
    const copy = deliveryIdsOf(deliveryList(ids));
    expect([...copy.seen]).toEqual([...ids.seen]);
  });
});
