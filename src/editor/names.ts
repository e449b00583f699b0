/**
 * Names of table records and dictionary entries — layers, blocks, linetypes, text and dimension
 * styles, layouts, groups, selection sets, xdata application ids — as DXF compares them:
 * case-insensitively. AutoCAD and ezdxf keep one record per name whatever its case; a drawing with both
 * `mark` and `MARK` is broken for them (ezdxf's audit keeps one BLOCK_RECORD and deletes the other's
 * contents). So the model keeps one entry per name, spelled as it was first given, and every request
 * naming it in another case is resolved to that spelling here.
 *
 * Dictionaries are still keyed by the canonical spelling (old logs replay unchanged); lookups try the
 * exact key first and then compare folded names. The fold is `toLowerCase`, which is what ezdxf's
 * tables compare (`name.lower()`), so what is one name here is one name to the DXF oracle too.
 */
import { dictGet, dictHas } from './dict.js';

/** The folded form two names share when DXF takes them for the same name. */
export const nameKey = (name: string): string => name.toLowerCase();

export const sameName = (a: string, b: string): boolean => a === b || nameKey(a) === nameKey(b);

/**
 * Folded name -> key, per dictionary object. Dictionaries of the read model are changed in place as
 * steps apply, so an entry is only a hint: it is checked against the dictionary on every use, and a
 * miss falls back to one scan (a name that is not there costs what it cost before this cache).
 */
const folded = new WeakMap<object, Map<string, string>>();

/** The key of `dict` that names `name` in any case (the canonical spelling), or undefined. */
export function nameIn(dict: object | undefined, name: string): string | undefined {
  if (dict === undefined) return undefined;
  if (dictHas(dict, name)) return name;
  const key = nameKey(name);
  let cache = folded.get(dict);
  const hinted = cache?.get(key);
  if (hinted !== undefined && dictHas(dict, hinted)) return hinted;
  for (const candidate of Object.keys(dict)) {
    if (nameKey(candidate) !== key) continue;
    if (!cache) {
      cache = new Map();
      folded.set(dict, cache);
    }
    cache.set(key, candidate);
    return candidate;
  }
  return undefined;
}

/** The entry of `dict` named `name` in any case, or undefined. */
export function named<T>(dict: Readonly<Record<string, T>> | undefined, name: string): T | undefined {
  const key = nameIn(dict, name);
  return key === undefined ? undefined : dictGet(dict, key);
}

/** The spelling `names` has for `name` in any case, or undefined. */
export function nameInList(names: readonly string[], name: string): string | undefined {
  if (names.includes(name)) return name;
  const key = nameKey(name);
  return names.find((n) => nameKey(n) === key);
}

/**
 * Names handed out within one step (layers a request creates...), by folded name, so a second spelling
 * in the same request resolves to the first.
 */
export class NameSet {
  private readonly byKey = new Map<string, string>();

  get(name: string): string | undefined {
    return this.byKey.get(nameKey(name));
  }

  /** Adds `name` unless a spelling of it is there; whether it was new. */
  add(name: string): boolean {
    const key = nameKey(name);
    if (this.byKey.has(key)) return false;
    this.byKey.set(key, name);
    return true;
  }

  get size(): number {
    return this.byKey.size;
  }
}
