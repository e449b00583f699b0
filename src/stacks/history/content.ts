import { createHash, createHmac } from 'node:crypto';
import type { RecordedVariable } from '../../../streams/stacks.js';
import type { StackVariable } from '../contracts.js';

/**
 * What a run's record keeps of its variables: names, non-secret values, and for a secret only
 * an HMAC of its value keyed by the install's hash key (`<data>/stacks/.hash-key`). Keyed, because a
 * plain hash of a short secret could be found by hashing guesses; with the name in its input, two
 * variables holding one value do not show it by sharing a hash.
 */

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

const secretHmac = (key: Buffer, name: string, value: string): string =>
  createHmac('sha256', key)
    .update(JSON.stringify(['secret', name, value]), 'utf8')
    .digest('hex');

/** The recorded form of a stack's variables, sorted by name, and the hash it is stored under. */
export function recordVariables(
  key: Buffer,
  variables: readonly StackVariable[],
): { hash: string; variables: RecordedVariable[] } {
  const recorded = [...variables]
    .sort(byName)
    .map(
      (v): RecordedVariable =>
        v.secret
          ? { name: v.name, secret: true, hmac: secretHmac(key, v.name, v.value) }
          : { name: v.name, secret: false, value: v.value },
    );
  const hash = createHash('sha256').update(JSON.stringify(recorded), 'utf8').digest('hex');
  return { hash, variables: recorded };
}

/** A recorded variable as answers show it: a secret's name only. */
export type ShownVariable = { name: string; secret: false; value: string } | { name: string; secret: true };

export const showVariable = (v: RecordedVariable): ShownVariable =>
  v.secret ? { name: v.name, secret: true } : { name: v.name, secret: false, value: v.value };

/**
 * The variables a redeploy of a recorded run deploys: the recorded non-secret values, and for each
 * recorded secret today's value of the variable of that name. `missing` names the secrets the stack no
 * longer has (a redeploy of them is refused: it cannot deploy what it does not know).
 */
export function variablesForRedeploy(
  recorded: readonly RecordedVariable[],
  today: readonly StackVariable[],
): { variables: StackVariable[]; missing: string[] } {
  const current = new Map(today.map((v) => [v.name, v]));
  const variables: StackVariable[] = [];
  const missing: string[] = [];
  for (const v of recorded) {
    if (!v.secret) {
      variables.push({ name: v.name, value: v.value, secret: false });
      continue;
    }
    const now = current.get(v.name);
    if (now === undefined) missing.push(v.name);
    else variables.push({ name: v.name, value: now.value, secret: true });
  }
  return { variables, missing };
}
