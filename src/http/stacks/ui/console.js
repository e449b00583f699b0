/**
 * A console in a running container: xterm.js in the page, a WebSocket to the stack's container
 * (GET /api/stacks/{name}/containers/{container}/console, an exec with a TTY). The terminal's size
 * follows its box (xterm's fit add-on) and is sent on every change; the command field says what runs
 * (`sh` by default). Opening and closing are audited by the server; what is typed is not.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api.js';
import { html } from './util.js';

/**
 * @param {{ name: string, env: import('./api.js').Env, container: string, onClose: () => void }} props
 */
export function ConsolePanel({ name, env, container, onClose }) {
  const [command, setCommand] = useState('sh');
  const [running, setRunning] = useState(/** @type {string | null} */ (null));
  const [state, setState] = useState('not connected');
  const [session, setSession] = useState(0);
  const box = useRef(/** @type {HTMLDivElement | null} */ (null));

  useEffect(() => {
    const el = box.current;
    if (running === null || !el) return;
    let cancelled = false;
    let stop = () => {};
    setState('connecting…');
    // xterm.js is a third of the page's script: it is loaded when a console opens, not with every page.
    Promise.all([import('@xterm/xterm'), import('@xterm/addon-fit')]).then(
      ([{ Terminal }, { FitAddon }]) => {
        if (!cancelled) stop = connectTerminal(el, Terminal, FitAddon, running);
      },
      (e) => !cancelled && setState(`The terminal could not be loaded: ${e.message}`),
    );
    return () => {
      cancelled = true;
      stop();
    };
  }, [name, env, container, running, session]);

  /**
   * The terminal in `el` and its socket to the container; answers what closes both.
   * @param {HTMLDivElement} el
   * @param {typeof import('@xterm/xterm').Terminal} Terminal
   * @param {typeof import('@xterm/addon-fit').FitAddon} FitAddon
   * @param {string} run the command that runs in it
   */
  const connectTerminal = (el, Terminal, FitAddon, run) => {
    const term = new Terminal({ convertEol: false, cursorBlink: true, fontSize: 13, scrollback: 5_000 });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(el);
    fit.fit();
    const url = new URL(api.consoleUrl(name, env, container, run), location.href);
    url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const socket = new WebSocket(url);
    socket.binaryType = 'arraybuffer';
    const encoder = new TextEncoder();
    const resize = () => {
      fit.fit();
      if (socket.readyState === WebSocket.OPEN)
        socket.send(JSON.stringify({ type: 'resize', cols: term.cols, rows: term.rows }));
    };
    socket.onopen = () => {
      setState('connected');
      resize();
      term.focus();
    };
    socket.onmessage = (event) => {
      if (typeof event.data !== 'string') {
        term.write(new Uint8Array(event.data));
        return;
      }
      const control = JSON.parse(event.data);
      if (control.type === 'exit') setState(`exited (${control.exitCode ?? 'unknown'})`);
      if (control.type === 'error') setState(control.error);
    };
    socket.onclose = (event) =>
      setState((was) =>
        was === 'connected' || was === 'connecting…'
          ? `closed${event.reason ? ` (${event.reason})` : ''}`
          : was,
      );
    const typed = term.onData((data) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(encoder.encode(data));
    });
    const observer = new ResizeObserver(resize);
    observer.observe(el);
    return () => {
      observer.disconnect();
      typed.dispose();
      socket.close();
      term.dispose();
    };
  };

  const connect = (/** @type {Event} */ e) => {
    e.preventDefault();
    setRunning(command);
    setSession((n) => n + 1);
  };
  return html`<section class="console card" aria-label=${`Console in ${container}`} data-testid="console">
    <div class="section-head">
      <h2>Console in ${container}</h2>
      <span class="muted" role="status" data-testid="console-state">${state}</span>
      <button type="button" onClick=${onClose} aria-label="Close the console">✕</button>
    </div>
    <form class="console-command" onSubmit=${connect}>
      <label>Command <input name="command" value=${command}
        onInput=${(/** @type {InputEvent} */ e) => setCommand(/** @type {HTMLInputElement} */ (e.target).value)} /></label>
      <button type="submit" class="primary">${running === null ? 'Connect' : 'Reconnect'}</button>
    </form>
    <div class="terminal-box" ref=${box} data-testid="terminal"></div>
  </section>`;
}
