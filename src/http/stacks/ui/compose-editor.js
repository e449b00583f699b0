/**
 * The compose editor: CodeMirror 6 with YAML highlighting, and the server's validation error shown at
 * its line (the server's YAML message names `at line N, column M`).
 */
import { yaml } from '@codemirror/lang-yaml';
import { lintGutter, setDiagnostics } from '@codemirror/lint';
import { basicSetup, EditorView } from 'codemirror';
import { useEffect, useRef } from 'preact/hooks';
import { html } from './util.js';

/**
 * Where a server message puts its problem, or undefined.
 * @param {string} message @returns {{ line: number, column: number } | undefined}
 */
function positionOf(message) {
  const match = /at line (\d+), column (\d+)/.exec(message);
  return match ? { line: Number(match[1]), column: Number(match[2]) } : undefined;
}

/**
 * What the page may do with the editor's text: read it (at Save), or replace it when the person asked
 * for another text (the server's, after a change there). Nothing else writes into the editor.
 * @typedef {{ text: () => string, replace: (text: string) => void }} EditorHandle
 */

/**
 * CodeMirror owns the text: `initial` is read once, when the editor is made, and the page reads the
 * text through `handle` when it needs it. The page never writes the text back on each change: two
 * changes that arrive before the page re-renders made a text prop and the editor's document chase each
 * other (the older text written back, that change reported, the newer one written back...), which
 * froze the tab and lost what was typed. `onEdit` says the person changed the text (no text is passed:
 * a re-render per key is not needed).
 * @param {{ initial: string, handle?: { current: EditorHandle | null }, onEdit?: () => void,
 *   error?: string | null, label: string, readOnly?: boolean }} props
 */
export function ComposeEditor({ initial, handle, onEdit, error, label, readOnly = false }) {
  const host = useRef(/** @type {HTMLDivElement | null} */ (null));
  const view = useRef(/** @type {EditorView | null} */ (null));
  const edited = useRef(onEdit);
  edited.current = onEdit;

  useEffect(() => {
    if (!host.current) return;
    // Set while the page's replacement is dispatched (listeners run inside dispatch): not an edit.
    let replacing = false;
    const editor = new EditorView({
      doc: initial,
      parent: host.current,
      extensions: [
        basicSetup,
        yaml(),
        lintGutter(),
        EditorView.lineWrapping,
        EditorView.editable.of(!readOnly),
        EditorView.contentAttributes.of({ 'aria-label': label, 'data-testid': 'compose-editor' }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged && !replacing) edited.current?.();
        }),
      ],
    });
    view.current = editor;
    if (handle)
      handle.current = {
        text: () => editor.state.doc.toString(),
        replace: (text) => {
          if (editor.state.doc.toString() === text) return;
          replacing = true;
          try {
            editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } });
          } finally {
            replacing = false;
          }
        },
      };
    return () => {
      if (handle?.current) handle.current = null;
      editor.destroy();
    };
  }, []);

  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    const at = error ? positionOf(error) : undefined;
    if (!error || !at || at.line > editor.state.doc.lines) {
      editor.dispatch(setDiagnostics(editor.state, []));
      return;
    }
    const doc = editor.state.doc;
    let line = doc.line(at.line);
    let from = Math.min(line.from + Math.max(0, at.column - 1), line.to);
    // The parser often points past the text (an empty last line): mark the last line with text before it.
    if (from === line.to) {
      let n = at.line;
      while (n > 1 && doc.line(n).length === 0) n--;
      line = doc.line(n);
      from = line.from;
    }
    editor.dispatch(
      setDiagnostics(editor.state, [
        { from, to: Math.max(from, line.to), severity: 'error', message: error },
      ]),
    );
  }, [error]);

  return html`<div class="compose-editor" ref=${host}></div>`;
}
