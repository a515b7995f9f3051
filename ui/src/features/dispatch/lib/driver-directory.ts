// Who the drivers the console names are: their names for the log, the
// timeline and the drawer, and their fleet for the log's fleet filter. Read
// once per driver, in batches (`GET /users?ids=`, up to 100 a call), the
// first time something asks; the feed carries ids only, 10,000 a second.
import { shortId } from '@/lib/dispatch-entries';

export interface DriverInfo {
  name: string;
  /** The driver's fleet admin, or null. */
  fleet: string | null;
}

export interface NamedUser {
  id: string;
  firstName?: string;
  lastName?: string;
  fleetadmin?: string | null;
}

/** Ids one read names at most (the server's limit). */
export const IDS_PER_READ = 100;

export class DriverDirectory {
  private readonly known = new Map<string, DriverInfo>();
  private readonly wanted = new Set<string>();
  private readonly asking = new Set<string>();
  /** Drivers whose read failed, and when they may be asked for again. */
  private readonly retryAt = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly read: (ids: string[]) => Promise<NamedUser[]>,
    /** Called after a batch has arrived (the panels re-render). */
    private readonly learned: () => void,
    private readonly delayMs = 50,
    private readonly retryMs = 30_000,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** What is known of a driver; asks for them when not. */
  get(id: string): DriverInfo | undefined {
    const info = this.known.get(id);
    if (!info && id && !this.asking.has(id) && !this.wanted.has(id) && (this.retryAt.get(id) ?? 0) <= this.now()) {
      this.wanted.add(id);
      this.timer ??= setTimeout(() => void this.flush(), this.delayMs);
    }
    return info;
  }

  /** Whether drivers asked for are still being read. */
  pending(): boolean {
    return this.wanted.size + this.asking.size > 0;
  }

  /** The driver's name, or the tail of their id until it is known (or when they have none). */
  label(id: string): string {
    return this.get(id)?.name || shortId(id);
  }

  /** Reads every driver asked for since the last read. */
  async flush() {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const ids = [...this.wanted];
    this.wanted.clear();
    for (const id of ids) this.asking.add(id);
    const batches: string[][] = [];
    for (let start = 0; start < ids.length; start += IDS_PER_READ) batches.push(ids.slice(start, start + IDS_PER_READ));
    let learned = false;
    await Promise.all(
      batches.map(async (batch) => {
        try {
          const users = await this.read(batch);
          for (const user of users) {
            const name = [user.firstName, user.lastName].filter(Boolean).join(' ').trim();
            this.known.set(user.id, { name, fleet: user.fleetadmin ?? null });
          }
          // Not returned: not a driver this viewer may see; remembered as nameless.
          for (const id of batch) if (!this.known.has(id)) this.known.set(id, { name: '', fleet: null });
          learned = true;
        } catch {
          // Shown by id meanwhile; asked again a while later.
          for (const id of batch) this.retryAt.set(id, this.now() + this.retryMs);
        } finally {
          for (const id of batch) this.asking.delete(id);
        }
      }),
    );
    if (learned) this.learned();
  }

  dispose() {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
