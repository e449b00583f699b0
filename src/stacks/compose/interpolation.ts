/**
 * Compose's variable substitution (`$NAME`, `${NAME}`, `${NAME:-default}`, `${NAME-default}`,
 * `${NAME:?error}`, `${NAME?error}`, `${NAME:+other}`, `${NAME+other}`, `$$` for a `$`), for the values
 * the security checks read (compose/security.ts): a path is checked as compose will see it, not as
 * written. Pure.
 *
 * Written by hand: no maintained JavaScript package implements compose's rules (dotenv-expand follows
 * shell rules, not compose's), and the two generations differ where this refuses. A default that holds
 * a `$` itself (`${A:-${B}}`) is read as nested by Compose v2 and as text by v1, so it is refused
 * (UncheckableValue) rather than guessed; so is a `$` that starts no substitution, which compose
 * refuses too.
 */

/** A value whose substitution cannot be known the way every compose generation would do it. */
export class UncheckableValue extends Error {
  override name = 'UncheckableValue';
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const BRACED = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([\s\S]*))?$/;

/** The value with every substitution made from `env` (an unset name is empty, as compose makes it). */
export function interpolate(value: string, env: Readonly<Record<string, string | undefined>>): string {
  const lookup = (name: string) => (Object.hasOwn(env, name) ? env[name] : undefined);
  let out = '';
  let i = 0;
  while (i < value.length) {
    const dollar = value.indexOf('$', i);
    if (dollar < 0) {
      out += value.slice(i);
      break;
    }
    out += value.slice(i, dollar);
    const next = value[dollar + 1];
    if (next === '$') {
      out += '$';
      i = dollar + 2;
      continue;
    }
    if (next === '{') {
      const close = value.indexOf('}', dollar + 2);
      if (close < 0) throw new UncheckableValue(`an unclosed \${ in ${JSON.stringify(value)}`);
      const inner = value.slice(dollar + 2, close);
      const m = BRACED.exec(inner);
      if (!m) throw new UncheckableValue(`an invalid substitution in ${JSON.stringify(value)}`);
      const [, name = '', op, arg = ''] = m;
      if (arg.includes('$') || arg.includes('{'))
        throw new UncheckableValue(`a substitution inside a substitution in ${JSON.stringify(value)}`);
      const current = lookup(name);
      const set = current !== undefined;
      const nonEmpty = set && current !== '';
      switch (op) {
        case undefined:
          out += current ?? '';
          break;
        case ':-':
          out += nonEmpty ? current : arg;
          break;
        case '-':
          out += set ? current : arg;
          break;
        case ':+':
          out += nonEmpty ? arg : '';
          break;
        case '+':
          out += set ? arg : '';
          break;
        // `?`: compose stops with the error when the name is missing; the value is what it is otherwise.
        default:
          out += current ?? '';
      }
      i = close + 1;
      continue;
    }
    const name = NAME.exec(value.slice(dollar + 1))?.[0];
    if (name === undefined)
      throw new UncheckableValue(`a $ that starts no substitution in ${JSON.stringify(value)}`);
    out += lookup(name) ?? '';
    i = dollar + 1 + name.length;
  }
  return out;
}
