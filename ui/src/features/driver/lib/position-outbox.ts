// The driver's positions on their way to the server. Each fix carries its
// own time; while the network is down they wait here and go out in order
// once it is back, so the trip's track has neither a hole nor a jump. One
// send at a time: a position never overtakes an older one.
import type { LocationPayload } from '@/lib/socket';

/** An hour of fixes at one a second; older ones give way first. */
export const OUTBOX_LIMIT = 3600;

export type SendOutcome = 'sent' | 'refused' | 'failed';

export interface OutboxOptions {
  /** Sends one fix: `refused` when the server said no (it is dropped), `failed` when it did not answer (it is kept). */
  send: (fix: LocationPayload) => Promise<SendOutcome>;
  /** Whether the browser believes it has a network at all. */
  isOnline?: () => boolean;
  /** Told the number of fixes waiting whenever it changes. */
  onSizeChange?: (waiting: number) => void;
  limit?: number;
}

export class PositionOutbox {
  private readonly queue: LocationPayload[] = [];
  private flushing: Promise<void> | null = null;
  private readonly options: Required<OutboxOptions>;

  constructor(options: OutboxOptions) {
    this.options = {
      isOnline: () => true,
      onSizeChange: () => {},
      limit: OUTBOX_LIMIT,
      ...options,
    };
  }

  get size() {
    return this.queue.length;
  }

  /** Queues a fix behind those waiting and tries to send them all. */
  push(fix: LocationPayload) {
    this.queue.push(fix);
    if (this.queue.length > this.options.limit) this.queue.splice(0, this.queue.length - this.options.limit);
    this.options.onSizeChange(this.queue.length);
    return this.flush();
  }

  /** Sends what waits, oldest first, until one fails; resolves when done. */
  flush(): Promise<void> {
    if (!this.flushing) {
      this.flushing = this.drain().finally(() => {
        this.flushing = null;
      });
    }
    return this.flushing;
  }

  /** Forgets what waits (the driver went offline: those fixes are no one's business). */
  clear() {
    if (this.queue.length === 0) return;
    this.queue.length = 0;
    this.options.onSizeChange(0);
  }

  private async drain() {
    while (this.queue.length > 0 && this.options.isOnline()) {
      const outcome = await this.options.send(this.queue[0]).catch((): SendOutcome => 'failed');
      if (outcome === 'failed') return;
      this.queue.shift();
      this.options.onSizeChange(this.queue.length);
    }
  }
}
