/**
 * Names for the editor's property tests that also try every member of Object.prototype: a plain object
 * indexed by `constructor` or `toString` finds a function for a name that is not there, and assigning
 * `__proto__` replaces its prototype. Every name, id and key field a fuzz test generates goes through
 * `fuzzName`, so a lookup that bypasses src/editor/dict.ts shows up as a failing run.
 */
import fc from 'fast-check';

/** Every own property of Object.prototype (constructor, __proto__, toString, hasOwnProperty, ...). */
export const PROTOTYPE_NAMES: readonly string[] = Object.getOwnPropertyNames(Object.prototype).sort();

/** `plain` names, or (as often) one of PROTOTYPE_NAMES. */
export const fuzzName = (plain: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(plain, fc.constantFrom(...PROTOTYPE_NAMES));

/** A name from `plain`, or one of PROTOTYPE_NAMES. */
export const fuzzNameFrom = (...plain: string[]): fc.Arbitrary<string> => fuzzName(fc.constantFrom(...plain));
