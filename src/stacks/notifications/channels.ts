import type { Occurrence } from '../../../projections/notifications.js';
import type { NotificationChannel } from '../contracts.js';

/** One HTTP request a channel's delivery makes. */
interface ChannelRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

const TITLE = 'chronicle';

/**
 * The request of a channel type for an occurrence (pure): a generic webhook gets the JSON of the
 * occurrence; ntfy the text (title and tags as headers); Gotify `{title, message, priority}` on
 * `/message`; a Slack- or Discord-compatible webhook `{text, content}`. Every request carries the
 * delivery's idempotency key (`Idempotency-Key`, and in the webhook's body).
 */
export function channelRequest(channel: NotificationChannel, o: Occurrence, key: string): ChannelRequest {
  const headers: Record<string, string> = { 'idempotency-key': key };
  if (channel.token !== undefined && channel.type === 'ntfy')
    headers.authorization = `Bearer ${channel.token}`;
  switch (channel.type) {
    case 'webhook':
      return {
        url: channel.url,
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({
          key,
          event: o.event,
          stack: o.stack,
          environmentId: o.environmentId,
          runId: o.runId,
          text: o.text,
          at: o.at,
        }),
      };
    case 'ntfy':
      return {
        url: channel.url,
        headers: {
          ...headers,
          'content-type': 'text/plain; charset=utf-8',
          title: TITLE,
          tags: o.event.endsWith('failed') ? 'warning' : 'white_check_mark',
        },
        body: o.text,
      };
    case 'gotify': {
      const url = new URL(channel.url.replace(/\/?$/, '/message'));
      if (channel.token !== undefined) url.searchParams.set('token', channel.token);
      return {
        url: url.toString(),
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ title: TITLE, message: o.text, priority: o.event.endsWith('failed') ? 8 : 4 }),
      };
    }
    case 'slack':
      return {
        url: channel.url,
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ text: o.text, content: o.text }),
      };
  }
}

/** Whether a channel wants an occurrence: its event, and its stacks and environments when listed. */
export function wants(channel: NotificationChannel, o: Occurrence): boolean {
  if (!channel.events.includes(o.event)) return false;
  if (channel.stacks && (o.stack === null || !channel.stacks.includes(o.stack))) return false;
  if (channel.environments && o.stack !== null && !channel.environments.includes(o.environmentId))
    return false;
  return true;
}
