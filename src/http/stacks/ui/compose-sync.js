/**
 * The compose editor against the server's file. The page keeps the version the editor's text was
 * edited from (its text and hash); when the server's file changes (a redeploy, a roll back, an
 * automatic rollback, another tab's save), an editor with no unsaved change shows the new file, and one
 * with unsaved changes says the file changed on the server, shows the difference and lets the person
 * choose. A save names the version it edits (`If-Match`): the server refuses it when that moved on.
 */
import { diffLines } from 'diff';
import { html } from './util.js';

/** @typedef {{ text: string, hash: string | null }} Version */

/**
 * What to do with the server's file: `same` (only its hash may be news), `load` (the editor has no
 * unsaved change: show the server's text), `adopt` (the person typed the server's text), `conflict`.
 * @param {Version} base the version the editor's text was edited from
 * @param {string} mine the editor's text
 * @param {string} server the server's text
 * @returns {'same' | 'load' | 'adopt' | 'conflict'}
 */
export function syncDecision(base, mine, server) {
  if (server === base.text) return 'same';
  if (mine === base.text) return 'load';
  if (mine === server) return 'adopt';
  return 'conflict';
}

/**
 * The server's file beside the person's unsaved text: the lines only in theirs (-) and only on the
 * server (+), and the two ways on.
 * @param {{ mine: string, server: string, onLoad: () => void, onKeep: () => void }} props
 */
export function ServerChange({ mine, server, onLoad, onKeep }) {
  const parts = diffLines(mine, server);
  return html`<section class="server-change" role="region" aria-label="Changed on the server">
    <p><strong>The compose file changed on the server</strong> since you began editing; your text is not saved.
      Lines marked − are only in your text, lines marked + only on the server.</p>
    <pre class="diff-patch" data-testid="server-diff">${parts.map((part) =>
      part.value
        .replace(/\n$/, '')
        .split('\n')
        .map(
          (line) =>
            html`<div class=${part.added ? 'diff-add' : part.removed ? 'diff-del' : ''}>${
              part.added ? '+ ' : part.removed ? '− ' : '  '
            }${line}</div>`,
        ),
    )}</pre>
    <div class="buttons">
      <button type="button" onClick=${onLoad}>Load the server's version</button>
      <button type="button" onClick=${onKeep}>Keep my text (Save then replaces the server's)</button>
    </div>
  </section>`;
}
