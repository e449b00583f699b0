/**
 * Schemas of the routes that say whether a newer image is in the registry for a stack's services
 * (src/http/stacks/routes/updates.ts, src/stacks/engine/image-updates.ts). Registered, documented and
 * typed for the page like the route table's (client.ts). This module imports no Node module.
 */
import { z } from 'zod';
import { EnvQuery, StackName } from './requests.js';
import { fail, json, UNAUTHORIZED } from './route-answers.js';

const DIGEST = z.string().nullable();

const ServiceUpdate = z
  .object({
    service: z.string(),
    container: z
      .string()
      .meta({ description: 'The container whose image is compared (the first, by name).' }),
    image: z.string().meta({ description: 'The reference it was created from (`reg:5000/team/app:1`).' }),
    runningDigest: DIGEST.meta({
      description: '`sha256:…` of the image it runs, in that repository; null for one no registry gave.',
    }),
    latestDigest: DIGEST.meta({
      description: 'What the registry served for the reference at the last check.',
    }),
    checkedAt: z.string().nullable().meta({ description: 'When the registry was last asked (RFC 3339).' }),
    updateAvailable: z
      .boolean()
      .meta({ description: 'The registry serves another digest than the one running.' }),
    reason: z.string().nullable().meta({
      description:
        'Why it is not known: not checked yet, pinned by digest, built here, the registry’s error.',
    }),
  })
  .meta({ id: 'ServiceUpdate' });

const ImageUpdates = z.object({ services: z.array(ServiceUpdate) });

const FAILS = {
  400: fail('Bad `env` or stack name.'),
  401: UNAUTHORIZED,
  403: fail("The caller lacks `view` for the stack's environment."),
  404: fail('No such environment or stack.'),
  502: fail("The stack's Docker engine cannot be reached."),
} as const;

export const updateSchemas = {
  getImageUpdates: {
    method: 'GET',
    url: '/api/stacks/:name/updates',
    schema: {
      operationId: 'getImageUpdates',
      summary: "Whether the registry has newer images for the stack's services",
      description:
        'Per service with a container: the digest it runs against the one its registry served at the last check (on demand, below, or on the schedule `imageUpdates.checkEveryMinutes`). The registry is not asked here.',
      tags: ['containers'],
      params: z.object({ name: StackName }),
      querystring: EnvQuery,
      response: { 200: json('One entry per service.', ImageUpdates), ...FAILS },
    },
  },
  checkImageUpdates: {
    method: 'POST',
    url: '/api/stacks/:name/updates/check',
    schema: {
      operationId: 'checkImageUpdates',
      summary: "Ask the registries now whether the stack's images have newer digests",
      description:
        "Through the stack's engine (`GET /distribution/{name}/json`, with the engine's own registry settings and credentials), at most 15 s per image; answers as `GET …/updates`. To update: deploy with `pull: true` (a recorded run).",
      tags: ['containers'],
      params: z.object({ name: StackName }),
      querystring: EnvQuery,
      response: { 200: json('One entry per service, just checked.', ImageUpdates), ...FAILS },
    },
  },
} as const;

export type UpdateRoutes = typeof updateSchemas;
