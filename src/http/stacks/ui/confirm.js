/**
 * An inline confirmation (roll back, delete a stack, redeploy or delete a run): it takes the place of the
 * button that asked for it, so the keyboard must follow. Focus moves into it (to its Cancel, the choice
 * that changes nothing), Escape cancels it, and when it closes without its action having removed the
 * opener, focus goes back to that button (`opener`, its id).
 */
import { useEffect, useRef } from 'preact/hooks';
import { html } from './util.js';

/**
 * `children` are its question and its buttons; the one that cancels carries `data-cancel`.
 * @param {{ label: string, opener: string, onCancel: () => void, children?: unknown }} props
 */
export function Confirm({ label, opener, onCancel, children }) {
  const box = useRef(/** @type {HTMLSpanElement | null} */ (null));
  useEffect(() => {
    const el = box.current;
    /** @type {HTMLElement | null | undefined} */ (
      el?.querySelector('[data-cancel]') ?? el?.querySelector('button')
    )?.focus();
    return () => {
      // Back to the opener once it is drawn again, unless the person moved focus elsewhere meanwhile.
      const inside =
        el === null ||
        document.activeElement === null ||
        document.activeElement === document.body ||
        el.contains(document.activeElement);
      if (inside) requestAnimationFrame(() => document.getElementById(opener)?.focus());
    };
  }, []);
  return html`<span role="group" aria-label=${label} ref=${box} class="confirm"
    onKeyDown=${(/** @type {KeyboardEvent} */ e) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      e.stopPropagation();
      onCancel();
    }}>${children}</span>`;
}
