/**
 * Variables with a secret toggle. A secret's value is write-only: the server never sends it back
 * (GET answers `value: null`), so an existing secret shows an empty field; left empty, it is sent as
 * `value: null`, which keeps the value the server holds (PUT replaces the whole list otherwise).
 */
import { html } from './util.js';

/**
 * `storedName`: the name of a secret the server holds a value for (null for a new or non-secret row).
 * @typedef {{ name: string, value: string, secret: boolean, storedName: string | null }} VariableRow
 */

/** @param {import('./api.js').Stack['variables']} variables @returns {VariableRow[]} */
export const rowsOf = (variables) =>
  variables.map((v) => ({
    name: v.name,
    value: v.value ?? '',
    secret: v.secret,
    storedName: v.secret ? v.name : null,
  }));

/**
 * What to send, or the message saying why not.
 * @param {VariableRow[]} rows
 * @returns {{ ok: true, variables: Array<{ name: string, value: string | null, secret: boolean }> }
 *   | { ok: false, error: string }}
 */
export function variablesOf(rows) {
  const kept = rows.filter((r) => r.name.trim() !== '' || r.value !== '');
  const untouched = (/** @type {VariableRow} */ r) => r.secret && r.storedName !== null && r.value === '';
  // A renamed secret has no value under its new name: it must be typed.
  const renamed = kept.filter((r) => untouched(r) && r.name.trim() !== r.storedName).map((r) => r.name);
  if (renamed.length > 0)
    return {
      ok: false,
      error: `Type the value of ${renamed.join(', ')}: a renamed secret keeps no value (secret values are never sent back).`,
    };
  return {
    ok: true,
    variables: kept.map((r) => ({
      name: r.name.trim(),
      value: untouched(r) ? null : r.value,
      secret: r.secret,
    })),
  };
}

/** @param {{ rows: VariableRow[], setRows: (rows: VariableRow[]) => void, readOnly?: boolean }} props */
export function VariablesEditor({ rows, setRows, readOnly = false }) {
  const update = (/** @type {number} */ i, /** @type {Partial<VariableRow>} */ patch) =>
    setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return html`
    <table class="variables" data-testid="variables">
      <thead><tr><th scope="col">Name</th><th scope="col">Value</th><th scope="col">Secret</th><th scope="col"><span class="sr-only">Remove</span></th></tr></thead>
      <tbody>
        ${rows.map(
          (row, i) => html`<tr>
            <td><input aria-label=${`Variable ${i + 1} name`} value=${row.name} disabled=${readOnly}
              onInput=${(/** @type {InputEvent} */ e) => update(i, { name: /** @type {HTMLInputElement} */ (e.target).value })} /></td>
            <td><input aria-label=${`Variable ${i + 1} value`} type=${row.secret ? 'password' : 'text'} value=${row.value}
              autocomplete="off" disabled=${readOnly}
              placeholder=${row.secret && row.storedName !== null ? 'secret: kept (type to replace)' : ''}
              onInput=${(/** @type {InputEvent} */ e) => update(i, { value: /** @type {HTMLInputElement} */ (e.target).value })} /></td>
            <td><input type="checkbox" aria-label=${`Variable ${i + 1} secret`} checked=${row.secret} disabled=${readOnly}
              onChange=${() => update(i, { secret: !row.secret })} /></td>
            <td>${
              readOnly
                ? null
                : html`<button type="button" aria-label=${`Remove variable ${i + 1}`}
              onClick=${() => setRows(rows.filter((_, j) => j !== i))}>✕</button>`
            }</td>
          </tr>`,
        )}
      </tbody>
    </table>
    ${
      readOnly
        ? null
        : html`<button type="button" onClick=${() => setRows([...rows, { name: '', value: '', secret: false, storedName: null }])}>
          Add variable</button>`
    }
  `;
}
