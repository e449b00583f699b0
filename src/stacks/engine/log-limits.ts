/** What a container-log request may ask (container-logs.ts); no Node module, the route schemas use it. */

/** Most lines `tail` may ask of each container. */
export const MAX_TAIL = 100_000;
/** The lines of each container a request without `tail` gets. */
export const DEFAULT_TAIL = 1_000;
