import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { localOnlyByRule, STACKS_RESOURCE } from '../access/auth.js';
import { DEFAULT_COMPOSE_SECURITY } from '../compose/security.js';
import type {
  ComposeSecurity,
  Environment,
  Grant,
  GrantEnvironments,
  SecretProviderConfig,
  StacksConfig,
  User,
} from '../contracts.js';

/**
 * The stacks config file (`--config`): read, validated and completed with its defaults.
 *
 * Validation uses zod: strict objects (a misspelt key is an error, not a silently ignored setting),
 * a message per field, and issue paths that name the key (`users[1].token`) without hand-written walking.
 */

const DEFAULT_DEPLOY_LOGS = { budgetBytes: 2 * 1024 ** 3, remeasureBytes: 1024 ** 2 } as const;
const DEFAULT_JOBS = { timeoutSeconds: 3600, retentionHours: 24, maxConcurrent: 4 } as const;
/** How often the registries are asked whether the stacks' images have a newer digest (0: never). */
const DEFAULT_IMAGE_UPDATES = { checkEveryMinutes: 360 } as const;
/** The name of the admin user made when no user is configured. */
const GENERATED_ADMIN_NAME = 'admin';

/** Bad config (unreadable file, not JSON, wrong shape): the CLI prints the message and exits with 2. */
export class ConfigError extends Error {
  readonly exitCode = 2;
  /** The config file, when there is one. */
  readonly file: string | undefined;
  constructor(message: string, file?: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ConfigError';
    this.file = file;
  }
}

interface LoadedStacksConfig {
  config: StacksConfig;
  /** Set when no user was configured and an admin was made: the CLI prints it once. */
  generatedAdminToken?: string;
  /** What the config allows that its author may not mean (the CLI prints each at start). */
  warnings: string[];
}

// Printable ASCII without spaces: what a `Bearer <token>` header can carry unchanged.
const TOKEN = /^[\x21-\x7e]+$/;

const text = (what = 'a non-empty string') =>
  z.string({ error: `must be ${what}` }).min(1, { error: `must be ${what}` });
const positive = (what: string) =>
  z.number({ error: `must be ${what}` }).positive({ error: `must be ${what}` });
const integerId = z.int({ error: 'must be an integer environment id' });
const byteCount = z
  .int({ error: 'must be a positive integer (bytes)' })
  .positive({ error: 'must be a positive integer (bytes)' });
const command = z
  .array(text(), { error: 'must be a non-empty list of strings' })
  .min(1, { error: 'must be a non-empty list of strings' });

const flag = z.boolean({ error: 'must be true or false' }).optional();
const securitySchema = z.strictObject(
  {
    composePaths: z
      .enum(['stack', 'unrestricted'], { error: 'must be "stack" or "unrestricted"' })
      .optional(),
    bindMounts: z
      .union(
        [
          z.literal(false),
          z.array(
            z
              .string({ error: 'must be an absolute folder path' })
              .refine((p) => isAbsolute(p), { error: 'must be an absolute folder path' }),
          ),
        ],
        { error: 'must be false or a list of absolute folder paths' },
      )
      .optional(),
    privileged: flag,
    hostNamespaces: flag,
    devices: flag,
    capAdd: flag,
    sysctls: flag,
  },
  {
    error:
      'must be an object {composePaths?, bindMounts?, privileged?, hostNamespaces?, devices?, capAdd?, sysctls?}',
  },
);
type SecurityInput = z.output<typeof securitySchema>;

/** An environment's security settings with the defaults filled in (compose/security.ts). */
const securityOf = (input: SecurityInput | undefined): ComposeSecurity => ({
  composePaths: input?.composePaths ?? DEFAULT_COMPOSE_SECURITY.composePaths,
  bindMounts: input?.bindMounts ?? DEFAULT_COMPOSE_SECURITY.bindMounts,
  privileged: input?.privileged ?? DEFAULT_COMPOSE_SECURITY.privileged,
  hostNamespaces: input?.hostNamespaces ?? DEFAULT_COMPOSE_SECURITY.hostNamespaces,
  devices: input?.devices ?? DEFAULT_COMPOSE_SECURITY.devices,
  capAdd: input?.capAdd ?? DEFAULT_COMPOSE_SECURITY.capAdd,
  sysctls: input?.sysctls ?? DEFAULT_COMPOSE_SECURITY.sysctls,
});

