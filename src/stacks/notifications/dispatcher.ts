import { randomUUID } from 'node:crypto';
import type { Subscription } from 'rxjs';
import {
  type ChannelStart,
  type NotificationsState,
  notifications,
  type Occurrence,
} from '../../../projections/notifications.js';
import { ProjectionRunner } from '../../../projections/runtime.js';
import { NOTIFICATIONS_STREAM, stacksEvent } from '../../../streams/stacks.js';
import type { EventStore } from '../../store/types.js';
import type { NotificationChannel } from '../contracts.js';
import { StacksError } from '../errors.js';
import { channelRequest, wants } from './channels.js';
import { failureReason } from './failure.js';

/** How long one attempt may take before it counts as failed. */
const ATTEMPT_TIMEOUT_MS = 10_000;

/** A channel without what could be secret (see `list`). */
interface ChannelSummary {
  name: string;
  type: NotificationChannel['type'];
  host: string;
  events: string[];
  stacks: string[] | null;
  environments: Array<number | null> | null;
  maxAttempts: number;
  retryBaseMs: number;
  /** Where the channel started (it is given the events after `position`); null until it has. */
  started: ChannelStart | null;
}

/**
 * Delivers notifications (docs/stacks.md#notifications): a subscriber over the log (the `notifications` read model)
 * with its own checkpoint (NotificationsCheckpointed). Each occurrence past the checkpoint gets a
 * delivery per channel that wants it, key `<channel>:<position>:<event>`; a failed attempt is retried after
 * retryBaseMs, doubled each time, up to maxAttempts; every attempt is an event. At least once: a
 * restart resumes pending deliveries from the log (an attempt whose answer was not recorded is sent
 * again, with the same key). Deliveries run in the background: a channel that is down slows neither
 * deploys nor the start. A channel that first appears (NotificationChannelStarted) starts at the log's
 * head: the history before it is not replayed to it; a channel already known keeps the checkpoint.
 */
export class NotificationDispatcher {
  readonly model: ProjectionRunner<NotificationsState>;
  private subscription: Subscription | undefined;
  /** Deliveries with an attempt under way or a retry waiting, by key. */
  private readonly busy = new Map<string, NodeJS.Timeout | undefined>();
  private closed = false;
  private pass: Promise<void> = Promise.resolve();
  private queued = false;

  constructor(
    private readonly store: EventStore,
    private readonly channels: readonly NotificationChannel[],
  ) {
    this.model = new ProjectionRunner(store, notifications);
  }

  async start(): Promise<void> {
    await this.model.start();
    if (this.channels.length === 0) return;
    // Before any pass: a new channel must never see the occurrences before its start.
    const unknown = this.channels.filter((c) => !this.model.state.channels.has(c.name));
    if (unknown.length > 0) {
      const { position } = await this.store.append(
        NOTIFICATIONS_STREAM,
        unknown.map((c) => stacksEvent('NotificationChannelStarted', { channel: c.name })),
      );
      await this.model.waitFor(position);
    }
    this.subscription = this.model.updates.subscribe(() => this.schedule());
    this.schedule();
  }

  /** One pass after the current one; updates meanwhile fold into it (the model moves on every event). */
  private schedule(): void {
    if (this.closed || this.queued) return;
    this.queued = true;
    this.pass = this.pass
      .then(() => {
        this.queued = false;
        return this.step();
      })
      .catch((error: unknown) => {
        process.stderr.write(`stacks: notifications: ${(error as Error).message}\n`);
      });
  }

  /** Starts deliveries of occurrences past the checkpoint, moves it, and resumes pending ones. */
  private async step(): Promise<void> {
    const state = this.model.state;
    let from = state.occurrences.length;
    while (from > 0 && (state.occurrences[from - 1] as Occurrence).position > state.checkpoint) from -= 1;
    const fresh = state.occurrences.slice(from);
    // A channel is given what happened after its start only (start() recorded every channel's).
    const due = (c: NotificationChannel, o: Occurrence) =>
      o.position > (state.channels.get(c.name)?.position ?? Number.POSITIVE_INFINITY) && wants(c, o);
    for (const o of fresh)
      for (const channel of this.channels) {
        const key = `${channel.name}:${o.position}:${o.event}`;
        // A delivery already recorded (a restart before the checkpoint) goes on as a pending one below.
        if (due(channel, o) && !state.deliveries.has(key)) this.deliver(channel, o, key, 0);
      }
    // The checkpoint passes an occurrence once each of its deliveries has a recorded attempt: a crash
    // before that leaves it fresh, and the next start delivers it (at least once, with the same key).
    let settled = state.checkpoint;
    for (const o of fresh) {
      if (this.channels.some((c) => due(c, o) && !state.deliveries.has(`${c.name}:${o.position}:${o.event}`)))
        break;
      settled = o.position;
    }
    if (settled > state.checkpoint)
      await this.store.append(NOTIFICATIONS_STREAM, [
        stacksEvent('NotificationsCheckpointed', { position: settled }),
      ]);
    for (const delivery of state.deliveries.values()) {
      if (delivery.state !== 'pending' || this.busy.has(delivery.key)) continue;
      const channel = this.channels.find((c) => c.name === delivery.channel);
      const o = state.occurrences.find((x) => x.position === delivery.occurrence);
      if (!channel || !o) continue;
      const tried = delivery.attempts.length;
      const last = Date.parse(delivery.attempts[tried - 1]?.at ?? new Date().toISOString());
      const wait = Math.max(0, last + channel.retryBaseMs * 2 ** (tried - 1) - Date.now());
      this.deliver(channel, o, delivery.key, tried, wait);
    }
  }

