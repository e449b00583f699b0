/**
 * Whether a newer image is in the registry for what a stack's services run: the digest the registry
 * serves for the tag a service names, asked through the stack's engine (the Engine API's
 * `GET /distribution/{name}/json`, which reads the registry with the engine's own credentials and
 * settings: its mirrors, insecure registries, proxies), against the digest of the image the service's
 * container runs (its RepoDigests entry of that repository). Checked on demand and on a schedule; the
 * registry's answers are kept per engine and image reference, and each read compares them with what
 * runs now, so an update that was pulled shows at once without asking the registry again.
 */
import type Docker from 'dockerode';
import { digestFor, repositoryOf } from '../stack/status.js';
import { SERVICE_LABEL } from './container-events.js';
import type { Engine } from './engines.js';

/** How long the registry has to answer for one image. */
const REGISTRY_TIMEOUT_MS = 15_000;

export interface ServiceImage {
  service: string;
  container: string;
  /** The reference the service's container was created from (`reg:5000/team/app:1`). */
  image: string;
  /** `sha256:…` of the image it runs, in that repository; null for an image no registry gave. */
  runningDigest: string | null;
}

interface RegistryAnswer {
  /** `sha256:…` the registry serves for the reference now; null when it could not say. */
  digest: string | null;
  error: string | null;
  checkedAt: string;
}

interface ServiceUpdate extends ServiceImage {
  latestDigest: string | null;
  checkedAt: string | null;
  updateAvailable: boolean;
  /** Why it is not known (never checked, pinned, built here, the registry's error), else null. */
  reason: string | null;
}

const digestOf = (repoDigest: string | null) =>
  repoDigest === null ? null : (repoDigest.split('@')[1] ?? null);

/** Whether the reference is one a registry can be asked about: a tag, not a digest or an image id. */
export function checkable(image: ServiceImage): string | null {
  if (image.image.includes('@')) return 'The service names its image by digest: it does not change';
  if (repositoryOf(image.image) === undefined) return 'The service runs an image id';
  if (image.runningDigest === null) return 'The image was built or imported here: no registry gave it';
  return null;
}

/** What a service's row says, from its image and the registry's last answer for its reference. Pure. */
export function updateOf(image: ServiceImage, answer: RegistryAnswer | undefined): ServiceUpdate {
  const unknown = checkable(image);
  const latestDigest = answer?.digest ?? null;
  return {
    ...image,
    latestDigest,
    checkedAt: answer?.checkedAt ?? null,
    updateAvailable: unknown === null && latestDigest !== null && latestDigest !== image.runningDigest,
    reason: unknown ?? (answer === undefined ? 'Not checked yet' : answer.error),
  };
}

/** One image per service (its first container's, by name), from the engine. */
export async function serviceImages(docker: Docker, containers: readonly string[]): Promise<ServiceImage[]> {
  const byService = new Map<string, ServiceImage>();
  for (const name of [...containers].sort()) {
    const inspected = await docker.getContainer(name).inspect();
    const service = inspected.Config.Labels?.[SERVICE_LABEL];
    if (service === undefined || byService.has(service)) continue;
    const image = inspected.Config.Image;
    const repoDigests = await docker
      .getImage(inspected.Image)
      .inspect()
      .then((i) => i.RepoDigests)
      .catch(() => undefined);
    byService.set(service, {
      service,
      container: inspected.Name.replace(/^\//, ''),
      image,
      runningDigest: digestOf(digestFor(image, repoDigests)),
    });
  }
  return [...byService.values()].sort((a, b) => a.service.localeCompare(b.service));
}

/** The registry's answers per engine and reference; asks them. */
export class RegistryDigests {
  private readonly answers = new Map<string, RegistryAnswer>();

  answer(engine: Engine, reference: string): RegistryAnswer | undefined {
    return this.answers.get(`${engine.key}\n${reference}`);
  }

  /** Asks the registry (through the engine) for each reference, at most once per call; never rejects. */
  async check(engine: Engine, references: readonly string[]): Promise<void> {
    for (const reference of new Set(references)) {
      const answer = await this.ask(engine, reference);
      this.answers.set(`${engine.key}\n${reference}`, answer);
    }
  }

  private async ask(engine: Engine, reference: string): Promise<RegistryAnswer> {
    const checkedAt = new Date().toISOString();
    if (!engine.docker) return { digest: null, error: engine.error ?? 'No Docker engine', checkedAt };
    let timer: NodeJS.Timeout | undefined;
    try {
      const found = (await Promise.race([
        engine.docker.getImage(reference).distribution(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`the registry did not answer within ${REGISTRY_TIMEOUT_MS / 1000} s`)),
            REGISTRY_TIMEOUT_MS,
          );
        }),
      ])) as { Descriptor?: { digest?: string } };
      const digest = found.Descriptor?.digest ?? null;
      return { digest, error: digest === null ? 'The registry answered no digest' : null, checkedAt };
    } catch (error) {
      const said = (error as { json?: { message?: string } }).json?.message ?? (error as Error).message;
      return { digest: null, error: `The registry could not be asked: ${said}`, checkedAt };
    } finally {
      clearTimeout(timer);
    }
  }
}
