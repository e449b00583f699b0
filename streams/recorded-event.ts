/**
 * An event as the log gives it back: what every catalog's event types are built on. The store's
 * adapters fill it (src/store/types.ts passes these types on); the catalog only describes it.
 */

/** JSON value as stored in event data and metadata. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface EventMetadata {
  correlationId?: string;
  causationId?: string;
  requestId?: string;
  userId?: string | number | null;
  /** ISO timestamp; the store fills it in at append time when absent. */
  at?: string;
  [key: string]: Json | undefined;
}

/** The event with its place in the stream and in the global log. */
export interface RecordedEvent<Type extends string = string, Data = unknown> {
  stream: string;
  /** Position within the stream, from 0. */
  revision: number;
  /** Position in the global log, from 1, dense and strictly increasing in append order. */
  position: number;
  type: Type;
  data: Data;
  metadata: EventMetadata & { at: string };
}
