/**
 * Adopting a compose project the engine runs but chronicle does not manage
 * (docs/stacks.md#adopting-compose-projects): what the project's own files become in a new stack of the same name. The compose file is
 * copied as it is when it is the only one and names no relative host path; otherwise compose itself
 * merges the files (`config --no-interpolate`, which also makes every relative path absolute in the
 * project's folder), so the adopted stack reads the same build contexts, env files and bind-mounted data
 * as the project did, wherever chronicle keeps the stack. The project's `.env` becomes the stack's
 * variables, each secret (a `.env` is where passwords live; nothing is shown before someone says so).
 *
 * The files are read from the server's host at the paths the containers' labels name, and anyone who
 * can start a container on the engine writes those labels: only admins may adopt (the routes check),
 * and nothing inside chronicle's own data folder is read whatever the labels say.
 */
import { lstat, readFile, realpath } from 'node:fs/promises';
import { isAbsolute, relative, sep } from 'node:path';
import { runBounded } from '../bounded-run.js';
import { composeEnv } from '../compose/args.js';
import { ENV_NAME_PATTERN, EnvFileError, parseEnvFile } from '../compose/env-file.js';
import type { ComposeProgram } from '../compose/program.js';
import { composeReferences } from '../compose/references.js';
import { isRefusedVariableName } from '../compose/variable-names.js';
import { composeYamlValue } from '../compose/yaml.js';
import type { Environment, StackVariable } from '../contracts.js';
import type { EngineProject } from '../engine/compose-projects.js';
import { StacksError } from '../errors.js';
import { isStackName } from '../names.js';
import type { NewStack } from './store.js';

/** The largest compose or `.env` file read (the API's own body limit for a compose file). */
const MAX_FILE_BYTES = 8 * 1024 * 1024;
const MERGE_TIMEOUT_MS = 30_000;

export interface AdoptionSource {
  stack: NewStack;
  /** True when compose merged the files (comments and layout are not kept then). */
  merged: boolean;
  /** What was left out, for the caller and the run's log: refused variable names and the like. */
  warnings: string[];
  /** The adoption run's log, before redaction. */
  log: string[];
}

const unprocessable = (message: string) => new StacksError('compose_rejected', message);

/** Whether `path` is inside `dir`. */
function inside(path: string, dir: string): boolean {
  const r = relative(dir, path);
  return r === '' || (!r.startsWith(`..${sep}`) && r !== '..' && !isAbsolute(r));
}

/** A file the labels name, read if it is a regular file outside chronicle's data folder. */
async function readLabelled(path: string, what: string, dataDir: string): Promise<string> {
  if (!isAbsolute(path)) throw unprocessable(`The project's ${what} ${path} is not an absolute path`);
  let real: string;
  try {
    real = await realpath(path);
  } catch (error) {
    throw unprocessable(`The project's ${what} ${path} cannot be read: ${(error as Error).message}`);
  }
  if (inside(real, await realpath(dataDir).catch(() => dataDir)))
    throw unprocessable(`The project's ${what} ${path} is in chronicle's data folder: it is not read`);
  const info = await lstat(real);
  if (!info.isFile()) throw unprocessable(`The project's ${what} ${path} is not a regular file`);
  if (info.size > MAX_FILE_BYTES)
    throw unprocessable(`The project's ${what} ${path} is larger than ${MAX_FILE_BYTES} bytes`);
  return readFile(real, 'utf8');
}

/** The project's `.env` as variables (each secret); names a stack may not have are left out, said. */
function variablesOf(text: string, file: string, warnings: string[]): StackVariable[] {
  let parsed: Map<string, string>;
  try {
    parsed = parseEnvFile(text);
  } catch (error) {
    if (error instanceof EnvFileError) throw unprocessable(`${file}: ${error.message}`);
    throw error;
  }
  const variables: StackVariable[] = [];
  for (const [name, value] of parsed) {
    if (!ENV_NAME_PATTERN.test(name) || isRefusedVariableName(name) || value.includes('\0')) {
      warnings.push(
        `${name} in ${file} was left out: ${
          isRefusedVariableName(name)
            ? 'a variable of that name steers the compose program (the stack is named after the project and holds its files already)'
            : 'it is not a name a stack variable may have'
        }`,
      );
      continue;
    }
    variables.push({ name, value, secret: true });
  }
  return variables;
}