const environmentSchema = z.strictObject(
  { id: integerId, name: text(), dockerHost: text().optional(), security: securitySchema.optional() },
  { error: 'must be an object {id, name, dockerHost?, security?}' },
);

const environmentList = z.union([z.literal('*'), z.array(z.union([integerId, z.null()]))], {
  error: 'must be "*" or a list of environment ids (null = local)',
});

const grantSchema = z
  .strictObject(
    {
      resource: text(),
      actions: z.array(text(), { error: 'must be a list of action names' }),
      environments: environmentList.optional(),
    },
    { error: 'must be an object {resource, actions, environments?}' },
  )
  .superRefine((grant, ctx) => {
    // The only resource this service checks; an unknown action there is a typo that would grant nothing.
    if (grant.resource !== 'stacks') return;
    grant.actions.forEach((action, i) => {
      if (action !== 'view' && action !== 'edit')
        ctx.addIssue({ code: 'custom', path: ['actions', i], message: 'must be "view" or "edit"' });
    });
  });

const userSchema = z.strictObject(
  {
    name: text(),
    token: z
      .string({ error: 'must be a non-empty string' })
      .min(1, { error: 'must be a non-empty string', abort: true })
      .regex(TOKEN, { error: 'must be printable ASCII without spaces (it is sent as `Bearer <token>`)' }),
    admin: z.boolean({ error: 'must be true or false' }).optional(),
    grants: z.array(grantSchema, { error: 'must be a list of grants' }).optional(),
    environmentAccess: z
      .union([z.literal('*'), z.array(integerId)], { error: 'must be "*" or a list of environment ids' })
      .optional(),
  },
  { error: 'must be an object {name, token, admin?, grants?, environmentAccess?}' },
);

