/**
 * Every call the page makes to the stacks API, in one module: when the typed client generated from the
 * route schemas (issue 23) lands, this file is the one to switch. The page authenticates with its session
 * cookie (same origin, sent by the browser); a 401 anywhere means the session ended, and the app returns
 * to the sign-in page with the address kept.
 *
 * @typedef {number | null} Env
 * @typedef {{ id: Env, name: string, view: boolean, edit: boolean }} SessionEnv
 * @typedef {{ name: string, admin: boolean, mayRunSchedules: boolean, environments: SessionEnv[] }} SessionUser
 * @typedef {{ name: string, secret: boolean, value: string | null }} Variable
 * @typedef {{ name: string, environmentId: Env, secretProvider: string | null, variables: Variable[] }} StackItem
 * @typedef {StackItem & { compose: string }} Stack
 * @typedef {{ pull: boolean, build: boolean, forceRecreate: boolean }} DeployOptions
 * @typedef {{ containersCreated: number, containersStarted: number, containersRecreated: number,
 *   containersRemoved: number, imagesPulled: number, imagesBuilt: number }} Summary
 * @typedef {{ id: number, entityName: string, environmentId: Env, status: string, trigger: string,
 *   errorMessage: string | null, startedAt: string, finishedAt: string | null, jobId: string,
 *   details: { options: DeployOptions, summary?: Summary, exitCode?: number, truncated?: boolean,
 *   logMissing?: boolean, commit?: string, source?: string, userId?: string | null } }} Run
 * @typedef {{ jobId: string, runId: number | null }} JobAck
 */

