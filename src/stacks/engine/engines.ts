/**
 * The Docker engines of the configured environments, for what streams from them (events, logs, exec,
 * stats): one dockerode client per engine, without the time-out the status reads use (a followed log
 * or a console stays open for hours). An engine is the environment's `dockerHost`; the local
 * environment, and every environment without one, share the process's own (`DOCKER_HOST`, else the
 * default socket), as compose does.
 */
import Docker from 'dockerode';
import type { EnvironmentId } from '../../../streams/stacks.js';
import type { Environment, StacksConfig } from '../contracts.js';
import { engineOptions } from '../stack/status.js';

/** The key of the process's own engine (an environment without `dockerHost`). */
const OWN_ENGINE = '';

export interface Engine {
  /** `dockerHost`, or OWN_ENGINE. */
  key: string;
  /** Where it is, for messages (`unix:///var/run/docker.sock`, `tcp://10.0.0.5:2375`). */
  where: string;
  /** The client; undefined when `dockerHost` cannot be reached by dockerode (`error` says why). */
  docker?: Docker;
  error?: string;
}

export const engineKeyOf = (environment: Environment | null): string => environment?.dockerHost ?? OWN_ENGINE;

export class Engines {
  private readonly engines = new Map<string, Engine>();

  constructor(private readonly config: Pick<StacksConfig, 'environments'>) {}

  /** The environment of an id (null: local); undefined for an id not configured. */
  environment(id: EnvironmentId): Environment | null | undefined {
    if (id === null) return null;
    return this.config.environments.find((e) => e.id === id);
  }

  /** The engine of an environment (made once, then shared). */
  of(environment: Environment | null): Engine {
    const key = engineKeyOf(environment);
    let engine = this.engines.get(key);
    if (!engine) {
      const where = key === OWN_ENGINE ? (process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock') : key;
      const options = key === OWN_ENGINE ? {} : engineOptions(key);
      engine =
        'error' in options
          ? { key, where, error: options.error }
          : { key, where, docker: new Docker(options) };
      this.engines.set(key, engine);
    }
    return engine;
  }

  /** Every engine of the configuration, with the environments (ids, null = local) on it. */
  all(): Array<{ engine: Engine; environments: EnvironmentId[] }> {
    const byKey = new Map<string, EnvironmentId[]>([[OWN_ENGINE, [null]]]);
    for (const e of this.config.environments) {
      const key = engineKeyOf(e);
      byKey.set(key, [...(byKey.get(key) ?? []), e.id]);
    }
    return [...byKey].map(([key, environments]) => ({
      engine: this.of(
        key === OWN_ENGINE ? null : (this.config.environments.find((e) => engineKeyOf(e) === key) ?? null),
      ),
      environments,
    }));
  }
}
