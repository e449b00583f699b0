/**
 * Dictionaries keyed by names that come from outside: layer, block, layout, group, selection set,
 * xdata app, header and system variable names, handles, request ids and op names — sent by any web
 * page (the editor allows every origin), read from DXF files, or replayed from the log.
 *
 * The document model stays plain JSON objects (it travels in events and snapshots, and old logs must
 * replay), so the objects have `Object.prototype` behind them: `dict[name]` and `name in dict` find
 * `constructor`, `toString`, `hasOwnProperty`... for names that are not there, and `dict['__proto__'] =
 * x` replaces the object's prototype instead of adding an entry. A block named `constructor` would then
 * "exist" before it was made, and a layer named `__proto__` would vanish on the next save.
 *
 * Every lookup or write with such a key goes through these functions, which see own properties only.
 * They work on any object however it was made (a literal, `JSON.parse`, `structuredClone`, a spread:
 * all of them keep an own `__proto__` key as an ordinary entry). `Object.assign` does not (it calls the
 * `__proto__` setter): copy with a spread. The Biome plugin `lint/own-keys.grit` (run by `npm run lint`)
 * flags a bracket lookup, key assignment or `in` test on the model's dictionaries, by their field names,
 * that bypasses this module; Biome's GritQL takes no comments, so its reasons are written here.
 */

export type Dict<T> = Record<string, T>;

/** Whether `key` is an entry of `dict` (never a member of Object.prototype). */
export const dictHas = (dict: object | undefined, key: string): boolean =>
  dict !== undefined && Object.hasOwn(dict, key);

/** The entry `key` of `dict`, or undefined when it has none. */
export function dictGet<T>(dict: Readonly<Dict<T>> | undefined, key: string): T | undefined {
  return dict !== undefined && Object.hasOwn(dict, key) ? dict[key] : undefined;
}

/**
 * Sets the entry `key`. Only `__proto__` needs defineProperty (assigning it calls Object.prototype's
 * setter); every other member of Object.prototype is a writable data property, which an assignment
 * shadows with an own one, and a plain assignment keeps the hot paths (100,000 entities read) fast.
 */
export function dictSet<T>(dict: Dict<T>, key: string, value: NoInfer<T>): void {
  if (key === '__proto__')
    Object.defineProperty(dict, key, { value, writable: true, enumerable: true, configurable: true });
  else dict[key] = value;
}

/** Removes the entry `key`, if any. */
export function dictDelete(dict: Dict<unknown>, key: string): void {
  if (Object.hasOwn(dict, key)) delete dict[key];
}

/** Sets the entry `key` to `value`, or removes it when `value` is null (the `after` of a change). */
export function dictPut<T>(dict: Dict<T>, key: string, value: NoInfer<T> | null): void {
  if (value === null) dictDelete(dict, key);
  else dictSet(dict, key, value);
}

/** A copy of `dict` with the entry `key` set (or removed when `value` is null). */
export function dictWith<T>(
  dict: Readonly<Dict<T>> | undefined,
  key: string,
  value: NoInfer<T> | null,
): Dict<T> {
  const copy: Dict<T> = { ...dict };
  dictPut(copy, key, value);
  return copy;
}
