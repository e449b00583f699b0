import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { findProjection, projectionNames, projections } from '../../projections/index.js';
import { DEFAULT_CHECKPOINT_EVERY } from '../../projections/rebuild.js';
import { controlSocketPath } from '../control/protocol.js';
import { normalOrigin } from '../http/editor/origin.js';
import { attachUrl } from '../mcp/http-backend.js';
import { StoreError } from '../store/errors.js';
import { openStore } from '../store/open.js';
import type { EventStore } from '../store/types.js';
import { version } from '../version.js';
import { DEFAULT_EDITOR_PORT } from './defaults.js';
import { printEvents } from './events.js';
import { migrate } from './migrate.js';
import { exitQuietlyOnBrokenPipe } from './output.js';
import { rebuildAll, rebuildThroughServer } from './rebuild.js';
import type { ReplayOptions } from './replay.js';
import { DEFAULT_STACKS_HOST, DEFAULT_STACKS_PORT, runStacks, type StacksCommandOptions } from './stacks.js';
import { catchStopSignals, releaseStopSignals, untilStopSignal } from './stop-signals.js';

import { announcesControl, dataDirOf, type StoreOptions, storeUrlOf } from './store-option.js';

const position = (value: string) => {
  if (!/^\d+$/.test(value))
    throw new InvalidArgumentError('a position is a whole number (1 is the first event)');
  return Number(value);
};

