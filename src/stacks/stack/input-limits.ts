import { StacksError } from '../errors.js';

/**
 * How large a stack's compose file and variables may be (docs/security.md#limits-and-their-defaults). Checked
 * when they arrive — create, compose and variables save, git create and every git sync — so that every
 * later step takes them: a deploy records the compose text and the variables each in one event of the
 * store (at most 4 MiB, sealed and base64-encoded: 4/3 larger), and gives the variables to compose in
 * its environment (Linux takes one `NAME=value` of at most 128 KiB, and 2 MiB of arguments and
 * environment in all, the server's own environment and a provider's values included).
 */

const KiB = 1024;
const MiB = 1024 * KiB;

/** A compose file's text, UTF-8. */
export const MAX_COMPOSE_BYTES = MiB;
/** Variables of one stack. */
export const MAX_VARIABLES = 1000;
/** One variable's value, UTF-8. */
export const MAX_VARIABLE_VALUE_BYTES = 64 * KiB;
/**
 * A stack's variables together: names and values, UTF-8. Every value becomes a path of the redaction
 * automaton that each job builds (redaction.ts), whose building holds the event loop: 128 KiB keeps
 * that to a moment, and is room for a thousand ordinary values or dozens of certificates.
 */
export const MAX_VARIABLES_BYTES = 128 * KiB;

const size = (bytes: number) =>
  bytes % MiB === 0 ? `${bytes / MiB} MiB` : bytes % KiB === 0 ? `${bytes / KiB} KiB` : `${bytes} bytes`;

/** 413 when the compose text is over its limit; before anything parses it. */
export function checkComposeSize(text: string, what = 'Compose file'): void {
  // Cheap first: a string of fewer UTF-16 units than a third of the limit cannot be over it.
  if (text.length * 3 <= MAX_COMPOSE_BYTES) return;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_COMPOSE_BYTES)
    throw new StacksError(
      'too_large',
      `${what} is ${bytes} bytes, over the limit of ${MAX_COMPOSE_BYTES} bytes (${size(MAX_COMPOSE_BYTES)})`,
    );
}

/** 400 when more variables are given than a stack may hold; before any of them is looked at. */
export function checkVariableCount(count: number): void {
  if (count > MAX_VARIABLES)
    throw new StacksError(
      'invalid_variables',
      `variables: ${count} given, over the limit of ${MAX_VARIABLES} variables`,
    );
}

/** 413 when one value, or all names and values together, are over their limits. */
export function checkVariableSizes(variables: ReadonlyArray<{ name: string; value: string }>): void {
  let total = 0;
  variables.forEach((v, i) => {
    const bytes = Buffer.byteLength(v.value, 'utf8');
    if (bytes > MAX_VARIABLE_VALUE_BYTES)
      throw new StacksError(
        'too_large',
        `variables[${i}].value (${v.name}) is ${bytes} bytes, over the limit of ${MAX_VARIABLE_VALUE_BYTES} bytes (${size(MAX_VARIABLE_VALUE_BYTES)})`,
      );
    total += bytes + Buffer.byteLength(v.name, 'utf8');
  });
  if (total > MAX_VARIABLES_BYTES)
    throw new StacksError(
      'too_large',
      `variables: names and values are ${total} bytes, over the limit of ${MAX_VARIABLES_BYTES} bytes (${size(MAX_VARIABLES_BYTES)})`,
    );
}
