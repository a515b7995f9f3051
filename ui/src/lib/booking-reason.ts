// Why a booking was cancelled, in words. The server writes a key for its own
// cancellations (`no_driver_available`, `payment_not_received`, contract of
// issue #34); a person's reason is free text, shown as they wrote it.

/** The reasons the system gives, each translated by `reason_<key>`. */
export const SYSTEM_REASONS = ['no_driver_available', 'payment_not_received'] as const;
export type SystemReason = (typeof SYSTEM_REASONS)[number];

export function isSystemReason(reason: string | null | undefined): reason is SystemReason {
  return (SYSTEM_REASONS as readonly string[]).includes(reason ?? '');
}

/** The reason to show: a system key translated, anything else as it is. */
export function reasonText(reason: string | null | undefined, t: (key: string) => string): string {
  if (!reason) return '';
  return isSystemReason(reason) ? t(`reason_${reason}`) : reason;
}