  /** Attempt `done + 1` of a delivery, after `waitMs`; records it, and schedules the next on failure. */
  private deliver(channel: NotificationChannel, o: Occurrence, key: string, done: number, waitMs = 0): void {
    if (this.busy.has(key) || this.closed) return;
    const timer = setTimeout(() => {
      void this.attempt(channel, o, key, done + 1).finally(() => {
        this.busy.delete(key);
        this.schedule();
      });
    }, waitMs);
    timer.unref();
    this.busy.set(key, timer);
  }

  private async attempt(channel: NotificationChannel, o: Occurrence, key: string, attempt: number) {
    const result = await send(channel, o, key);
    const final = result.ok || attempt >= channel.maxAttempts;
    if (this.closed && !result.ok) return result;
    const { position } = await this.store.append(NOTIFICATIONS_STREAM, [
      stacksEvent('NotificationAttempted', {
        key,
        channel: channel.name,
        event: o.event,
        occurrence: o.position,
        attempt,
        ok: result.ok,
        status: result.status,
        error: result.error,
        final,
      }),
    ]);
    // The next pass must see this attempt, or it would count it again.
    await this.model.waitFor(position);
    return result;
  }

  /**
   * `GET /api/notifications`: the config's channels as an admin may see them. The URL's path and query
   * and the token are left out: a Slack or Discord webhook URL is its own secret; the host says where.
   */
  list(): ChannelSummary[] {
    return this.channels.map((c) => ({
      name: c.name,
      type: c.type,
      host: new URL(c.url).host,
      events: [...c.events],
      stacks: c.stacks ? [...c.stacks] : null,
      environments: c.environments ? [...c.environments] : null,
      maxAttempts: c.maxAttempts,
      retryBaseMs: c.retryBaseMs,
      started: this.startOf(c.name),
    }));
  }

  /** Where each configured channel started, in config order (those that have). */
  starts(): Array<ChannelStart & { channel: string }> {
    return this.channels.flatMap((c) => {
      const start = this.startOf(c.name);
      return start ? [{ channel: c.name, ...start }] : [];
    });
  }

  private startOf(name: string): ChannelStart | null {
    const start = this.model.state.channels.get(name);
    return start ? { ...start } : null;
  }

  /** `POST /api/notifications/{name}/test`: one attempt now, recorded; answers its outcome. */
  async test(
    name: string,
  ): Promise<{ key: string; ok: boolean; status: number | null; error: string | null }> {
    const channel = this.channels.find((c) => c.name === name);
    if (!channel)
      throw new StacksError('channel_not_found', `No notification channel ${JSON.stringify(name)}`);
    const o: Occurrence = {
      position: 0,
      event: 'test',
      stack: null,
      environmentId: null,
      runId: null,
      text: `Test notification from chronicle to ${channel.name}`,
      at: new Date().toISOString(),
    };
    await this.model.waitFor(await this.store.headPosition());
    const key = `${channel.name}:test:${randomUUID()}`;
    const result = await send(channel, o, key);
    const { position } = await this.store.append(NOTIFICATIONS_STREAM, [
      stacksEvent('NotificationAttempted', {
        key,
        channel: channel.name,
        event: 'test',
        occurrence: 0,
        attempt: 1,
        ok: result.ok,
        status: result.status,
        error: result.error,
        final: true,
      }),
    ]);
    await this.model.waitFor(position);
    return { key, ...result };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.subscription?.unsubscribe();
    for (const timer of this.busy.values()) clearTimeout(timer);
    await this.pass;
    await this.model.stop();
  }
}

/**
 * One attempt. Only the status counts: the answer's body is never read (a receiver answering 1.5 GB
 * would otherwise be held whole in memory), and a redirect is not followed — the URL is the one the
 * config names, and a 3xx is a failed attempt with its status (a POST re-sent elsewhere could carry
 * the message, or a token's header, to a host nobody configured).
 */
async function send(channel: NotificationChannel, o: Occurrence, key: string) {
  const request = channelRequest(channel, o, key);
  try {
    const answer = await fetch(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
    });
    // Cancelled unread: the connection is closed rather than drained.
    await answer.body?.cancel().catch(() => undefined);
    if (answer.ok) return { ok: true, status: answer.status, error: null };
    const redirect = answer.status >= 300 && answer.status < 400;
    return {
      ok: false,
      status: answer.status,
      error: redirect ? `HTTP ${answer.status} (redirects are not followed)` : `HTTP ${answer.status}`,
    };
  } catch (error) {
    return { ok: false, status: null, error: failureReason(error, ATTEMPT_TIMEOUT_MS, request.url) };
  }
}
