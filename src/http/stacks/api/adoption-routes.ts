/**
 * Schemas of the routes that list the compose projects an engine runs without chronicle and adopt one
 * as a stack (src/http/stacks/routes/adoption.ts, src/stacks/stack/adoption.ts). Registered, documented and
 * typed for the page like the route table's (client.ts). This module imports no Node module.
 */
import { z } from 'zod';
import { EnvironmentId } from './answers.js';
import { EnvQuery } from './requests.js';
import { fail, json, UNAUTHORIZED } from './route-answers.js';

const ADOPTION = ['adoption'];

const EngineProject = z
  .object({
    name: z.string().meta({ description: 'The project (`com.docker.compose.project` label).' }),
    workingDir: z
      .string()
      .nullable()
      .meta({ description: 'The folder compose ran in (`…project.working_dir`); null when unlabelled.' }),
    configFiles: z
      .array(z.string())
      .meta({ description: 'The compose files it was started from (`…project.config_files`), in order.' }),
    environmentFiles: z.array(z.string()).meta({
      description: 'The env files Compose v2 labels (`…project.environment_file`); v1 labels none.',
    }),
    services: z.array(z.string()),
    containers: z.array(z.object({ name: z.string(), service: z.string().nullable(), state: z.string() })),
    running: z.number().int().meta({ description: 'How many of its containers run.' }),
  })
  .meta({ id: 'EngineProject' });

const ProjectParams = z.object({
  project: z
    .string()
    .regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,254}$/, {
      error: (issue) => `Invalid project name ${JSON.stringify(issue.input)}`,
    })
    .meta({ description: 'The compose project, as the engine labels it.', examples: ['shop'] }),
});

const ADMIN_ONLY = fail('Only an admin may: the files are read from the server’s host.');

export const adoptionSchemas = {
  listEngineProjects: {
    method: 'GET',
    url: '/api/engines/projects',
    schema: {
      operationId: 'listEngineProjects',
      summary: 'The compose projects an engine runs that chronicle does not manage (admins)',
      description:
        "Every compose project the environment's engine holds a container of (running or not), but those of a stack of an environment on that engine, by name.",
      tags: ADOPTION,
      querystring: EnvQuery,
      response: {
        200: json('The projects, by name.', z.array(EngineProject)),
        400: fail('Bad `env`.'),
        401: UNAUTHORIZED,
        403: ADMIN_ONLY,
        404: fail('No such environment.'),
        502: fail('The engine cannot be reached.'),
      },
    },
  },
  adoptEngineProject: {
    method: 'POST',
    url: '/api/engines/projects/:project/adopt',
    schema: {
      operationId: 'adoptEngineProject',
      summary: 'Adopt a compose project as a stack of the same name (admins)',
      description:
        "Copies the project's compose file (merged by compose when there are several, or when it names relative host paths) and its `.env` (as secret variables) into a new stack named after the project, and records its first run `adopted`: compose does not run, the containers stay as they run, and every operation of the stack then acts on them.",
      tags: ADOPTION,
      params: ProjectParams,
      querystring: EnvQuery,
      response: {
        201: json(
          'The stack made, its run, and what was left out.',
          z.object({
            stack: z.string(),
            environmentId: EnvironmentId,
            runId: z.number().int().positive(),
            merged: z.boolean().meta({ description: 'Compose merged the files (comments not kept).' }),
            warnings: z.array(z.string()),
          }),
        ),
        400: fail('Bad `env` or project name.'),
        401: UNAUTHORIZED,
        403: ADMIN_ONLY,
        404: fail('No such environment, or the engine holds no container of that project.'),
        409: fail('A stack of that name exists (`Stack already exists`), or has a job running.'),
        422: fail(
          'The project cannot be adopted: its name is no stack name, compose did not label its files, a file cannot be read, is not a regular file, is in chronicle’s data folder, or compose refuses it.',
        ),
        502: fail('The engine cannot be reached.'),
      },
    },
  },
} as const;

export type AdoptionRoutes = typeof adoptionSchemas;
