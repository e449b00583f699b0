/**
 * A stack's deploy options (pull, build, force recreate) as the person last set them on its page, kept
 * in the browser's localStorage per environment and stack: coming back to a stack that is always built
 * finds Build images still checked; another stack keeps its own.
 */
import { useState } from 'preact/hooks';

/** @typedef {import('./api.js').DeployOptions} DeployOptions */

const NONE = /** @type {DeployOptions} */ ({ pull: false, build: false, forceRecreate: false });

/** @param {string} name @param {import('./api.js').Env} env */
const keyOf = (name, env) => `chronicle-deploy-options:${env === null ? 'null' : env}:${name}`;

/** The stored options, each switch a boolean (anything else stored reads as off). */
function stored(/** @type {string} */ key) {
  try {
    const raw = JSON.parse(localStorage.getItem(key) ?? '{}');
    return {
      pull: raw?.pull === true,
      build: raw?.build === true,
      forceRecreate: raw?.forceRecreate === true,
    };
  } catch {
    return { ...NONE };
  }
}

/**
 * The stack's options and their setter, which also keeps them.
 * @param {string} name @param {import('./api.js').Env} env
 * @returns {[DeployOptions, (options: DeployOptions) => void]}
 */
export function useDeployOptions(name, env) {
  const key = keyOf(name, env);
  const [options, setOptions] = useState(() => stored(key));
  const set = (/** @type {DeployOptions} */ next) => {
    setOptions(next);
    try {
      localStorage.setItem(key, JSON.stringify(next));
    } catch {}
  };
  return [options, set];
}
