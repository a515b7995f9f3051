// The same rules the server applies to a fix (engine/src/fix.rs): a fix
// vaguer than 100 m is not used, and a driver with no usable fix for 30 s
// has lost their position. The console says so before the server has to.

export const MAX_ACCURACY_M = 100;
export const STALE_AFTER_MS = 30_000;
/** With no new fix for this long the device is asked again: a parked phone
 * may report nothing while it does not move. */
export const POLL_AFTER_MS = 10_000;

export function isUsableFix(accuracy: number | null | undefined) {
  if (accuracy === null || accuracy === undefined) return true;
  return Number.isFinite(accuracy) && accuracy >= 0 && accuracy <= MAX_ACCURACY_M;
}

export function isStale(lastAt: number | undefined, now: number) {
  return lastAt === undefined || now - lastAt > STALE_AFTER_MS;
}