const configSchema = z.strictObject(
  {
    environments: z.array(environmentSchema, { error: 'must be a list of environments' }).optional(),
    localEnvironmentSecurity: securitySchema.optional(),
    localEnvironment: z
      .enum(['global', 'explicit'], { error: 'must be "global" (the default) or "explicit"' })
      .optional(),
    users: z.array(userSchema, { error: 'must be a list of users' }).optional(),
    compose: z.strictObject({ command }, { error: 'must be an object {command}' }).optional(),
    secretProviders: z
      .record(
        text(),
        z.strictObject(
          { command, environments: environmentList.optional() },
          { error: 'must be an object {command, environments?}' },
        ),
        { error: 'must be an object of provider name to {command, environments?}' },
      )
      .optional(),
    deployLogs: z
      .strictObject(
        {
          budgetBytes: byteCount.optional(),
          remeasureBytes: byteCount.optional(),
        },
        { error: 'must be an object {budgetBytes?, remeasureBytes?}' },
      )
      .optional(),
    retention: z
      .array(
        z.strictObject(
          {
            environment: z.union([integerId, z.null()], { error: 'must be an environment id or null' }),
            keepRuns: z.int({ error: 'must be a positive integer' }).positive().optional(),
            keepDays: z.int({ error: 'must be a positive integer' }).positive().optional(),
          },
          { error: 'must be an object {environment, keepRuns?, keepDays?}' },
        ),
        { error: 'must be a list of {environment, keepRuns?, keepDays?}' },
      )
      .optional(),
    notifications: z
      .array(
        z.strictObject(
          {
            name: text(),
            type: z.enum(['webhook', 'ntfy', 'gotify', 'slack'], {
              error: 'must be webhook, ntfy, gotify or slack',
            }),
            url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
            token: text().optional(),
            events: z.array(
              z.enum(
                ['run.failed', 'run.succeeded', 'run.rolled_back', 'reconcile.warning', 'reconcile.failed'],
                {
                  error:
                    'must be run.failed, run.succeeded, run.rolled_back, reconcile.warning or reconcile.failed',
                },
              ),
            ),
            stacks: z.array(text()).optional(),
            environments: z.array(z.union([integerId, z.null()])).optional(),
            maxAttempts: z.int().min(1).max(100).optional(),
            retryBaseMs: z.int().min(1).max(3_600_000).optional(),
          },
          {
            error:
              'must be an object {name, type, url, token?, events, stacks?, environments?, maxAttempts?, retryBaseMs?}',
          },
        ),
        { error: 'must be a list of notification channels' },
      )
      .optional(),
    jobs: z
      .strictObject(
        {
          timeoutSeconds: positive('a positive number of seconds').optional(),
          retentionHours: z
            .number({ error: 'must be a number of hours, 0 or more' })
            .nonnegative({ error: 'must be a number of hours, 0 or more' })
            .optional(),
          maxConcurrent: z
            .int({ error: 'must be a whole number of compose jobs, 1 or more' })
            .min(1, { error: 'must be a whole number of compose jobs, 1 or more' })
            .max(1_000, { error: 'must be at most 1000 compose jobs' })
            .optional(),
        },
        { error: 'must be an object {timeoutSeconds?, retentionHours?, maxConcurrent?}' },
      )
      .optional(),
    imageUpdates: z
      .strictObject(
        {
          checkEveryMinutes: z
            .int({ error: 'must be a whole number of minutes, 0 (never) or more' })
            .min(0, { error: 'must be a whole number of minutes, 0 (never) or more' })
            .optional(),
        },
        { error: 'must be an object {checkEveryMinutes?}' },
      )
      .optional(),
  },
  { error: 'must be a JSON object' },
);

type ConfigInput = z.output<typeof configSchema>;

/** `users[1].token`, `secretProviders["my vault"].command`. */
function keyPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const where = keyPath(issue.path);
  const subject = where ? `config ${where}` : 'config';
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => JSON.stringify(k)).join(', ');
    return `${subject} has unknown key${issue.keys.length > 1 ? 's' : ''} ${keys}`;
  }
  return `${subject} ${issue.message}`;
}

/**
 * Names zod's record leaves out without a word: it never assigns `__proto__` (on a plain object that
 * would replace the prototype), so a provider of that name would silently vanish. It is refused instead.
 */
function unusableNames(raw: unknown): string[] {
  const providers =
    raw !== null && typeof raw === 'object'
      ? (raw as { secretProviders?: unknown }).secretProviders
      : undefined;
  if (providers === null || typeof providers !== 'object' || !Object.hasOwn(providers, '__proto__'))
    return [];
  return ['config secretProviders["__proto__"] cannot name a provider: choose another name'];
}

/** Checks across entries: unique ids, names and tokens, and grants naming environments that exist. */
function crossChecks(input: ConfigInput): string[] {
  const problems: string[] = [];
  // The message names the places, never the value (a token, say).
  const unique = <T>(items: readonly T[], list: string, field: keyof T) => {
    const seen = new Map<unknown, number>();
    items.forEach((item, i) => {
      const j = seen.get(item[field]);
      if (j === undefined) seen.set(item[field], i);
      else problems.push(`config ${list}[${i}].${String(field)} duplicates ${list}[${j}].${String(field)}`);
    });
  };
  const environments = input.environments ?? [];
  const users = input.users ?? [];
  unique(environments, 'environments', 'id');
  unique(environments, 'environments', 'name');
  unique(users, 'users', 'name');
  unique(users, 'users', 'token');
  const known = new Set(environments.map((e) => e.id));
  const listed = (list: z.output<typeof environmentList> | undefined, where: string) => {
    if (list === undefined || list === '*') return;
    list.forEach((id, k) => {
      if (id !== null && !known.has(id))
        problems.push(`config ${where}.environments[${k}] is ${id}, which is not a configured environment`);
    });
  };
  for (const [name, provider] of Object.entries(input.secretProviders ?? {}))
    listed(provider.environments, keyPath(['secretProviders', name]));
  users.forEach((user, u) => {
    user.grants?.forEach((grant, g) => {
      listed(grant.environments, `users[${u}].grants[${g}]`);
    });
    if (Array.isArray(user.environmentAccess))
      user.environmentAccess.forEach((id, k) => {
        if (!known.has(id))
          problems.push(
            `config users[${u}].environmentAccess[${k}] is ${id}, which is not a configured environment`,
          );
      });
  });
  return problems;
}