/** Whether the file names a host path relative to its folder (which would point elsewhere once copied). */
function namesRelativePaths(text: string, project: EngineProject, variables: StackVariable[]): boolean {
  const model = composeYamlValue(text);
  if (model === null || typeof model !== 'object' || Array.isArray(model)) return false;
  const env = Object.fromEntries(variables.map((v) => [v.name, v.value]));
  const refs = composeReferences(model as Record<string, unknown>, {
    envs: [env],
    projectDir: project.workingDir ?? '/',
  });
  // A Dockerfile is relative to its context, which is where it was: only the context matters.
  return (
    refs.uncheckable.length > 0 ||
    refs.paths.some(
      (p) => typeof p.base === 'string' && p.values.some((v) => !isAbsolute(v) && !v.startsWith('~')),
    )
  );
}

/** The project's files merged by its compose (relative paths made absolute, nothing substituted). */
async function mergedByCompose(
  project: EngineProject,
  program: ComposeProgram,
  environment: Environment | null,
): Promise<string> {
  const [executable, ...prefix] = program.argv;
  if (executable === undefined) throw unprocessable('No compose program to merge the files with');
  const args = [
    ...prefix,
    '--project-name',
    project.name,
    '--project-directory',
    project.workingDir as string,
    ...project.configFiles.flatMap((f) => ['--file', f]),
    'config',
    '--no-interpolate',
  ];
  const out = await runBounded(executable, args, {
    cwd: project.workingDir as string,
    env: composeEnv(process.env, [], {}, environment),
    timeoutMs: MERGE_TIMEOUT_MS,
    maxOutputBytes: MAX_FILE_BYTES,
    stderrKeep: 2000,
    stopped: (stop) => unprocessable(`compose config did not finish (${stop.why})`),
  });
  if (out.code !== 0)
    throw unprocessable(
      `compose config refused the project's files (exit code ${out.code ?? 'none'}): ${out.stderr.trim()}`,
    );
  return out.stdout.toString('utf8');
}

/**
 * What adopting the project makes: its compose text and variables, whether compose merged them, and
 * the run's log. 422 for a project whose files cannot be adopted (not labelled, unreadable, in the
 * data folder, a name a stack cannot have).
 */
export async function adoptionSource(
  project: EngineProject,
  options: { program: ComposeProgram; dataDir: string; environment: Environment | null },
): Promise<AdoptionSource> {
  if (!isStackName(project.name))
    throw unprocessable(
      `The project name ${JSON.stringify(project.name)} is not a stack name (lowercase letters, digits, _ and -, at most 63)`,
    );
  if (project.workingDir === null || project.configFiles.length === 0)
    throw unprocessable(
      `The project ${project.name} has no working_dir or config_files label: compose did not say which files it was started from`,
    );
  const workingDir = project.workingDir;
  const texts: string[] = [];
  for (const file of project.configFiles)
    texts.push(await readLabelled(file, 'compose file', options.dataDir));
  const warnings: string[] = [];
  const envFiles =
    project.environmentFiles.length > 0
      ? project.environmentFiles
      : [`${workingDir.replace(/\/$/, '')}/.env`];
  const variables: StackVariable[] = [];
  for (const file of envFiles) {
    const exists = await lstat(file).then(
      () => true,
      () => false,
    );
    // v1 labels no env file: a missing `.env` is no project's fault.
    if (!exists && project.environmentFiles.length === 0) continue;
    const text = await readLabelled(file, 'environment file', options.dataDir);
    for (const v of variablesOf(text, file, warnings)) {
      const at = variables.findIndex((w) => w.name === v.name);
      if (at === -1) variables.push(v);
      else variables[at] = v;
    }
  }
  const first = texts[0] as string;
  const merged = texts.length > 1 || namesRelativePaths(first, project, variables);
  const compose = merged ? await mergedByCompose(project, options.program, options.environment) : first;
  const files = project.configFiles.join(', ');
  const log = [
    `Adopted the compose project ${project.name}, started from ${workingDir} (${files})`,
    merged
      ? `Its compose file is ${files} merged by \`${options.program.command.join(' ')} config --no-interpolate\`: relative paths made absolute in ${workingDir}, comments not kept`
      : `Its compose file is ${files} as it was`,
    variables.length > 0
      ? `Its variables, from ${envFiles.join(', ')} (secret): ${variables.map((v) => v.name).join(', ')}`
      : 'It has no variables',
    ...warnings,
    'Its containers, left as they run:',
    ...project.containers.map((c) => `  ${c.name} (${c.service ?? 'no service'}): ${c.state}`),
  ];
  return { stack: { compose, variables, secretProvider: null }, merged, warnings, log };
}
