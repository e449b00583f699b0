/**
 * A console in a running container: xterm.js in the page, a WebSocket to the stack's container
 * (GET /api/stacks/{name}/containers/{container}/console, an exec with a TTY). The terminal's size
 * follows its box (xterm's fit add-on) and is sent on every change; the command field says what runs
 * (`sh` by default). Opening and closing are audited by the server; what is typed is not.
 */
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
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
    if (running === null || !box.current) return;
    const term = new Terminal({ convertEol: false, cursorBlink: true, fontSize: 13, scrollback: 5_000 });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(box.current);
    fit.fit();
    setState('connecting…');
    const url = new URL(api.consoleUrl(name, env, container, running), location.href);
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
    observer.observe(box.current);
    return () => {
      observer.disconnect();
      typed.dispose();
      socket.close();
      term.dispose();
    };
  }, [name, env, container, running, session]);

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
