/**
 * The typed pieces a client of the stacks API needs, taken from the same schemas the server validates
 * with: what each route takes (params, query, body) and what it answers, by status. The web page calls
 * the API through these types (src/http/stacks-ui/api.ts, type-checked by `npm run lint`), so a renamed
 * field breaks its build, not its page. Nothing here imports a Node module.
 *
 * ```ts
 * const path = routePath('getRun', { name: 'web', runId: '1' });         // '/api/stacks/web/deploys/1'
 * const run: StacksAnswer<'getRun', 200> = await (await fetch(path, { headers })).json();
 * ```
 */
import type { z } from 'zod';
import { type StacksRouteName, type StacksRoutes, stacksRoutes } from './routes.js';

type SchemaOf<N extends StacksRouteName> = StacksRoutes[N]['schema'];

/** A request part's type as the client sends it (the schema's input), or never when the route has none. */
type InputOf<N extends StacksRouteName, Part extends string> =
  SchemaOf<N> extends { readonly [P in Part]: infer S extends z.core.$ZodType } ? z.input<S> : never;

export type StacksParams<N extends StacksRouteName> = InputOf<N, 'params'>;
export type StacksQuery<N extends StacksRouteName> = InputOf<N, 'querystring'>;
export type StacksBody<N extends StacksRouteName> = InputOf<N, 'body'>;

/** The statuses a route answers. */
export type StacksStatus<N extends StacksRouteName> = keyof SchemaOf<N>['response'];

/** A route's JSON answer for a status (the text of a `text/plain` or `text/event-stream` answer: string). */
export type StacksAnswer<
  N extends StacksRouteName,
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
  const values = (params ?? {}) as Record<string, string>;
  const path = stacksRoutes[name].url.replace(/:([A-Za-z]+)/g, (_, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`${name}: the path parameter ${key} is missing`);
    return encodeURIComponent(value);
  });
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) search.set(key, value);
  const text = search.toString();
  return text === '' ? path : `${path}?${text}`;
}

export const routeMethod = <N extends StacksRouteName>(name: N): StacksRoutes[N]['method'] =>
  stacksRoutes[name].method;
