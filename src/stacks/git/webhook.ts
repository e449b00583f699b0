/**
 * A git stack's webhook (docs/stacks.md#git-stacks): the GitHub-style signature check, the delivery ids already
 * handled, and what a push payload says about its branch. Pure functions; the route does the I/O.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-hub-signature-256';
export const DELIVERY_HEADER = 'x-github-delivery';
export const EVENT_HEADER = 'x-github-event';

/** How many delivery ids a stack remembers (the oldest are forgotten first). */
const MAX_REMEMBERED_DELIVERIES = 10_000;
/** A delivery id longer than this is refused: ids are recorded, and GitHub's are UUIDs. */
export const MAX_DELIVERY_ID_LENGTH = 200;

/** `sha256=<hex HMAC-SHA256 of the body keyed by the secret>`, as the sender computes it. */
export const signatureOf = (secret: string, body: Buffer): string =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

type SignatureVerdict = 'valid' | 'missing' | 'invalid';

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

/**
 * The digest a signature header gives: 'missing' (absent or blank), 'invalid' (not `sha256=<64 hex>`),
 * or its 32 bytes. Read from the headers alone, before any of the body.
 */
export function signatureDigest(header: string | string[] | undefined): Buffer | 'missing' | 'invalid' {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return 'missing';
  const hex = SIGNATURE.exec(value.trim())?.[1];
  return hex === undefined ? 'invalid' : Buffer.from(hex, 'hex');
}

/**
 * The body's HMAC, computed as its chunks arrive (the route hashes the body while it reads it), and the
 * comparison with the given digest: two 32-byte digests with `timingSafeEqual`, so its time tells
 * nothing about how much of a guess was right.
 */
export interface SignatureCheck {
  update(chunk: Buffer): void;
  matches(): boolean;
}

export function signatureCheck(secret: string, given: Buffer): SignatureCheck {
  const hmac = createHmac('sha256', secret);
  return {
    update: (chunk: Buffer) => void hmac.update(chunk),
    matches: (): boolean => timingSafeEqual(given, hmac.digest()),
  };
}

/** Checks the signature header against a whole body. `secret` null (no such stack, no secret) never verifies. */
export function verifySignature(
  secret: string | null,
  body: Buffer,
  header: string | string[] | undefined,
): SignatureVerdict {
  const given = signatureDigest(header);
  if (given === 'missing') return 'missing';
  if (given === 'invalid' || secret === null) return 'invalid';
  const check = signatureCheck(secret, given);
  check.update(body);
  return check.matches() ? 'valid' : 'invalid';
}

/**
 * The branch a push payload is about (`ref: refs/heads/<branch>`), or undefined when the body is not a
 * push payload (then the delivery is not filtered by branch). GitHub sends the payload as JSON, or as
 * the `payload` field of a form when the hook is set to `application/x-www-form-urlencoded`.
 */
export function pushedRef(body: Buffer, contentType: string | undefined): string | undefined {
  let json = body.toString('utf8');
  if ((contentType ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded'))
    json = new URLSearchParams(json).get('payload') ?? '';
  let payload: unknown;
  try {
    payload = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return undefined;
  const ref = (payload as Record<string, unknown>).ref;
  return typeof ref === 'string' ? ref : undefined;
}

/** Whether a pushed ref is the stack's branch; a tag or another branch is not. */
export const isBranchRef = (ref: string, branch: string) => ref === `refs/heads/${branch}`;

/**
 * The last delivery ids of a stack, oldest first: a set bounded to `limit` ids. Updated in place
 * (projections own their state); ids are appended, and when over the limit the oldest leave.
 */
export interface DeliveryIds {
  order: string[];
  /** Index of the oldest id still remembered in `order` (the ones before it were forgotten). */
  head: number;
  seen: Set<string>;
}

export const emptyDeliveryIds = (): DeliveryIds => ({ order: [], head: 0, seen: new Set() });

export function rememberDelivery(ids: DeliveryIds, id: string, limit = MAX_REMEMBERED_DELIVERIES): void {
  if (ids.seen.has(id)) return;
  ids.order.push(id);
  ids.seen.add(id);
  while (ids.seen.size > limit) {
    const oldest = ids.order[ids.head++] as string;
    ids.seen.delete(oldest);
  }
  // Forgotten ids are dropped from the array now and then, not on every delivery.
  if (ids.head > limit) {
    ids.order = ids.order.slice(ids.head);
    ids.head = 0;
  }
}

/** The remembered ids, oldest first. */
export const deliveryList = (ids: DeliveryIds): string[] => ids.order.slice(ids.head);

export const deliveryIdsOf = (list: readonly string[]): DeliveryIds => {
  const ids = emptyDeliveryIds();
  for (const id of list) rememberDelivery(ids, id);
  return ids;
};
