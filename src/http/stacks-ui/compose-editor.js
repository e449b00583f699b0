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
export function positionOf(message) {
  const match = /at line (\d+), column (\d+)/.exec(message);
  return match ? { line: Number(match[1]), column: Number(match[2]) } : undefined;
}

/**
 * @param {{ value: string, onChange: (text: string) => void, error?: string | null, label: string,
 *   readOnly?: boolean }} props
 */
export function ComposeEditor({ value, onChange, error, label, readOnly = false }) {
  const host = useRef(/** @type {HTMLDivElement | null} */ (null));
  const view = useRef(/** @type {EditorView | null} */ (null));
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(() => {
    if (!host.current) return;
    const editor = new EditorView({
      doc: value,
      parent: host.current,
      extensions: [
        basicSetup,
        yaml(),
        lintGutter(),
        EditorView.lineWrapping,
        EditorView.editable.of(!readOnly),
        EditorView.contentAttributes.of({ 'aria-label': label, 'data-testid': 'compose-editor' }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) changed.current(update.state.doc.toString());
        }),
      ],
    });
    view.current = editor;
    return () => editor.destroy();
  }, []);

  // A new text from outside (a reload of the stack) replaces the document.
  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== value)
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
  }, [value]);

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
