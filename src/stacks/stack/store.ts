import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import {
  type EnvironmentId,
  type StacksEventMap,
  type StackVariableFlags,
  stackStream,
  stacksEvent,
} from '../../../streams/stacks.js';
import type { EventStore } from '../../store/types.js';
import { ENV_NAME_PATTERN, EnvFileError, formatEnvFile, parseEnvFile } from '../compose/env-file.js';
import { isRefusedVariableName, refusedVariableMessage } from '../compose/variable-names.js';
import { composeYamlValue } from '../compose/yaml.js';
import type { StackRef, StackVariable } from '../contracts.js';
import { composeChanged, StacksError } from '../errors.js';
import { unlessMissing } from '../missing-files.js';
import { envFolder, isStackName, parseStackName } from '../names.js';
import { checkComposeSize, checkVariableCount, checkVariableSizes } from './input-limits.js';

/**
 * Stacks as files: `<data>/stacks/<env id or "local">/<name>/` holds `compose.yaml`, `.env` (the variable
 * values) and `stack.json` (variable names, secret flags, the secret provider). Every mutation is also
 * recorded as an event in the stack's stream, naming variables but never their values.
 *
 * Consistency: each mutation first commits the files (temp file + rename), then appends its event; when the
 * append fails, the files are put back as they were and the error is thrown, so files and events agree.
 * Mutations of one stack are serialised in this process (one server owns a data folder: the store's lock).
 */

export const COMPOSE_FILE = 'compose.yaml';
export const ENV_FILE = '.env';
/** The compose text of a redeploy with its images pinned, there while its compose runs (runs/deploy.ts). */
export const PINNED_COMPOSE_FILE = '.compose.pinned.yaml';
const META_FILE = 'stack.json';

export interface Stack {
  name: string;
  environmentId: EnvironmentId;
  compose: string;
  secretProvider: string | null;
  /** With their values, secret ones too: routes hide secret values, deploys need them. */
  variables: StackVariable[];
}

export interface StackSummary {
  name: string;
  environmentId: EnvironmentId;
  secretProvider: string | null;
  variables: StackVariableFlags[];
}

export interface NewStack {
  compose: string;
  variables: readonly StackVariable[];
  secretProvider: string | null;
}

/** Where mutations are recorded, and by whom. */
export interface StackRecording {
  events: EventStore;
  userId?: string | null;
}

interface StackMeta {
  version: 1;
  variables: StackVariableFlags[];
  secretProvider: string | null;
}

const STACK_NOT_FOUND = 'Stack not found';
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** sha256 hex of the compose text. */
export const composeHash = (compose: string) => sha256(compose);

/** The per-install key of envHash, in `<data>/stacks/.hash-key` (created once, mode 0600). */
export const HASH_KEY_FILE = '.hash-key';
const HASH_KEY_BYTES = 32;
const hashKeys = new Map<string, Promise<Buffer>>();

async function readOrCreateHashKey(dataDir: string): Promise<Buffer> {
  const dir = join(resolve(dataDir), 'stacks');
  const file = join(dir, HASH_KEY_FILE);
  try {
    const key = await readFile(file);
    if (key.length === HASH_KEY_BYTES) return key;
    throw new StacksError(
      'data_damaged',
      `${file} is damaged (expected ${HASH_KEY_BYTES} bytes, found ${key.length})`,
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dir, { recursive: true });
  const key = randomBytes(HASH_KEY_BYTES);
  try {
    // `wx`: two processes creating it at once do not overwrite each other's key.
    await writeFile(file, key, { flag: 'wx', mode: 0o600 });
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFile(file);
    throw error;
  }
}

/** The install's envHash key: read from the data folder, or made there once. */
export function loadHashKey(dataDir: string): Promise<Buffer> {
  const at = resolve(dataDir);
  let key = hashKeys.get(at);
  if (!key) {
    key = readOrCreateHashKey(at);
    hashKeys.set(at, key);
    key.catch(() => hashKeys.delete(at));
  }
  return key;
}

/**
 * HMAC-SHA256 hex, keyed by the install's random key, of the variables sorted by name: JSON of
 * `[name, value]` pairs, so no two different sets share an input. It changes when any value changes,
 * secret ones included; flags do not count. Keyed, because a plain hash of a short secret could be
 * guessed by hashing candidates; without the key, the hash tells nothing about the values.
 */
export const envHash = (key: Buffer, variables: ReadonlyArray<{ name: string; value: string }>) =>
  createHmac('sha256', key)
    .update(
      JSON.stringify(
        [...variables]
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
          .map((v) => [v.name, v.value]),
      ),
      'utf8',
    )
    .digest('hex');

/** The compose text, if it is YAML whose top level is a mapping; else a 400 naming the problem and line. */
export function validateCompose(compose: unknown): string {
  if (typeof compose !== 'string')
    throw new StacksError('invalid_compose', 'Compose content must be a string');
  checkComposeSize(compose);
  const value = composeYamlValue(compose);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const got = value === null ? 'empty' : Array.isArray(value) ? 'a list' : `a ${typeof value}`;
    throw new StacksError(
      'invalid_compose',
      `Compose file must be a YAML mapping (such as "services: ..."), but it is ${got}`,
    );
  }
  return compose;
}