/**
 * Grants that reach the local environment only through the spec's rule (the local environment uses the
 * global check): a non-admin user given an action by grants that list other environments, or none,
 * and no grant listing `null` or `"*"` for it (auth.ts `localOnlyByRule`). Under
 * `"localEnvironment": "explicit"` such a grant does not reach it, so nothing is said.
 */
function localRuleWarnings(users: readonly User[]): string[] {
  const warnings: string[] = [];
  users.forEach((user, u) => {
    for (const action of ['view', 'edit'] as const) {
      if (!localOnlyByRule(user, action)) continue;
      const which = user.grants
        .map((grant, g) => ({ grant, g }))
        .filter((x) => x.grant.resource === STACKS_RESOURCE && x.grant.actions.includes(action))
        .map((x) =>
          x.grant.environments === undefined
            ? `grants[${x.g}] (no environments)`
            : `grants[${x.g}] (environments ${JSON.stringify(x.grant.environments)})`,
        )
        .join(', ');
      warnings.push(
        `config users[${u}] (${user.name}) may ${action} the local environment's stacks only through the rule that the local environment uses the global check: ${which}; list null in a grant's environments to mean it, or set "localEnvironment": "explicit"`,
      );
    }
  });
  return warnings;
}

/**
 * A provider as the service runs it. A program named by a relative path (`./print-secrets.sh`,
 * `bin/vault`) is the config file's neighbour, whatever folder a stack's job runs in; a bare name
 * (`vault`) is looked up on PATH as a command line would.
 */
function providerOf(
  input: { command: readonly string[]; environments?: GrantEnvironments | undefined },
  file: string | undefined,
): SecretProviderConfig {
  const [program, ...args] = input.command;
  const relative =
    file !== undefined && program !== undefined && !isAbsolute(program) && /[/\\]/.test(program);
  const command = relative ? [resolve(dirname(file), program), ...args] : [...input.command];
  return input.environments === undefined ? { command } : { command, environments: input.environments };
}

/** A fresh token: 256 random bits, URL-safe so it can be pasted into a header or a shell. */
const generateToken = () => randomBytes(32).toString('base64url');

/** The line the CLI writes once on standard error for a generated admin token. */
export const adminTokenNotice = (token: string) => `stacks admin token: ${token}`;

/**
 * Validates an already-parsed config value and fills in the defaults. Without any configured user one
 * admin is made with a random token (also for a file without `users`: a server nobody can call is of no use).
 */