const wholeNumber = (what: string) => (value: string) => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${what} is a whole number (0 or more)`);
  return Number(value);
};

const tcpPort = (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) > 65535)
    throw new InvalidArgumentError('a port is a number from 0 to 65535');
  return Number(value);
};

/** `--allow-origin URL`, repeatable: the origins (normalised) whose web pages may touch the file system. */
const allowOriginOption = () =>
  new Option(
    '--allow-origin <url>',
    'let web pages of this origin (https://host[:port]) open, save, plot and embed files through the editor REST API; repeatable',
  )
    .argParser((value: string, previous: string[] | undefined) => {
      const origin = normalOrigin(value);
      if (!origin)
        throw new InvalidArgumentError(
          'an origin is http:// or https://, a host and an optional port, nothing after (e.g. https://cad.example.com)',
        );
      return [...(previous ?? []), origin];
    })
    .default([]);

const dataOption = () => new Option('--data <dir>', 'data directory (default: $CHRONICLE_DATA, else ./data)');
const storeOption = () =>
  new Option(
    '--store <url>',
    'event store: level:<dir> (default level:<data>/events), memory:, postgres://..., kurrentdb://...',
  );

/**
 * Opens the store, runs `work`, and closes the store on the way out and on SIGINT/SIGTERM (exit 0), also
 * on a signal that came while the store was opening.
 */
async function withStore(options: StoreOptions, work: (store: EventStore) => Promise<void>): Promise<void> {
  catchStopSignals();
  const store = await openStore(storeUrlOf(options));
  let finished = false;
  void untilStopSignal().then(() => {
    if (!finished) void store.close().then(() => process.exit(0));
  });
  try {
    await work(store);
  } finally {
    finished = true;
    await store.close();
  }
}

function buildProgram(): Command {
  const program = new Command('chronicle')
    .description(
      'Event-sourced CAD editor automation API and compose stacks service over one append-only log',
    )
    .version(version)
    .exitOverride()
    .showHelpAfterError()
    .configureOutput({ writeOut: (s) => process.stdout.write(s), writeErr: (s) => process.stderr.write(s) });

  program
    .command('events')
    .description('print the audit trail: every event of the log, or of one stream, in order')
    .argument('[stream]', 'only this stream')
    .addOption(
      new Option('--from <position>', 'first global position to print').argParser(position).default(1),
    )
    .option('--follow', 'keep printing events as they are appended', false)
    .option('--json', 'one JSON object per line instead of the human-readable form', false)
    .addOption(dataOption())
    .addOption(storeOption())
    .action(
      async (
        stream: string | undefined,
        options: StoreOptions & { from: number; follow: boolean; json: boolean },
      ) => {
        exitQuietlyOnBrokenPipe(process.stdout);
        await withStore(options, (store) => printEvents(store, { ...options, stream }, process.stdout));
      },
    );

  program
    .command('rebuild')
    .description(
      'replay the log into read models and replace their snapshots; on the data dir of a running server, ask it (blue-green)',
    )
    .argument('[projection...]', `read models to rebuild (default: all): ${projectionNames().join(', ')}`)
    .addOption(
      new Option(
        '--checkpoint-every <events>',
        'save a resumable checkpoint every this many events (0 = never)',
      )
        .argParser(wholeNumber('a number of events'))
        .default(DEFAULT_CHECKPOINT_EVERY),
    )
    .addOption(dataOption())
    .addOption(storeOption())
    .action(
      async (names: string[], options: StoreOptions & { checkpointEvery: number }, command: Command) => {
        const unknown = names.filter((name) => !findProjection(name));
        if (unknown.length > 0) {
          command.error(
            `error: unknown projection ${unknown.join(', ')}; known: ${projectionNames().join(', ')}`,
            {
              exitCode: 2,
              code: 'chronicle.unknownProjection',
            },
          );
        }
        const selected =
          names.length > 0
            ? names.map((name) => findProjection(name)).filter((p) => p !== undefined)
            : projections;
        if (announcesControl(options)) {
          // A client of the running server: a signal ends it as it would any client.
          releaseStopSignals();
          const remote = await rebuildThroughServer(
            controlSocketPath(dataDirOf(options)),
            {
              op: 'rebuild',
              projections: selected.map((p) => p.name),
              checkpointEvery: options.checkpointEvery,
            },
            process.stdout,
            process.stderr,
          );
          if (remote !== undefined) {
            process.exitCode = remote;
            return;
          }
        }
        await withStore(options, (store) =>
          rebuildAll(store, selected, process.stdout, process.stderr, {
            checkpointEvery: options.checkpointEvery,
          }),
        );
      },
    );

  program
    .command('migrate')
    .description('copy the whole log into an empty store of any adapter, then verify count and checksum')
    .requiredOption('--from <url>', 'the store to copy: level:<dir>, postgres://..., kurrentdb://...')
    .requiredOption('--to <url>', 'an empty store to copy into (created when it does not exist)')
    .action(async (options: { from: string; to: string }) => {
      // Not a server: a signal ends it (Node's default), as before the entry caught signals.
      releaseStopSignals();
      await migrate(options.from, options.to, process.stdout, process.stderr);
    });

  program
    .command('replay')
    .description(
      "rebuild a past editor session from the log: a document at a revision (DXF with --out); --verify checks the replay against the live read model's snapshot",
    )
    .argument('<session-id>', 'the session (GET /api/v1/sessions lists them)')
    .addOption(
      new Option('--document <n>', 'document of the session (default: the active one at its end)').argParser(
        wholeNumber('a document id'),
      ),
    )
    .addOption(
      new Option('--to <revision>', 'revision of the document (default: its last)').argParser(
        wholeNumber('a revision'),
      ),
    )
    .option('--out <file.dxf>', 'save the document at that revision as DXF')
    .option('--verify', "replay the whole session and compare it with the live read model's snapshot", false)
    .addOption(dataOption())
    .addOption(storeOption())
    .action(async (sessionId: string, options: ReplayOptions) => {
      releaseStopSignals();
      process.exitCode = await (await import('./replay.js')).runReplay(
        sessionId,
        options,
        process.stdout,
        process.stderr,
      );
    });

  program
    .command('editor')
    .description(
      'the editor on 127.0.0.1: its automation REST API (--http) or an MCP server on standard input and output (--mcp)',
    )
    .argument('[file]', 'a DXF file to open at start')
    .addOption(new Option('--http <port>', 'serve REST on this port (0 = any free port)').argParser(tcpPort))
    .option('--mcp', 'serve MCP over standard input and output (for AI agents), on a session of its own')
    .option(
      '--attach <url>',
      'with --mcp: drive the session of the editor serving REST at http://127.0.0.1:<port> instead',
    )
    .option(
      '--resume [session]',
      'reopen the documents of the last (or this) session at their last revision, unsaved changes included',
    )
    .addOption(allowOriginOption())
    .addOption(dataOption())
    .addOption(storeOption())
    .action(
      async (
        file: string | undefined,
        options: StoreOptions & {
          http?: number;
          mcp?: true;
          attach?: string;
          resume?: string | true;
          allowOrigin: string[];
        },
        command: Command,
      ) => {
        const usage = (message: string) =>
          command.error(`error: ${message}`, { exitCode: 2, code: 'chronicle.usage' });
        if ((options.http === undefined) === (options.mcp === undefined))
          usage('give one of --http <port> (REST) or --mcp (MCP on standard input and output)');
        if (options.mcp && options.allowOrigin.length > 0)
          usage('--allow-origin goes with --http (MCP has no web pages for callers)');
        if (options.attach !== undefined) {
          if (!options.mcp) usage('--attach goes with --mcp');
          const url = attachUrl(options.attach);
          if (!url) usage(`--attach takes http://127.0.0.1:<port> (or localhost), got ${options.attach}`);
          const own = [
            file !== undefined && 'FILE',
            options.resume !== undefined && '--resume',
            options.data !== undefined && '--data',
            options.store !== undefined && '--store',
          ].filter(Boolean);
          if (own.length > 0)
            usage(
              `--attach drives a running editor's session: ${own.join(', ')} belong to the editor started with --http`,
            );
          process.exitCode = await (await import('./mcp.js')).runEditorMcp({ attach: url });
          return;
        }
        if (options.mcp) {
          process.exitCode = await (await import('./mcp.js')).runEditorMcp({ ...options, file });
          return;
        }
        // The editor's code is loaded by the commands that run it only (`chronicle stacks` goes without).
        process.exitCode = await (await import('./editor.js')).runEditor(
          options.http as number,
          file,
          options,
        );
      },
    );

  program
    .command('stacks')
    .description('serve the compose stacks API (stacks, jobs with live output, recorded deploy runs)')
    .addOption(
      new Option('--port <port>', 'port to listen on (0 = any free port)')
        .argParser(tcpPort)
        .default(DEFAULT_STACKS_PORT),
    )
    .addOption(new Option('--host <host>', 'address to listen on').default(DEFAULT_STACKS_HOST))
    .addOption(dataOption())
    .option('--config <file>', 'stacks config file (JSON; without it one admin with a printed token)')
    .addOption(storeOption())
    .action(async (options: StacksCommandOptions) => {
      process.exitCode = await runStacks(options);
    });

  program
    .command('serve')
    .description('serve the editor REST API (headless) and the stacks service on one store')
    .addOption(dataOption())
    .addOption(
      new Option('--editor-port <port>', 'editor REST port on 127.0.0.1 (0 = any free port)')
        .argParser(tcpPort)
        .default(DEFAULT_EDITOR_PORT),
    )
    .addOption(
      new Option('--stacks-port <port>', 'stacks service port on 127.0.0.1 (0 = any free port)')
        .argParser(tcpPort)
        .default(DEFAULT_STACKS_PORT),
    )
    .addOption(
      new Option('--stacks-host <host>', 'stacks service address (the editor stays on 127.0.0.1)').default(
        DEFAULT_STACKS_HOST,
      ),
    )
    .option('--config <file>', 'stacks config file (JSON; default: one admin with a printed token)')
    .addOption(allowOriginOption())
    .addOption(storeOption())
    .action(
      async (
        options: StoreOptions & {
          editorPort: number;
          stacksPort: number;
          stacksHost: string;
          config?: string;
          allowOrigin: string[];
        },
      ) => {
        process.exitCode = await (await import('./serve.js')).runServe(options);
      },
    );

  return program;
}

/** Runs the command line; resolves with the exit status. */
export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and --version end with an exit code of 0; every other parse failure is a usage error.
      return error.exitCode === 0 ? 0 : 2;
    }
    const message = error instanceof StoreError || error instanceof Error ? error.message : String(error);
    process.stderr.write(`chronicle: ${message}\n`);
    return 1;
  }
}
