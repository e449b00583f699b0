/**
 * Defaults the command line shows before a command runs, kept apart from the commands themselves: the
 * program loads a command's code (the editor's, say) only when that command runs.
 */
/**
 * The editor's default port under `chronicle serve` (no rule pins one): the one the docs' examples
 * (docs/editor.md) and the Dockerfile's EXPOSE use. The stacks surface keeps its 127.0.0.1:5080, as
 * `chronicle stacks` without `--host`.
 */
export const DEFAULT_EDITOR_PORT = 8765;