export class ApiError extends Error {
  /** @param {number} status @param {string} message */
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** Called on a 401 of any call but the sign-in itself (set by the app). */
let onUnauthorized = () => {};
/** @param {() => void} handler */
export function setUnauthorizedHandler(handler) {
  onUnauthorized = handler;
}

/** @param {Env} env */
export const envQuery = (env) => `env=${env === null ? 'null' : env}`;
const seg = encodeURIComponent;

/**
 * One request; JSON in and out. Errors become ApiError with the server's `{error}` message.
 * @param {string} method @param {string} path @param {unknown} [body]
 * @returns {Promise<any>}
 */
async function call(method, path, body) {
  /** @type {RequestInit} */
  const init = { method, credentials: 'same-origin', headers: {} };
  if (body !== undefined) {
    init.headers = { 'content-type': 'application/json' };
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new ApiError(0, `The server cannot be reached (${error instanceof Error ? error.message : error})`);
  }
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const value = type.includes('json') && text !== '' ? JSON.parse(text) : text;
  if (!response.ok) {
    if (response.status === 401 && path !== '/api/session') onUnauthorized();
    const message =
      value && typeof value === 'object' && typeof value.error === 'string'
        ? value.error
        : `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, message);
  }
  return value;
}

export const api = {
  /** @returns {Promise<SessionUser>} */
  session: () => call('GET', '/api/session'),
  /** @param {string} token @returns {Promise<SessionUser>} */
  signIn: (token) => call('POST', '/api/session', { token }),
  signOut: () => call('DELETE', '/api/session'),

  /** @param {Env} env @returns {Promise<StackItem[]>} */
  stacks: (env) => call('GET', `/api/stacks?${envQuery(env)}`),
  /** @param {string} name @param {Env} env @returns {Promise<Stack>} */
  stack: (name, env) => call('GET', `/api/stacks/${seg(name)}?${envQuery(env)}`),
  /**
   * @param {Env} env
   * @param {{ name: string, compose: string, variables: Variable[] } & DeployOptions} body
   * @returns {Promise<JobAck>}
   */
  createStack: (env, body) => call('POST', `/api/stacks?${envQuery(env)}`, body),
  /** @param {string} name @param {Env} env */
  deleteStack: (name, env) => call('DELETE', `/api/stacks/${seg(name)}?${envQuery(env)}`),
  /** @param {string} name @param {Env} env @param {Variable[]} variables @returns {Promise<Stack>} */
  setVariables: (name, env, variables) =>
    call('PUT', `/api/stacks/${seg(name)}/variables?${envQuery(env)}`, { variables }),
  /**
   * Saves the compose file; with `restart` it redeploys as a job (a JobAck), else `{saved: true}`.
   * @param {string} name @param {Env} env @param {{ content: string, restart: boolean } & Partial<DeployOptions>} body
   */
  saveCompose: (name, env, body) => call('PUT', `/api/stacks/${seg(name)}/compose?${envQuery(env)}`, body),
  /** @param {string} name @param {Env} env @param {DeployOptions} options @returns {Promise<JobAck>} */
  deploy: (name, env, options) => call('POST', `/api/stacks/${seg(name)}/deploy?${envQuery(env)}`, options),
  /**
   * @param {string} name @param {Env} env @param {'start' | 'stop' | 'restart' | 'down'} operation
   * @returns {Promise<JobAck>}
   */
  operate: (name, env, operation) =>
    call('POST', `/api/stacks/${seg(name)}/${operation}?${envQuery(env)}`, {}),

  /** @param {string} name @param {Env} env @returns {Promise<Run[]>} */
  runs: (name, env) => call('GET', `/api/stacks/${seg(name)}/deploys?${envQuery(env)}`),
  /** @param {string} name @param {number} id @returns {Promise<Run>} */
  run: (name, id) => call('GET', `/api/stacks/${seg(name)}/deploys/${id}`),
  /** @param {string} name @param {number} id */
  deleteRun: (name, id) => call('DELETE', `/api/stacks/${seg(name)}/deploys/${id}`),
  /** @param {string} name @param {number} id @returns {Promise<string>} */
  runLog: (name, id) => call('GET', `/api/stacks/${seg(name)}/deploys/${id}/log`),
  /**
   * The log text as it arrives, chunk by chunk (a long log shows its first lines at once).
   * @param {string} name @param {number} id @param {(chunk: string) => void} onChunk
   */
  streamRunLog: async (name, id, onChunk) => {
    const response = await fetch(`/api/stacks/${seg(name)}/deploys/${id}/log`, {
      credentials: 'same-origin',
    });
    if (!response.ok || !response.body) {
      let message = `${response.status} ${response.statusText}`;
      try {
        message = (await response.json()).error ?? message;
      } catch {}
      if (response.status === 401) onUnauthorized();
      throw new ApiError(response.status, message);
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      onChunk(value);
    }
  },
  /** @param {string} name @param {number} id */
  runLogFollowUrl: (name, id) => `/api/stacks/${seg(name)}/deploys/${id}/log?follow=true`,

  /** @param {string} id */
  job: (id) => call('GET', `/api/jobs/${seg(id)}`),
  /** @param {string} id */
  jobEventsUrl: (id) => `/api/jobs/${seg(id)}/events`,

  /** @returns {Promise<{ deployLogReconcileCron: string, deployLogReconcileEnabled: boolean }>} */
  settings: () => call('GET', '/api/settings/general'),
  /** @param {{ deployLogReconcileCron?: string, deployLogReconcileEnabled?: boolean }} body */
  saveSettings: (body) => call('POST', '/api/settings/general', body),
  runReconcile: () => call('POST', '/api/schedules/deploy_log_reconcile/run', {}),
  /** @param {number} limit @param {number} offset */
  executions: (limit, offset) => call('GET', `/api/schedules/executions?limit=${limit}&offset=${offset}`),

  /** @param {Env} env */
  gitStacks: (env) => call('GET', `/api/git-stacks?${envQuery(env)}`),
  /** @param {string} name @param {Env} env */
  gitStack: (name, env) => call('GET', `/api/git-stacks/${seg(name)}?${envQuery(env)}`),
  /** @param {Env} env @param {Record<string, unknown>} body */
  createGitStack: (env, body) => call('POST', `/api/git-stacks?${envQuery(env)}`, body),
  /** @param {string} name @param {Env} env @param {Record<string, unknown>} body */
  updateGitStack: (name, env, body) => call('PUT', `/api/git-stacks/${seg(name)}?${envQuery(env)}`, body),
  /** @param {string} name @param {Env} env @returns {Promise<JobAck>} */
  deployGitStack: (name, env) => call('POST', `/api/git-stacks/${seg(name)}/deploy?${envQuery(env)}`, {}),
};

/**
 * A server-sent event stream read with fetch (EventSource cannot send `Last-Event-ID` on a fresh page,
 * which a reload needs to resume). Reconnects after a drop from the last id seen; `onEnd` when the server
 * ends the stream for good (a finished job) or it is closed.
 *
 * @param {string} url
 * @param {{ lastEventId?: string, onMessage: (data: string, id: string | undefined) => void,
 *   onEnd?: () => void, onError?: (error: ApiError) => void, reconnect?: () => boolean }} handlers
 * @returns {() => void} closes the stream
 */
export function openEventStream(url, handlers) {
  const controller = new AbortController();
  let lastId = handlers.lastEventId;
  let closed = false;
  const run = async () => {
    for (let attempt = 0; !closed; attempt++) {
      try {
        /** @type {Record<string, string>} */
        const headers = { accept: 'text/event-stream' };
        if (lastId !== undefined) headers['last-event-id'] = lastId;
        const response = await fetch(url, { headers, signal: controller.signal, credentials: 'same-origin' });
        if (!response.ok || !response.body) {
          const text = await response.text();
          let message = `${response.status} ${response.statusText}`;
          try {
            message = JSON.parse(text).error ?? message;
          } catch {}
          if (response.status === 401) onUnauthorized();
          handlers.onError?.(new ApiError(response.status, message));
          return;
        }
        attempt = 0;
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let cut = buffer.indexOf('\n\n');
          while (cut >= 0) {
            const frame = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            /** @type {string | undefined} */
            let id;
            const data = [];
            for (const line of frame.split('\n')) {
              if (line.startsWith('id:')) id = line.slice(3).trim();
              else if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
            }
            if (id !== undefined) lastId = id;
            if (data.length > 0) handlers.onMessage(data.join('\n'), id);
            cut = buffer.indexOf('\n\n');
          }
        }
        // The server ended the stream: done unless the caller wants it again (a job still running).
        if (!handlers.reconnect?.()) break;
      } catch (error) {
        if (closed) return;
        if (!handlers.reconnect?.() && attempt > 5) {
          handlers.onError?.(new ApiError(0, error instanceof Error ? error.message : String(error)));
          return;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 250 * 2 ** attempt)));
    }
    if (!closed) handlers.onEnd?.();
  };
  void run();
  return () => {
    closed = true;
    controller.abort();
  };
}
