/**
 * A route's path with its `:parameters` filled in (each one URL-encoded) and its query: shared by the
 * typed client (client.ts) and the web page's calls (stacks-ui/api.ts). No import: the page bundles it.
 */
export function fillPath(
  name: string,
  url: string,
  params: object,
  query?: Record<string, string | undefined>,
): string {
  const values = new Map(Object.entries(params as Record<string, string>));
  const path = url.replace(/:([A-Za-z]+)/g, (_, key: string) => {
    const value = values.get(key);
    if (value === undefined) throw new Error(`${name}: the path parameter ${key} is missing`);
    return encodeURIComponent(value);
  });
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) search.set(key, value);
  const text = search.toString();
  return text === '' ? path : `${path}?${text}`;
}
