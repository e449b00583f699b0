/**
 * Checking a compose file with the compose that will run it, before it is saved: `config -q` (both
 * generations: validate, print nothing) on the candidate text, written beside the stack's compose file
 * so its relative paths (`env_file`, build contexts) resolve as they will, in the environment the
 * deploy gets (the stack's variables). A file compose refuses is a 422 with compose's message, its
 * temporary name replaced by the file's own, and the line of the key it names when that can be found
 * (`at line N, column M`, the words the page's editor marks). YAML the server cannot read is refused
 * before (400, compose/yaml.ts); this catches what only compose knows (`restart: false`, a required
 * variable unset, an `env_file` that is not there).
 */
import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { isMap, isScalar, LineCounter, parseDocument } from 'yaml';
import { type RunStop, runBounded } from '../bounded-run.js';

/** How long one `config -q` may take (a Python v1 on a loaded machine takes a second or two). */
const CHECK_TIMEOUT_MS = 30_000;
const STDERR_KEEP = 8 * 1024;

/**
 * Where in the text a compose message points: a YAML position (`yaml: line 3: …`), else the first
 * dotted key path it names (`services.web.restart must be a string`, v1's `services.web.restart
 * contains an invalid type`), looked up in the text (the deepest key of the path that exists, the
 * service at least). Pure.
 */
export function messagePosition(text: string, message: string): { line: number; column: number } | undefined {
  const yamlLine = /\byaml: line (\d+)/.exec(message);
  if (yamlLine) return { line: Number(yamlLine[1]), column: 1 };
  const path = /\b(services(?:\.[A-Za-z0-9_-]+)+)/.exec(message)?.[1]?.split('.');
  if (!path) return undefined;
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter });
  if (doc.errors.length > 0) return undefined;
  let node: unknown = doc.contents;
  let at: number | undefined;
  let found = 0;
  for (const part of path) {
    if (!isMap(node)) break;
    const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === part);
    if (!pair || !isScalar(pair.key) || !pair.key.range) break;
    at = pair.key.range[0];
    node = pair.value;
    found++;
  }
  // `services` alone says nothing: the service at least must be there.
  if (at === undefined || found < 2) return undefined;
  const { line, col } = counter.linePos(at);
  return { line, column: col };
}

interface CheckTarget {
  /** The compose command, program first. */
  command: readonly string[];
  project: string;
  /** The folder the candidate is written to (beside the stack's compose file). */
  dir: string;
  /** The name the file goes by in messages (`compose.yaml`). */
  name: string;
  /** Override files given after it (a git stack's), as a deploy gives them. */
  overrides?: readonly string[];
  env: Record<string, string>;
}

/**
 * compose's objection to the text, or undefined when it takes it; undefined too when compose cannot be
 * run at all (not installed, a time-out): the check is an aid, and the deploy will say what is wrong.
 */
export async function composeObjection(target: CheckTarget, text: string): Promise<string | undefined> {
  const [program, ...prefix] = target.command;
  if (program === undefined) return undefined;
  const file = join(target.dir, `.compose.check-${randomUUID()}.yaml`);
  await writeFile(file, text, { mode: 0o600 });
  try {
    const out = await runBounded(
      program,
      [
        ...prefix,
        '--project-name',
        target.project,
        '--file',
        file,
        ...(target.overrides ?? []).flatMap((o) => ['--file', o]),
        'config',
        '--quiet',
      ],
      {
        cwd: target.dir,
        env: target.env,
        timeoutMs: CHECK_TIMEOUT_MS,
        maxOutputBytes: 1024 * 1024,
        stderrKeep: STDERR_KEEP,
        stopped: (stop: RunStop) => new Error(stop.why),
      },
    ).catch(() => undefined);
    if (!out || out.code === 0) return undefined;
    const said = out.stderr
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== '' && !/^WARN(ING)?\b/i.test(l) && !/variable is not set/i.test(l))
      .join('\n')
      .replaceAll(file, target.name)
      .replaceAll(`./${basename(file)}`, target.name)
      .replaceAll(basename(file), target.name);
    if (said === '') return `compose refused the file (exit code ${out.code ?? 'none'})`;
    const position = messagePosition(text, said);
    return position === undefined ? said : `${said} (at line ${position.line}, column ${position.column})`;
  } finally {
    await rm(file, { force: true });
  }
}
