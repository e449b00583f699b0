/**
 * What the page shows of an environment's Docker engine: whether it answers and its version (the
 * environment switcher), and for an admin its info — version, containers, images, disk use (`GET
 * /version`, `/info`, `/system/df` of the Engine API). Each read is bounded by ENGINE_TIMEOUT_MS; an
 * engine that does not answer is unreachable, with the reason.
 */
import type { Engine } from './engines.js';

const ENGINE_TIMEOUT_MS = 2_000;

interface EngineReach {
  reachable: boolean;
  /** The engine's version (`20.10.24`); null when unreachable. */
  version: string | null;
  apiVersion: string | null;
  /** Why it is unreachable; null otherwise. */
  reason: string | null;
}

interface EngineDetails {
  where: string;
  version: string;
  apiVersion: string;
  os: string;
  kernel: string;
  architecture: string;
  cpus: number;
  memoryBytes: number;
  containers: { total: number; running: number; paused: number; stopped: number };
  images: number;
  /** Bytes on the engine's disk: images, containers' writable layers, volumes, build cache. */
  disk: { images: number; containers: number; volumes: number; buildCache: number };
}

class Timeout extends Error {}

/** `work`, or a rejection after `ms`. */
async function bounded<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Timeout()), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const reasonOf = (engine: Engine, error: unknown, ms: number) =>
  error instanceof Timeout
    ? `The Docker engine (${engine.where}) did not answer within ${ms / 1000} s`
    : `The Docker engine (${engine.where}) cannot be reached: ${(error as Error).message}`;

export async function engineReach(engine: Engine, ms = ENGINE_TIMEOUT_MS): Promise<EngineReach> {
  if (!engine.docker)
    return { reachable: false, version: null, apiVersion: null, reason: engine.error ?? null };
  try {
    const version = await bounded(engine.docker.version(), ms);
    return { reachable: true, version: version.Version, apiVersion: version.ApiVersion, reason: null };
  } catch (error) {
    return { reachable: false, version: null, apiVersion: null, reason: reasonOf(engine, error, ms) };
  }
}

const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
const sum = (items: unknown, key: string) =>
  Array.isArray(items)
    ? items.reduce((total: number, item) => total + num((item as Record<string, unknown>)?.[key]), 0)
    : 0;

/** The engine's details; rejects with the reason when it does not answer. */
export async function engineDetails(engine: Engine, ms = ENGINE_TIMEOUT_MS): Promise<EngineDetails> {
  const docker = engine.docker;
  if (!docker) throw new Error(engine.error ?? 'No Docker engine');
  try {
    const [version, info, df] = await bounded(
      Promise.all([docker.version(), docker.info(), docker.df()]),
      ms * 2,
    );
    const volumes = Array.isArray(df.Volumes) ? df.Volumes : [];
    return {
      where: engine.where,
      version: version.Version,
      apiVersion: version.ApiVersion,
      os: String(info.OperatingSystem ?? version.Os ?? ''),
      kernel: String(info.KernelVersion ?? version.KernelVersion ?? ''),
      architecture: String(info.Architecture ?? version.Arch ?? ''),
      cpus: num(info.NCPU),
      memoryBytes: num(info.MemTotal),
      containers: {
        total: num(info.Containers),
        running: num(info.ContainersRunning),
        paused: num(info.ContainersPaused),
        stopped: num(info.ContainersStopped),
      },
      images: num(info.Images),
      disk: {
        images: num(df.LayersSize),
        containers: sum(df.Containers, 'SizeRw'),
        volumes: volumes.reduce(
          (total: number, v: { UsageData?: { Size?: number } }) =>
            total + Math.max(0, num(v.UsageData?.Size)),
          0,
        ),
        buildCache: sum(df.BuildCache, 'Size'),
      },
    };
  } catch (error) {
    throw new Error(reasonOf(engine, error, ms));
  }
}
