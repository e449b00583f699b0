import type { EnvironmentId } from '../../../streams/stacks.js';
import { type RunStop, runBounded } from '../bounded-run.js';
import { ENV_NAME_PATTERN } from '../compose/env-file.js';
import type { SecretProviderConfig } from '../contracts.js';

/**
 * Secret providers (config `secretProviders`, docs/security.md#secret-providers): a command, run without a shell, that prints one JSON
 * object of string values on standard output. Its values are added to the deploy's environment and to
 * the redaction list. No message here ever holds what the provider printed on stdout: that is the secrets.
 */

interface SecretProvider {
  command: readonly string[];
}

/**
 * Whether the provider serves stacks of this environment (its config `environments`: ids, null for
 * the local one, or "*"). Without a list it serves none: only stacks wholly written by admins get its
 * values. A stack's author can always get its values out (a build step printing them base64-encoded
 * passes redaction), so the scope is what keeps one environment's secrets from another's editors.
 */
export function providerServes(provider: SecretProviderConfig, env: EnvironmentId): boolean {
  const scope = provider.environments;
  return scope !== undefined && (scope === '*' || scope.includes(env));
}

/** Why a provider may not be bound here, for the 403 and a refused deploy. */
export const outOfScopeMessage = (name: string, env: EnvironmentId) =>
  `secret provider ${JSON.stringify(name)} does not serve stacks of ${env === null ? 'the local environment' : `environment ${env}`} (config secretProviders[${JSON.stringify(name)}].environments)`;

interface ResolveOptions {
  cwd: string;
  timeoutMs: number;
  env: Readonly<Record<string, string>>;
  /** The provider's name in the config, for messages. */
  name?: string;
  /** Largest stdout accepted; more is refused (a provider gone wrong should not fill memory). */
  maxOutputBytes?: number;
}

type SecretProviderFailure = 'spawn' | 'exit' | 'timeout' | 'output';

export class SecretProviderError extends Error {
  override name = 'SecretProviderError';
  constructor(
    readonly failure: SecretProviderFailure,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

const DEFAULT_MAX_PROVIDER_OUTPUT = 1024 * 1024;
// Stderr is kept for the message (a provider explains failures there), only its tail and cut short.
const STDERR_KEEP = 4096;
const STDERR_SHOWN = 200;

function lastLine(stderr: string): string {
  const line =
    stderr
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== '')
      .at(-1) ?? '';
  return line.length > STDERR_SHOWN ? `${line.slice(0, STDERR_SHOWN)}...` : line;
}

/** The provider's values, checked: one JSON object whose keys are variable names and values strings. */
function parseSecrets(stdout: string, label: string): Record<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    throw new SecretProviderError('output', `${label} did not print a JSON object on standard output`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new SecretProviderError(
      'output',
      `${label} printed JSON that is not an object (${value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value})`,
    );
  // Without a prototype: a key `__proto__` (a valid variable name) must be kept, and so redacted, not
  // dropped by the prototype setter of a plain object.
  const out: Record<string, string> = Object.create(null);
  for (const [key, v] of Object.entries(value)) {
    // Keys become environment variables; neither a key nor a value is quoted in these messages.
    if (!ENV_NAME_PATTERN.test(key))
      throw new SecretProviderError(
        'output',
        `${label} printed a key that is not a variable name (letters, digits and _, not starting with a digit)`,
      );
    if (typeof v !== 'string')
      throw new SecretProviderError(
        'output',
        `${label} printed a value that is not a string (for ${key}: ${v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v})`,
      );
    if (v.includes('\0'))
      throw new SecretProviderError('output', `${label} printed a value with a NUL character (for ${key})`);
    out[key] = v;
  }
  return out;
}

/** Runs the provider and returns its secrets, or rejects with a SecretProviderError. */
export async function resolveSecrets(
  provider: SecretProvider,
  opts: ResolveOptions,
): Promise<Record<string, string>> {
  const label = `secret provider${opts.name ? ` "${opts.name}"` : ''}`;
  const [program, ...args] = provider.command;
  if (program === undefined || program === '')
    throw new SecretProviderError('spawn', `${label} has no command`);
  const maxOutput = opts.maxOutputBytes ?? DEFAULT_MAX_PROVIDER_OUTPUT;

  const stopped = (stop: RunStop): SecretProviderError => {
    if (stop.why === 'spawn')
      return new SecretProviderError(
        'spawn',
        `${label} could not be started (${program}): ${stop.error.code ?? stop.error.message}`,
        { cause: stop.error },
      );
    if (stop.why === 'output')
      return new SecretProviderError('output', `${label} printed more than ${maxOutput} bytes`);
    // No abort signal is given: a time-out is the only other end.
    return new SecretProviderError('timeout', `${label} timed out after ${opts.timeoutMs} ms`);
  };
  // Its own process group, so a time-out also ends whatever the provider started.
  const { code, signal, stdout, stderr } = await runBounded(program, args, {
    cwd: opts.cwd,
    env: { ...opts.env },
    timeoutMs: opts.timeoutMs,
    maxOutputBytes: maxOutput,
    stderrKeep: STDERR_KEEP,
    stopped,
  });
  if (code !== 0) {
    const how = code === null ? `was killed by ${signal}` : `exited with code ${code}`;
    const why = lastLine(stderr);
    throw new SecretProviderError('exit', `${label} ${how}${why ? `: ${why}` : ''}`);
  }
  return parseSecrets(stdout.toString('utf8'), label);
}
