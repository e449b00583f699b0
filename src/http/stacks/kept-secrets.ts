import type { StackVariable } from '../../stacks/contracts.js';

/**
 * PUT /api/stacks/{name}/variables replaces the whole list, and secret values are never answered; so a
 * client that did not change a secret could not send it back. A secret entry with `value: null` keeps
 * the value the stack holds for a secret of that name (the web page sends that for a secret left
 * untouched). Anything else passes as it came: a null for an unknown or non-secret variable is still
 * refused by the variables check (`variables[i].value (NAME) must be a string`). Pure.
 */
export function keepSecrets(given: unknown, stored: readonly StackVariable[]): unknown {
  if (!Array.isArray(given)) return given;
  const secrets = new Map(stored.filter((v) => v.secret).map((v) => [v.name, v.value]));
  return given.map((entry: unknown) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return entry;
    const v = entry as Record<string, unknown>;
    if (v.secret !== true || v.value !== null || typeof v.name !== 'string') return entry;
    const kept = secrets.get(v.name);
    return kept === undefined ? entry : { ...v, value: kept };
  });
}