/**
 * Variables as given by a caller: names an environment can carry and that do not steer the compose
 * program (variable-names.ts), no duplicates, values without NUL.
 */
export function validateVariables(variables: unknown): StackVariable[] {
  if (!Array.isArray(variables))
    throw new StacksError('invalid_variables', 'variables must be a list of {name, value, secret}');
  checkVariableCount(variables.length);
  const seen = new Set<string>();
  const checked = variables.map((v: unknown, i): StackVariable => {
    if (v === null || typeof v !== 'object')
      throw new StacksError('invalid_variables', `variables[${i}] must be an object {name, value, secret}`);
    const { name, value, secret } = v as Record<string, unknown>;
    if (typeof name !== 'string' || !ENV_NAME_PATTERN.test(name))
      throw new StacksError(
        'invalid_variables',
        `variables[${i}].name must be a variable name (letters, digits and _, not starting with a digit)`,
      );
    if (isRefusedVariableName(name))
      throw new StacksError('invalid_variables', refusedVariableMessage(`variables[${i}].name`, name));
    if (seen.has(name))
      throw new StacksError('invalid_variables', `variables[${i}].name: ${name} is given twice`);
    seen.add(name);
    if (typeof value !== 'string')
      throw new StacksError('invalid_variables', `variables[${i}].value (${name}) must be a string`);
    // A NUL cannot be passed to a child's environment.
    if (value.includes('\0'))
      throw new StacksError(
        'invalid_variables',
        `variables[${i}].value (${name}) must not contain a NUL character`,
      );
    if (secret !== undefined && typeof secret !== 'boolean')
      throw new StacksError('invalid_variables', `variables[${i}].secret (${name}) must be true or false`);
    return { name, value, secret: secret === true };
  });
  checkVariableSizes(checked);
  return checked;
}

const validateProvider = (provider: unknown): string | null => {
  if (provider === null || provider === undefined) return null;
  if (typeof provider !== 'string' || provider === '')
    throw new StacksError('unknown_secret_provider', 'secretProvider must be a provider name or null');
  return provider;
};

/** The folder holding every stack of one environment. */
function environmentDir(dataDir: string, environmentId: EnvironmentId): string {
  if (environmentId !== null && !Number.isSafeInteger(environmentId))
    throw new StacksError('invalid_id', `Invalid environment id ${String(environmentId)}`);
  return join(resolve(dataDir), 'stacks', envFolder(environmentId));
}

/** The stack's folder; the name is validated and the result checked to lie inside the stacks folder. */
export function stackDir(dataDir: string, ref: StackRef): string {
  const name = parseStackName(ref.name);
  const root = join(resolve(dataDir), 'stacks') + sep;
  const dir = resolve(environmentDir(dataDir, ref.environmentId), name);
  if (!dir.startsWith(root))
    throw new StacksError('invalid_id', `Invalid stack name ${JSON.stringify(ref.name)}`);
  return dir;
}

