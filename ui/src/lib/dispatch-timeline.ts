// A booking's dispatch timeline (`GET /bookings/{id}/dispatch`): the raw
// entries in order, with the time since the first and since the one before,
// and the waves with each offered driver's distance and what became of the
// offer. The live console's drawer and the booking's own page both read it.
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { isHandOffer, type DispatchEntry, type DispatchKind, type WithdrawReason } from '@/lib/dispatch-entries';
import { queryKeys } from '@/lib/query-keys';

export interface TimelineRow {
  entry: DispatchEntry;
  kind: DispatchKind;
  at: number;
  sinceStart: number;
  sincePrevious: number;
}

export type OfferOutcome = 'pending' | 'accepted' | WithdrawReason;

export interface TimelineOffer {
  driver: string;
  distanceKm: number | null;
  outcome: OfferOutcome;
  /** When the driver accepted, or the offer was withdrawn. */
  endedAt: number | null;
  /** From the offer to its end. */
  lasted: number | null;
}

export interface TimelineWave {
  wave: number;
  /** An admin's offer, not one of the system's waves. */
  byAdmin: boolean;
  at: number;
  deadline: number | null;
  offers: TimelineOffer[];
}

export interface Timeline {
  rows: TimelineRow[];
  waves: TimelineWave[];
  /** From the start (the booking's waiting start when given, else the first
   * entry) to the first offer, and to the acceptance. */
  firstOfferAfter: number | null;
  acceptedAfter: number | null;
}

/** Entries may come in any order (the socket's and storage's): oldest first, stable. */
function inOrder(entries: readonly DispatchEntry[]) {
  return entries.map((entry, index) => ({ entry, index })).sort((a, b) => a.entry.at - b.entry.at || a.index - b.index).map(({ entry }) => entry);
}

export function buildTimeline(entries: readonly DispatchEntry[], since?: number): Timeline {
  const ordered = inOrder(entries);
  const first = ordered[0]?.at ?? 0;
  // A start after the first entry (a clock apart) would make negative times.
  const start = since !== undefined && since <= first ? since : first;
  const rows: TimelineRow[] = ordered.map((entry, index) => ({
    entry,
    kind: entry.kind,
    at: entry.at,
    sinceStart: entry.at - first,
    sincePrevious: index === 0 ? 0 : entry.at - ordered[index - 1].at,
  }));
  const waves: TimelineWave[] = [];
  // The latest offer made to each driver, to close it when it ends.
  const open = new Map<string, { offer: TimelineOffer; at: number }>();
  let firstOfferAt: number | null = null;
  let acceptedAt: number | null = null;
  const close = (driver: string, outcome: OfferOutcome, at: number) => {
    const made = open.get(driver);
    if (!made) return;
    made.offer.outcome = outcome;
    made.offer.endedAt = at;
    made.offer.lasted = at - made.at;
    open.delete(driver);
  };
  for (const entry of ordered) {
    if (entry.kind === 'offered') {
      firstOfferAt ??= entry.at;
      const wave: TimelineWave = {
        wave: entry.wave ?? waves.length + 1,
        byAdmin: isHandOffer(entry),
        at: entry.at,
        deadline: entry.deadline ?? null,
        offers: (entry.drivers ?? []).map((driver, index) => ({
          driver,
          distanceKm: entry.distances_km?.[index] ?? null,
          outcome: 'pending',
          endedAt: null,
          lasted: null,
        })),
      };
      for (const offer of wave.offers) open.set(offer.driver, { offer, at: entry.at });
      waves.push(wave);
    } else if (entry.kind === 'withdrawn') {
      for (const driver of entry.drivers ?? []) close(driver, entry.reason ?? 'cancelled', entry.at);
    } else if (entry.kind === 'accepted') {
      acceptedAt ??= entry.at;
      if (entry.driver) close(entry.driver, 'accepted', entry.at);
    }
  }
  return {
    rows,
    waves,
    firstOfferAfter: firstOfferAt === null ? null : firstOfferAt - start,
    acceptedAfter: acceptedAt === null ? null : acceptedAt - start,
  };
}

/** The answer may come bare or wrapped (`{items}`, older servers `{entries}` or `{events}`). */
function entriesOf(payload: unknown): DispatchEntry[] {
  if (Array.isArray(payload)) return payload as DispatchEntry[];
  if (payload && typeof payload === 'object') {
    for (const name of ['items', 'entries', 'events']) {
      const value = (payload as Record<string, unknown>)[name];
      if (Array.isArray(value)) return value as DispatchEntry[];
    }
  }
  return [];
}

export const timelineQueryOptions = (booking: string) =>
  queryOptions({
    queryKey: queryKeys.dispatchTimeline(booking),
    queryFn: async ({ signal }) => entriesOf(await api.get<unknown>(`/bookings/${booking}/dispatch`, undefined, signal)),
  });

export function useTimeline(booking: string | null) {
  return useQuery({ ...timelineQueryOptions(booking ?? ''), enabled: Boolean(booking) });
}
