// The dispatch log's entries (docs/api.md: the socket's `dispatch` event and
// `GET /bookings/{id}/dispatch`), and one entry in words: the live console's
// log and every booking's dispatch timeline read them.

export type DispatchKind = 'offered' | 'withdrawn' | 'accepted' | 'no_candidates' | 'exhausted' | 'cancelled';

export const DISPATCH_KINDS: DispatchKind[] = ['offered', 'withdrawn', 'accepted', 'no_candidates', 'exhausted', 'cancelled'];

export type WithdrawReason = 'taken' | 'declined' | 'expired' | 'cancelled';

/** One entry of the dispatch log (the `dispatch` event, and the timeline's rows). */
export interface DispatchEntry {
  at: number;
  booking: string;
  kind: DispatchKind;
  car_type?: string | null;
  /** offered, no_candidates */
  wave?: number;
  /** offered, withdrawn */
  drivers?: string[];
  /** offered: parallel to `drivers`. */
  distances_km?: (number | null)[];
  /** offered: when the offers lapse. */
  deadline?: number | null;
  /** withdrawn */
  reason?: WithdrawReason;
  /** accepted */
  driver?: string;
}

/** The drivers an entry names. */
export function entryDrivers(entry: DispatchEntry): string[] {
  if (entry.drivers?.length) return entry.drivers;
  return entry.driver ? [entry.driver] : [];
}

/** An offer an admin made by hand (`POST /bookings/{id}/assign`): the
 * server logs it with no deadline and no distance, as it knows no position
 * for it (engine/src/dispatch/log.rs); the system's offers have both. */
export function isHandOffer(entry: DispatchEntry): boolean {
  if (entry.kind !== 'offered' || entry.deadline != null) return false;
  const distances = entry.distances_km ?? [];
  return distances.length > 0 && distances.every((distance) => distance == null);
}

type Translate = (key: string, values?: Record<string, unknown>) => string;

/** The last characters of an id: enough to tell drivers apart on screen
 * (the first ones of a time-ordered UUID are the same for everyone). */
export function shortId(id: string) {
  return id.slice(-8);
}

/** `driverName` names a driver (the console's directory; the tail of the id by default). */
export function entryText(entry: DispatchEntry, t: Translate, driverName: (id: string) => string = shortId): string {
  switch (entry.kind) {
    case 'offered':
      if (isHandOffer(entry)) return t('dispatch.entry.offered_by_admin', { driver: (entry.drivers ?? []).map(driverName).join(', ') });
      return t('dispatch.entry.offered', { wave: entry.wave ?? 1, count: entry.drivers?.length ?? 0 });
    case 'withdrawn':
      return t('dispatch.entry.withdrawn', { count: entry.drivers?.length ?? 0, reason: t(`dispatch.reason.${entry.reason ?? 'cancelled'}`) });
    case 'accepted':
      return t('dispatch.entry.accepted', { driver: driverName(entry.driver ?? '') });
    case 'no_candidates':
      return t('dispatch.entry.no_candidates', { wave: entry.wave ?? 1 });
    case 'exhausted':
      return t('dispatch.entry.exhausted');
    case 'cancelled':
      return t('dispatch.entry.cancelled');
  }
}
