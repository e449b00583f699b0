import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Sealing of output texts for crypto-shredding (streams/stacks.ts, docs/security.md#deleted-runs-crypto-shredding): AES-256-GCM
 * with a random 96-bit IV per text and the key's scope as additional data, so a sealed text copied into
 * another scope's event does not open there. A sealed text is base64 of IV, ciphertext and tag.
 * node:crypto only; pure but for the random IV.
 */

const ALGORITHM = 'aes-256-gcm';
export const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed text that does not open with this key and scope (tampered with, or another key's). */
export class SealError extends Error {
  constructor(scope: string) {
    super(`a sealed text of ${scope} does not open with its key`);
    this.name = 'SealError';
  }
}

export const newKey = (): Buffer => randomBytes(KEY_BYTES);

function checkKey(key: Buffer): void {
  if (key.length !== KEY_BYTES) throw new Error(`an output key has ${KEY_BYTES} bytes, not ${key.length}`);
}

export function seal(key: Buffer, scope: string, text: string): string {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv);
  cipher.setAAD(Buffer.from(scope, 'utf8'));
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64');
}

/** The text `seal` sealed with this key and scope; throws SealError otherwise. */
export function open(key: Buffer, scope: string, sealed: string): string {
  checkKey(key);
  const bytes = Buffer.from(sealed, 'base64');
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new SealError(scope);
  const decipher = createDecipheriv(ALGORITHM, key, bytes.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(scope, 'utf8'));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  try {
    return Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    throw new SealError(scope);
  }
}
