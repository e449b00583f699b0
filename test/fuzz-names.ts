/**
 * Names that are properties of `Object.prototype`, for property tests of every name, id and key field a
 * client, a config file or a compose line can choose. Looked up on a plain object,
 * `obj[name]` finds an inherited function (`constructor`, `toString`...) or the prototype itself
 * (`__proto__`) instead of undefined, and `obj[name] = value` with `__proto__` replaces the object's
 * prototype instead of adding a key. Shared by the stacks and the editor tests: mix them into any
 * generator of names with `withPrototypeNames`.
 */
import fc from 'fast-check';

/** The ones the issue names first, then the rest of `Object.prototype`'s own property names. */
export const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupGetter__',
  '__defineSetter__',
  '__lookupSetter__',
] as const;

export type PrototypeName = (typeof PROTOTYPE_NAMES)[number];

/** The prototype names a field accepts (a pattern such as a stack name's), in the order above. */
export const prototypeNamesMatching = (pattern: RegExp): string[] =>
  PROTOTYPE_NAMES.filter((name) => pattern.test(name));

/**
 * Prototype names that a lower-case field accepts: the ones already lower case (`constructor`) and the
 * lower-cased spellings of the others (`tostring`, `valueof`), which a lookup that folds case would turn
 * back into the same trap.
 */
export const lowerCasePrototypeNames = (pattern: RegExp): string[] => [
  ...new Set(PROTOTYPE_NAMES.map((name) => name.toLowerCase()).filter((name) => pattern.test(name))),
];

/** One of the prototype names (those matching `pattern` when given). */
export function prototypeName(pattern?: RegExp): fc.Arbitrary<string> {
  const names = pattern ? prototypeNamesMatching(pattern) : [...PROTOTYPE_NAMES];
  if (names.length === 0) throw new Error(`no prototype name matches ${pattern}`);
  return fc.constantFrom(...names);
}

/**
 * `base` half of the time, one of `names` (default: every prototype name) the other half: a generator of
 * names, ids or keys that also tries the prototype names.
 */
export function withPrototypeNames(
  base: fc.Arbitrary<string>,
  names: readonly string[] = PROTOTYPE_NAMES,
): fc.Arbitrary<string> {
  if (names.length === 0) return base;
  return fc.oneof(base, fc.constantFrom(...names));
}