// ENOTDIR: a plain file where a stack folder would be is no stack either.
const isMissing = (error: unknown) =>
  ['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '');

const readOptional = (file: string): Promise<string | undefined> =>
  unlessMissing(readFile(file, 'utf8'), undefined, isMissing);

/** Writes a file so that readers see the old or the new content, never a part. */
export async function writeAtomic(file: string, content: string): Promise<void> {
  const temp = `${file}.${randomUUID()}.tmp`;
  try {
    await writeFile(temp, content, { mode: 0o600 });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Puts a file back as it was (`undefined`: it did not exist). */
const restore = (file: string, content: string | undefined) =>
  content === undefined ? rm(file, { force: true }) : writeAtomic(file, content);

const locks = new Map<string, Promise<unknown>>();

/** Runs `work` after every earlier mutation of the same stack folder. */
async function serialised<T>(dir: string, work: () => Promise<T>): Promise<T> {
  const previous = locks.get(dir) ?? Promise.resolve();
  const run = previous.then(work, work);
  const tail = run.catch(() => undefined);
  locks.set(dir, tail);
  try {
    return await run;
  } finally {
    if (locks.get(dir) === tail) locks.delete(dir);
  }
}

function parseMeta(text: string | undefined, dir: string): StackMeta {
  if (text === undefined) return { version: 1, variables: [], secretProvider: null };
  try {
    const raw = JSON.parse(text) as Partial<StackMeta>;
    const variables = Array.isArray(raw.variables)
      ? raw.variables.filter(
          (v): v is StackVariableFlags => typeof v?.name === 'string' && typeof v.secret === 'boolean',
        )
      : [];
    const secretProvider = typeof raw.secretProvider === 'string' ? raw.secretProvider : null;
    return { version: 1, variables, secretProvider };
  } catch (error) {
    throw new StacksError('data_damaged', `The stack's ${META_FILE} in ${dir} is not valid JSON`, {
      cause: error,
    });
  }
}

const metaText = (meta: StackMeta) => `${JSON.stringify(meta, null, 2)}\n`;
const flagsOf = (variables: readonly StackVariable[]): StackVariableFlags[] =>
  variables.map((v) => ({ name: v.name, secret: v.secret }));

/**
 * The variables of a stack folder: names and values from `.env`, secret flags from `stack.json`. A name
 * `stack.json` does not know counts as secret, so a half-written update never shows a secret's value.
 */
function readVariables(envText: string | undefined, meta: StackMeta, dir: string): StackVariable[] {
  let values: Map<string, string>;
  try {
    values = parseEnvFile(envText ?? '');
  } catch (error) {
    if (error instanceof EnvFileError)
      throw new StacksError(
        'data_damaged',
        `The stack's ${ENV_FILE} in ${dir} cannot be read: ${error.message}`,
        {
          cause: error,
        },
      );
    throw error;
  }
  const flags = new Map(meta.variables.map((v) => [v.name, v.secret]));
  return [...values].map(([name, value]) => ({ name, value, secret: flags.get(name) ?? true }));
}

async function readStackFolder(dir: string, ref: StackRef): Promise<Stack | undefined> {
  const compose = await readOptional(join(dir, COMPOSE_FILE));
  if (compose === undefined) return undefined;
  const meta = parseMeta(await readOptional(join(dir, META_FILE)), dir);
  const variables = readVariables(await readOptional(join(dir, ENV_FILE)), meta, dir);
  return {
    name: ref.name,
    environmentId: ref.environmentId,
    compose,
    secretProvider: meta.secretProvider,
    variables,
  };
}

async function append<T extends keyof StacksEventMap>(
  recording: StackRecording,
  ref: StackRef,
  type: T,
  data: StacksEventMap[T],
): Promise<void> {
  const metadata = recording.userId == null ? {} : { metadata: { userId: recording.userId } };
  await recording.events.append(stackStream(ref.environmentId, ref.name), [
    { ...stacksEvent(type, data), ...metadata },
  ]);
}

/** The stack, or a 404 `Stack not found`. */
export async function getStack(dataDir: string, ref: StackRef): Promise<Stack> {
  const stack = await readStackFolder(stackDir(dataDir, ref), ref);
  if (!stack) throw new StacksError('stack_not_found', STACK_NOT_FOUND);
  return stack;
}

/** A stack as `GET /api/stacks/{name}` answers it: a secret's value is null, never sent back. */
/** Throws 409 `compose_changed` when `editedHash` is given and the stack's compose file is another. */
export function checkEdited(stack: Stack, editedHash: string | undefined): void {
  if (editedHash === undefined) return;
  const current = composeHash(stack.compose);
  if (current !== editedHash) throw composeChanged(current);
}

export function stackView(stack: Stack) {
  return {
    name: stack.name,
    environmentId: stack.environmentId,
    compose: stack.compose,
    composeHash: composeHash(stack.compose),
    secretProvider: stack.secretProvider,
    variables: stack.variables.map((v) => ({
      name: v.name,
      secret: v.secret,
      value: v.secret ? null : v.value,
    })),
  };
}

/**
 * Removes what an interrupted create or delete left behind (hidden `.new-*` and `.deleted-*` folders);
 * for the service's start, before any mutation runs. Returns how many it removed.
 */
export async function removeLeftovers(dataDir: string): Promise<number> {
  const root = join(resolve(dataDir), 'stacks');
  const envs = await unlessMissing(readdir(root), [], isMissing);
  let removed = 0;
  for (const env of envs) {
    let entries: string[];
    try {
      entries = await readdir(join(root, env));
    } catch (error) {
      // A file beside the environment folders (the hash key) holds no leftovers.
      if (isMissing(error) || (error as NodeJS.ErrnoException).code === 'ENOTDIR') continue;
      throw error;
    }
    for (const entry of entries.filter((e) => /^\.(new|deleted)-[0-9a-f-]{36}$/.test(e))) {
      await rm(join(root, env, entry), { recursive: true, force: true });
      removed++;
    }
  }
  return removed;
}

/** Whether a stack exists (its folder holds a compose file). */
export async function stackExists(dataDir: string, ref: StackRef): Promise<boolean> {
  return (await readOptional(join(stackDir(dataDir, ref), COMPOSE_FILE))) !== undefined;
}

/** The stacks of one environment, by name; folders that are not stacks (bad names, no compose file) are skipped. */
export async function listStacks(dataDir: string, environmentId: EnvironmentId): Promise<StackSummary[]> {
  const envDir = environmentDir(dataDir, environmentId);
  const entries = await unlessMissing(readdir(envDir), [], isMissing);
  const out: StackSummary[] = [];
  for (const name of entries.filter(isStackName).sort()) {
    const stack = await readStackFolder(join(envDir, name), { name, environmentId });
    if (stack)
      out.push({
        name,
        environmentId,
        secretProvider: stack.secretProvider,
        variables: flagsOf(stack.variables),
      });
  }
  return out;
}

/**
 * Creates the stack's folder with its three files, all at once: they are written in a hidden temporary
 * folder renamed into place, so a stack is either whole or absent. A taken name is a 409.
 */
export async function createStack(
  dataDir: string,
  ref: StackRef,
  input: NewStack,
  recording: StackRecording,
): Promise<Stack> {
  const dir = stackDir(dataDir, ref);
  const compose = validateCompose(input.compose);
  const variables = validateVariables(input.variables);
  const secretProvider = validateProvider(input.secretProvider);
  return serialised(dir, async () => {
    const envDir = environmentDir(dataDir, ref.environmentId);
    await mkdir(envDir, { recursive: true });
    if (
      await stat(dir).then(
        () => true,
        (error: unknown) => (isMissing(error) ? false : Promise.reject(error)),
      )
    )
      throw new StacksError('stack_exists', 'Stack already exists');
    // A leading dot: never a stack name, so listStacks never shows a half-made stack.
    const temp = join(envDir, `.new-${randomUUID()}`);
    try {
      await mkdir(temp, { mode: 0o700 });
      await writeFile(join(temp, COMPOSE_FILE), compose);
      await writeFile(join(temp, ENV_FILE), formatEnvFile(variables), { mode: 0o600 });
      await writeFile(
        join(temp, META_FILE),
        metaText({ version: 1, variables: flagsOf(variables), secretProvider }),
      );
      await rename(temp, dir);
    } catch (error) {
      await rm(temp, { recursive: true, force: true });
      // Someone else's folder appeared under the name meanwhile (rename refuses a non-empty target).
      if (['ENOTEMPTY', 'EEXIST'].includes((error as NodeJS.ErrnoException).code ?? ''))
        throw new StacksError('stack_exists', 'Stack already exists');
      throw error;
    }
    try {
      await append(recording, ref, 'StackCreated', {
        stack: ref.name,
        environment_id: ref.environmentId,
        compose_hash: composeHash(compose),
        env_hash: envHash(await loadHashKey(dataDir), variables),
        variables: flagsOf(variables),
        secret_provider: secretProvider,
        user_id: recording.userId ?? null,
      });
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
    return { name: ref.name, environmentId: ref.environmentId, compose, secretProvider, variables };
  });
}

/**
 * Replaces the compose file (validated first); 404 when the stack does not exist. With `editedHash`
 * (the hash of the version the caller edited), 409 `compose_changed` when the stored file is another:
 * checked with the stack's mutations serialised, so of two saves of one version only the first lands.
 */
export async function saveCompose(
  dataDir: string,
  ref: StackRef,
  compose: string,
  recording: StackRecording,
  editedHash?: string,
): Promise<Stack> {
  const dir = stackDir(dataDir, ref);
  const text = validateCompose(compose);
  return serialised(dir, async () => {
    const stack = await getStack(dataDir, ref);
    checkEdited(stack, editedHash);
    const file = join(dir, COMPOSE_FILE);
    await writeAtomic(file, text);
    try {
      await append(recording, ref, 'StackComposeSaved', {
        stack: ref.name,
        environment_id: ref.environmentId,
        compose_hash: composeHash(text),
        user_id: recording.userId ?? null,
      });
    } catch (error) {
      await restore(file, stack.compose);
      throw error;
    }
    return { ...stack, compose: text };
  });
}

/**
 * Replaces the stack's variables. `stack.json` (the flags) is written before `.env` (the values): in
 * between, a new name is not yet in `.env` and an old one `stack.json` no longer knows reads as secret.
 */
export async function setVariables(
  dataDir: string,
  ref: StackRef,
  variables: readonly StackVariable[],
  recording: StackRecording,
): Promise<Stack> {
  const dir = stackDir(dataDir, ref);
  const checked = validateVariables(variables);
  return serialised(dir, async () => {
    const stack = await getStack(dataDir, ref);
    const metaFile = join(dir, META_FILE);
    const envFile = join(dir, ENV_FILE);
    const oldMeta = await readOptional(metaFile);
    const oldEnv = await readOptional(envFile);
    const rollback = async () => {
      await restore(envFile, oldEnv);
      await restore(metaFile, oldMeta);
    };
    try {
      await writeAtomic(
        metaFile,
        metaText({ version: 1, variables: flagsOf(checked), secretProvider: stack.secretProvider }),
      );
      await writeAtomic(envFile, formatEnvFile(checked));
      await append(recording, ref, 'StackVariablesSet', {
        stack: ref.name,
        environment_id: ref.environmentId,
        env_hash: envHash(await loadHashKey(dataDir), checked),
        variables: flagsOf(checked),
        user_id: recording.userId ?? null,
      });
    } catch (error) {
      await rollback();
      throw error;
    }
    return { ...stack, variables: checked };
  });
}

/**
 * Removes the stack's folder (its runs stay). The folder is first renamed aside, so the stack is gone at
 * once and can be put back if the event cannot be recorded; then the renamed folder is removed.
 */
export async function deleteStack(dataDir: string, ref: StackRef, recording: StackRecording): Promise<void> {
  const dir = stackDir(dataDir, ref);
  await serialised(dir, async () => {
    if (!(await stackExists(dataDir, ref))) throw new StacksError('stack_not_found', STACK_NOT_FOUND);
    const aside = join(environmentDir(dataDir, ref.environmentId), `.deleted-${randomUUID()}`);
    await rename(dir, aside);
    try {
      await append(recording, ref, 'StackDeleted', {
        stack: ref.name,
        environment_id: ref.environmentId,
        user_id: recording.userId ?? null,
      });
    } catch (error) {
      await rename(aside, dir);
      throw error;
    }
    await rm(aside, { recursive: true, force: true });
  });
}
