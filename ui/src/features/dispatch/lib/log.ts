// The console's event log: the `dispatch` entries, newest first, the last
// few hundred, and the filters a dispatcher narrows them with.
import { entryDrivers, type DispatchEntry, type DispatchKind } from '@/lib/dispatch-entries';

export const LOG_LIMIT = 500;

/** Adds an entry, newest first; one that arrives late still lands in its
 * place, one already there (read from storage too) is not added again; the
 * oldest fall off past `limit`. Returns a new array (the same when unchanged). */
export function pushEntry(log: readonly DispatchEntry[], entry: DispatchEntry, limit = LOG_LIMIT): DispatchEntry[] {
  let index = 0;
  while (index < log.length && log[index].at > entry.at) index++;
  const key = entryKey(entry);
  for (let same = index; same < log.length && log[same].at === entry.at; same++) {
    if (entryKey(log[same]) === key) return log as DispatchEntry[];
  }
  const next = [...log.slice(0, index), entry, ...log.slice(index)];
  return next.length > limit ? next.slice(0, limit) : next;
}

/** What tells two copies of one entry apart from two entries (the socket's
 * and storage's copies of one are equal in all of these). */
function entryKey(entry: DispatchEntry) {
  return `${entry.at}|${entry.booking}|${entry.kind}|${entry.wave ?? ''}|${entryDrivers(entry).join(',')}`;
}

/** The stored backlog merged into the live log: each entry once, newest first. */
export function mergeEntries(log: readonly DispatchEntry[], backlog: readonly DispatchEntry[], limit = LOG_LIMIT): DispatchEntry[] {
  const seen = new Set(log.map(entryKey));
  const merged = [...log];
  for (const entry of backlog) {
    const key = entryKey(entry);
    if (seen.has(key)) continue;
    seen.add(key);
    merged.push(entry);
  }
  // Stable: entries of one instant keep the order they came in.
  merged.sort((a, b) => b.at - a.at);
  return merged.length > limit ? merged.slice(0, limit) : merged;
}

export interface LogFilter {
  /** Empty: every kind. */
  kinds: DispatchKind[];
  /** '' : every car type. */
  carType: string;
  /** A fleet admin's id, '' for every fleet. */
  fleet: string;
}

export const NO_FILTER: LogFilter = { kinds: [], carType: '', fleet: '' };

/**
 * The entries the filter keeps. A fleet is matched through its drivers
 * (`fleetOf` answers a driver's fleet admin): an entry naming one of its
 * drivers, and the entries of a booking that one of its drivers was offered
 * (so a fleet's booking keeps its cancellation and exhaustion).
 */
export function filterLog(
  log: readonly DispatchEntry[],
  filter: LogFilter,
  fleetOf: (driver: string) => string | null | undefined = () => undefined,
): DispatchEntry[] {
  const kinds = new Set(filter.kinds);
  let fleetBookings: Set<string> | null = null;
  if (filter.fleet) {
    fleetBookings = new Set(
      log.filter((entry) => entryDrivers(entry).some((driver) => fleetOf(driver) === filter.fleet)).map((entry) => entry.booking),
    );
  }
  return log.filter((entry) => {
    if (kinds.size > 0 && !kinds.has(entry.kind)) return false;
    if (filter.carType && entry.car_type !== filter.carType) return false;
    if (fleetBookings && !fleetBookings.has(entry.booking)) return false;
    return true;
  });
}

/** The car types the log has seen, sorted, for the filter's choices. */
export function carTypesOf(log: readonly DispatchEntry[]): string[] {
  return [...new Set(log.map((entry) => entry.car_type).filter((name): name is string => Boolean(name)))].sort();
}
