import type { EventStream } from './event-stream.js';

/**
 * The event streams that end on their own with a last event of their own: a job's events (its `result`)
 * and a followed log (its `end`). When the server stops it stops their jobs first; their streams then
 * write that last event, which a client reads as how the job or run ended. Closing every connection
 * straight after would cut the ones still writing (a followed log reads its file in turn), so close()
 * gives them a grace to end first. Streams that never end on their own (the change feed) are not here.
 */
export class EndingStreams {
  private readonly open = new Set<EventStream>();
  private markClosing: () => void = () => {};
  /**
   * Resolves when the server stops: a stream that waits for something only another instance can end
   * (a run followed from its file there) stops waiting then.
   */
  readonly closing = new Promise<void>((resolve) => {
    this.markClosing = resolve;
  });

  add(stream: EventStream): void {
    this.open.add(stream);
    stream.onClose(() => this.open.delete(stream));
  }

  /** Resolves once every stream has ended, or after graceMs (a client that reads no more, say). */
  async ended(graceMs: number): Promise<void> {
    this.markClosing();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([...this.open].map((stream) => stream.closed)),
      new Promise((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
  }
}
