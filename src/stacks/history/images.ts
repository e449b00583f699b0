import { isMap, parseDocument } from 'yaml';
import type { RunImage } from '../../../streams/stacks.js';
import type { ContainerStatus } from '../stack/status.js';

/**
 * The images a run deployed: what each service's container ran after `up`, and the compose
 * text a redeploy of the run gives compose, each service's `image:` pinned to what it ran. Pure.
 */

/** One image per service of the project's containers (a scaled service: its first container by name). */
export function runImagesOf(containers: readonly ContainerStatus[]): RunImage[] {
  const byService = new Map<string, RunImage>();
  for (const c of [...containers].sort((a, b) => a.name.localeCompare(b.name))) {
    if (c.service === null || byService.has(c.service)) continue;
    byService.set(c.service, {
      service: c.service,
      image: c.image,
      imageId: c.imageId,
      repoDigest: c.imageDigest,
    });
  }
  return [...byService.values()].sort((a, b) => a.service.localeCompare(b.service));
}

/**
 * What pins a service to its recorded image: the registry digest, which any engine can pull; else the
 * image id, which names the image on the engine that has it (compose takes `image: sha256:…`).
 */
const pinReference = (image: RunImage): string => image.repoDigest ?? image.imageId;

interface Pin {
  service: string;
  reference: string;
}

/**
 * `compose` with each recorded service's `image:` set to its pin. Services compose builds (`build:`) are
 * left as they are: compose would build them and tag the result with the pin. Services the text does
 * not have as a map are left too. The text is unchanged when nothing is pinned.
 */
export function pinImages(compose: string, images: readonly RunImage[]): { compose: string; pinned: Pin[] } {
  const unchanged = { compose, pinned: [] };
  if (images.length === 0) return unchanged;
  const doc = parseDocument(compose);
  if (doc.errors.length > 0) return unchanged;
  const services = doc.get('services', true);
  if (!isMap(services)) return unchanged;
  const pinned: Pin[] = [];
  for (const image of images) {
    const service = services.get(image.service, true);
    if (!isMap(service) || service.has('build')) continue;
    const reference = pinReference(image);
    service.set('image', reference);
    pinned.push({ service: image.service, reference });
  }
  return pinned.length === 0 ? unchanged : { compose: doc.toString(), pinned };
}

/**
 * The `image:` each service of a compose text names (services without one, or not a plain string, left
 * out). Pure.
 */
export function serviceImages(compose: string): Map<string, string> {
  const out = new Map<string, string>();
  const doc = parseDocument(compose);
  if (doc.errors.length > 0) return out;
  const services = doc.get('services', true);
  if (!isMap(services)) return out;
  for (const item of services.items) {
    const service = item.value;
    const name = String((item.key as { value?: unknown } | null)?.value ?? item.key);
    if (!isMap(service)) continue;
    const image = service.get('image');
    if (typeof image === 'string') out.set(name, image);
  }
  return out;
}

/** The pins as the run's details say them: `web=nginx@sha256:…, db=sha256:…`. */
export const describePins = (pinned: readonly Pin[]): string =>
  pinned.map((p) => `${p.service}=${p.reference}`).join(', ');

/** Whether a service's image differs between two runs: by what the engine ran, not by the name used. */
export const imageChanged = (from: RunImage | null, to: RunImage | null): boolean =>
  from?.imageId !== to?.imageId || from?.repoDigest !== to?.repoDigest;
