/**
 * The typed pieces a client of the stacks API needs, taken from the same schemas the server validates
 * with: what each route takes (params, query, body) and what it answers, by status. The web page calls
 * the API through these types (src/http/stacks/ui/api.ts, type-checked by `npm run lint`), so a renamed
 * field breaks its build, not its page. Nothing here imports a Node module.
 *
 * ```ts
 * const path = routePath('getRun', { name: 'web', runId: '1' });         // '/api/stacks/web/deploys/1'
 * const run: StacksAnswer<'getRun', 200> = await (await fetch(path, { headers })).json();
 * ```
 */
import type { z } from 'zod';
import type { ActivityRoutes } from './activity-routes.js';
import type { AdoptionRoutes } from './adoption-routes.js';
import type { EngineRoutes } from './engine-routes.js';
import type { historySchemas } from './history-routes.js';
import { fillPath } from './route-path.js';
import { type StacksRouteName, type StacksRoutes, stacksRoutes } from './routes.js';
import type { UpdateRoutes } from './update-routes.js';

type HistoryRoutes = typeof historySchemas;
/**
 * Every route of the API: the route table's, the deploy history's (history-routes.ts) and the containers'
 * (engine-routes.ts), the adoption's (adoption-routes.ts), the image updates' (update-routes.ts) and a
 * stack's Activity (activity-routes.ts), by operation id.
 */
export type ApiRoutes = StacksRoutes &
  HistoryRoutes &
  EngineRoutes &
  AdoptionRoutes &
  UpdateRoutes &
  ActivityRoutes;
export type ApiRouteName = keyof ApiRoutes;

type SchemaOf<N extends ApiRouteName> = ApiRoutes[N]['schema'];

/** A request part's type as the client sends it (the schema's input), or never when the route has none. */
type InputOf<N extends ApiRouteName, Part extends string> =
  SchemaOf<N> extends { readonly [P in Part]: infer S extends z.core.$ZodType } ? z.input<S> : never;

export type StacksParams<N extends ApiRouteName> = InputOf<N, 'params'>;
export type StacksQuery<N extends ApiRouteName> = InputOf<N, 'querystring'>;
export type StacksBody<N extends ApiRouteName> = InputOf<N, 'body'>;

/** The statuses a route answers. */
export type StacksStatus<N extends ApiRouteName> = keyof SchemaOf<N>['response'];

/** A route's JSON answer for a status (the text of a `text/plain` or `text/event-stream` answer: string). */
export type StacksAnswer<
  N extends ApiRouteName,
  S extends StacksStatus<N>,
> = SchemaOf<N>['response'][S] extends { content: infer C }
  ? {
      [M in keyof C]: C[M] extends { schema: infer T extends z.core.$ZodType } ? z.output<T> : never;
    }[keyof C]
  : never;

/** The route's method and its path with the parameters filled in (each one URL-encoded). */
export function routePath<N extends StacksRouteName>(
  name: N,
  params: StacksParams<N> extends never ? undefined : StacksParams<N>,
  query?: Record<string, string | undefined>,
): string {
  return fillPath(name, stacksRoutes[name].url, params ?? {}, query);
}

export const routeMethod = <N extends StacksRouteName>(name: N): StacksRoutes[N]['method'] =>
  stacksRoutes[name].method;
