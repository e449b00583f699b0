/**
 * The stack's `.env` file: `NAME="value"` or `NAME='value'` lines. Written by hand rather than with the
 * `dotenv` package because dotenv does not round-trip every value: it unescapes only `\n` and `\r` in
 * double quotes, so a value holding `\"`, a backslash before `n`, or both quote kinds and a newline comes
 * back changed.
 *
 * Both Compose generations read the file (`env_file: .env`, and interpolation defaults), and they read
 * it differently: v2 (compose-go) interpolates `$X` in double quotes unless written `\$`, which v1
 * (python-dotenv 0.21) keeps as `\$`; in single quotes neither interpolates `$X` and both read `\'` as
 * `'`, but v1 also reads `\\` as `\`, v2 keeps it. So a value is written in the one form both read the
 * same (checked on 1.29.2 and 2.26.1): without a `$`, double-quoted with `\\`, `\"`, `\n` and `\r`
 * escaped; with a `$`, single-quoted with `\'` escaped, when no backslash stands before a backslash, a
 * quote or the end. Otherwise (a `$` and such a backslash) there is no common form: it is double-quoted
 * with `\$`, which v2 reads exactly. v1 also interpolates `${X}` in any `env_file` value, quoted or not
 * (python-dotenv has no escape for it): such a value reaches a v1 container through interpolation
 * (`environment: X: ${X}`), where the variable of the stack is used as it is, not through `env_file`.
 */

const ESCAPES: Record<string, string> = { '\\': '\\\\', '"': '\\"', $: '\\$', '\n': '\\n', '\r': '\\r' };
const UNESCAPES: Record<string, string> = {
  '\\': '\\',
  '"': '"',
  "'": "'",
  $: '$',
  n: '\n',
  r: '\r',
  t: '\t',
};

export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A backslash single quotes do not keep for both generations: before a backslash, a quote, the end. */
const AMBIGUOUS_BACKSLASH = /\\(?:[\\']|$)/;

function quoteEnvValue(value: string): string {
  if (value.includes('$') && !AMBIGUOUS_BACKSLASH.test(value)) return `'${value.replaceAll("'", "\\'")}'`;
  const escaped = value.includes('$') ? /[\\"$\n\r]/g : /[\\"\n\r]/g;
  return `"${value.replace(escaped, (c) => ESCAPES[c] ?? c)}"`;
}

/** The file text for these variables, in their order. Names must match ENV_NAME_PATTERN (checked by callers). */
export function formatEnvFile(variables: ReadonlyArray<{ name: string; value: string }>): string {
  return variables.map((v) => `${v.name}=${quoteEnvValue(v.value)}\n`).join('');
}

export class EnvFileError extends Error {
  constructor(line: number, reason: string) {
    super(`.env line ${line}: ${reason}`);
    this.name = 'EnvFileError';
  }
}

/**
 * Reads a `.env` file: what formatEnvFile writes, plus what a person may have written by hand (blank
 * lines, `#` comments, `export NAME=...`, unquoted values with a trailing ` # comment`, single-quoted
 * literal values, `\'` in them). A later line of a name replaces an earlier one, as compose does.
 */
export function parseEnvFile(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let i = 0;
  let line = 1;
  const n = text.length;
  const skipTo = (stop: number) => {
    for (; i < stop; i++) if (text[i] === '\n') line++;
  };
  while (i < n) {
    const eol = text.indexOf('\n', i);
    const end = eol === -1 ? n : eol;
    const raw = text.slice(i, end).replace(/\r$/, '');
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) {
      skipTo(end + 1);
      continue;
    }
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*/.exec(raw);
    if (!match) throw new EnvFileError(line, 'expected NAME=value');
    const name = match[1] as string;
    const valueStart = i + match[0].length;
    const quote = text[valueStart];
    if (quote === '"' || quote === "'") {
      // Quoted values may span lines; find the closing quote, honouring escapes in double quotes and
      // `\'` in single quotes (as both Compose generations do).
      let j = valueStart + 1;
      let value = '';
      for (; j < n; j++) {
        const c = text[j] as string;
        if (c === quote) break;
        if (quote === '"' && c === '\\' && j + 1 < n) {
          const next = text[j + 1] as string;
          value += UNESCAPES[next] ?? `\\${next}`;
          j++;
        } else if (quote === "'" && c === '\\' && text[j + 1] === "'") {
          value += "'";
          j++;
        } else value += c;
      }
      if (j >= n) throw new EnvFileError(line, `unterminated ${quote === '"' ? 'double' : 'single'} quote`);
      const restEnd = text.indexOf('\n', j);
      const rest = text.slice(j + 1, restEnd === -1 ? n : restEnd).trim();
      if (rest !== '' && !rest.startsWith('#')) throw new EnvFileError(line, 'text after the closing quote');
      out.set(name, value);
      skipTo(restEnd === -1 ? n : restEnd + 1);
      continue;
    }
    const value = text
      .slice(valueStart, end)
      .replace(/\r$/, '')
      .replace(/\s+#.*$/, '')
      .trim();
    out.set(name, value);
    skipTo(end + 1);
  }
  return out;
}