export function resolveStacksConfig(raw: unknown, file?: string): LoadedStacksConfig {
  const parsed = configSchema.safeParse(raw);
  const problems = [
    ...unusableNames(raw),
    ...(parsed.success ? crossChecks(parsed.data) : parsed.error.issues.map(describeIssue)),
  ];
  if (!parsed.success || problems.length > 0) {
    const where = file ? ` (${file})` : '';
    throw new ConfigError(`invalid stacks config${where}:\n${problems.join('\n')}`, file);
  }
  const input = parsed.data;
  const environments: Environment[] = (input.environments ?? []).map((e) => ({
    id: e.id,
    name: e.name,
    ...(e.dockerHost === undefined ? {} : { dockerHost: e.dockerHost }),
    ...(e.security === undefined ? {} : { security: securityOf(e.security) }),
  }));
  let users: User[] = (input.users ?? []).map((u) => ({
    name: u.name,
    token: u.token,
    admin: u.admin ?? false,
    grants: (u.grants ?? []).map(
      (g): Grant =>
        g.environments === undefined
          ? { resource: g.resource, actions: [...g.actions] }
          : { resource: g.resource, actions: [...g.actions], environments: g.environments },
    ),
    environmentAccess: u.environmentAccess ?? [],
    ...(input.localEnvironment === 'explicit' ? { localEnvironment: 'explicit' as const } : {}),
  }));
  let generatedAdminToken: string | undefined;
  if (users.length === 0) {
    generatedAdminToken = generateToken();
    users = [
      {
        name: GENERATED_ADMIN_NAME,
        token: generatedAdminToken,
        admin: true,
        grants: [],
        environmentAccess: '*',
      },
    ];
  }
  const config: StacksConfig = {
    environments,
    ...(input.localEnvironmentSecurity === undefined
      ? {}
      : { localSecurity: securityOf(input.localEnvironmentSecurity) }),
    users,
    compose: { command: input.compose?.command ?? null },
    secretProviders: new Map(
      Object.entries(input.secretProviders ?? {}).map(([name, p]) => [name, providerOf(p, file)]),
    ),
    deployLogs: {
      budgetBytes: input.deployLogs?.budgetBytes ?? DEFAULT_DEPLOY_LOGS.budgetBytes,
      remeasureBytes: input.deployLogs?.remeasureBytes ?? DEFAULT_DEPLOY_LOGS.remeasureBytes,
    },
    jobs: {
      timeoutSeconds: input.jobs?.timeoutSeconds ?? DEFAULT_JOBS.timeoutSeconds,
      retentionHours: input.jobs?.retentionHours ?? DEFAULT_JOBS.retentionHours,
      maxConcurrent: input.jobs?.maxConcurrent ?? DEFAULT_JOBS.maxConcurrent,
    },
    imageUpdates: {
      checkEveryMinutes: input.imageUpdates?.checkEveryMinutes ?? DEFAULT_IMAGE_UPDATES.checkEveryMinutes,
    },
    notifications: (input.notifications ?? []).map((n) => ({
      name: n.name,
      type: n.type,
      url: n.url,
      ...(n.token !== undefined ? { token: n.token } : {}),
      events: [...n.events],
      ...(n.stacks !== undefined ? { stacks: [...n.stacks] } : {}),
      ...(n.environments !== undefined ? { environments: [...n.environments] } : {}),
      maxAttempts: n.maxAttempts ?? 6,
      retryBaseMs: n.retryBaseMs ?? 2_000,
    })),
    retention: new Map(
      (input.retention ?? []).map((r) => [
        r.environment,
        { keepRuns: r.keepRuns ?? null, keepDays: r.keepDays ?? null },
      ]),
    ),
  };
  const warnings = localRuleWarnings(users);
  return generatedAdminToken === undefined ? { config, warnings } : { config, generatedAdminToken, warnings };
}

/** Reads `--config FILE` (JSON); without a file, the defaults and a generated admin. */
export async function loadStacksConfig(path: string | undefined): Promise<LoadedStacksConfig> {
  if (path === undefined) return resolveStacksConfig({});
  let source: string;
  try {
    source = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (error as Error).message;
    throw new ConfigError(`cannot read the stacks config file ${path}: ${reason}`, path, { cause: error });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(source);
  } catch (error) {
    throw new ConfigError(`the stacks config file ${path} is not JSON: ${(error as Error).message}`, path, {
      cause: error,
    });
  }
  return resolveStacksConfig(raw, path);
}

/** The configured environment with this id, or undefined (routes answer 404 Environment not found). */
export const findEnvironment = (config: StacksConfig, id: number): Environment | undefined =>
  config.environments.find((e) => e.id === id);
