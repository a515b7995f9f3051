import type { CheckoutOutcome } from '@/lib/payments';
import type { Booking, BookingStatus, Role } from '@/types/api';

/** The path a trip normally takes, for the progress display. */
export const TRIP_STEPS: BookingStatus[] = ['NEW', 'ACCEPTED', 'ARRIVED', 'STARTED', 'REACHED', 'PAID', 'COMPLETE'];

export function isActive(status: BookingStatus) {
  return status !== 'COMPLETE' && status !== 'CANCELLED';
}

export function stepIndex(status: BookingStatus) {
  if (status === 'PENDING') return TRIP_STEPS.indexOf('REACHED');
  if (status === 'PAYMENT_PENDING') return 0;
  return TRIP_STEPS.indexOf(status);
}

/** Every status, in the order a trip goes through them (filters list them so).
 * Two are about money and must never read alike (issue #34):
 * - PAYMENT_PENDING, "Awaiting prepayment": before the trip; a prepaid
 *   (delivery) booking is not dispatched until the rider pays.
 * - PENDING, "Payment due": after the trip; the rider chose card and has not paid yet. */
export const BOOKING_STATUSES: BookingStatus[] = ['PAYMENT_PENDING', 'NEW', 'ACCEPTED', 'ARRIVED', 'STARTED', 'REACHED', 'PENDING', 'PAID', 'COMPLETE', 'CANCELLED'];

export const STATUS_COLOURS: Record<BookingStatus, 'default' | 'primary' | 'secondary' | 'success' | 'warning' | 'error' | 'info'> = {
  PAYMENT_PENDING: 'warning',
  NEW: 'info',
  ACCEPTED: 'primary',
  ARRIVED: 'primary',
  STARTED: 'secondary',
  REACHED: 'secondary',
  PENDING: 'warning',
  PAID: 'success',
  COMPLETE: 'success',
  CANCELLED: 'error',
};

/** Spec §4 "Panel actions": cancel is offered for NEW, ACCEPTED or PAYMENT_PENDING, to riders and
 * admins, when critical edits are allowed (not in demo mode). */
export function canCancel(booking: Booking, role: Role, criticalEditsAllowed = true) {
  return criticalEditsAllowed && (role === 'rider' || role === 'admin') && ['NEW', 'ACCEPTED', 'PAYMENT_PENDING'].includes(booking.status);
}

/** Spec §4 "Assign driver": NEW, an admin, and autoDispatch off. */
export function canAssign(booking: Booking, role: Role, autoDispatch: boolean) {
  return booking.status === 'NEW' && role === 'admin' && !autoDispatch;
}

/** Spec §4: a PAYMENT_PENDING booking is cancelled about 1.5 s after the button, with the fixed reason. */
export const PAYMENT_PENDING_CANCEL_DELAY_MS = 1500;

/** The rider pays from the wallet once the trip reached its end, or by card when PENDING (spec §4 pay now). */
export function canPayByWallet(booking: Booking, role: Role) {
  return role === 'rider' && !booking.prepaid && (booking.status === 'REACHED' || booking.status === 'PENDING');
}

/** Spec §4 "Pay now": the provider chooser, for the rider of a PENDING trip.
 * At REACHED the rider first chooses card, which makes it PENDING (DESIGN.md). */
export function canPayNow(booking: Booking, role: Role) {
  return role === 'rider' && booking.status === 'PENDING';
}

/** What to tell the payer back from a gateway: paid once the booking shows
 * it; a cancelled checkout left it unpaid; a successful one the booking does
 * not show yet is being confirmed (a gateway's webhook may come a moment later). */
export function paymentNotice(booking: Booking, outcome: CheckoutOutcome): { key: string; severity: 'success' | 'info' | 'warning' } {
  const paid = booking.prepaid || booking.status === 'PAID' || booking.status === 'COMPLETE';
  if (paid) return { key: 'payment.checkout_paid', severity: 'success' };
  if (outcome === 'cancelled') return { key: 'payment.checkout_cancelled', severity: 'warning' };
  return { key: 'payment.checkout_confirming', severity: 'info' };
}

export function canRate(booking: Booking, role: Role) {
  return role === 'rider' && booking.status === 'PAID';
}

/** Whether the otp is still worth showing to the rider. */
export function showsOtp(booking: Booking) {
  return booking.otp !== false && booking.otp !== null && ['NEW', 'ACCEPTED', 'ARRIVED'].includes(booking.status);
}

/** The driver's active trip: the booking they run now. */
export function isDriverTrip(booking: Booking, driverId: string) {
  return booking.driver === driverId && ['ACCEPTED', 'ARRIVED', 'STARTED', 'REACHED', 'PENDING', 'PAID'].includes(booking.status);
}

/** A fixed reason for cancelling an unpaid prepaid booking (spec §4). */
export const INCOMPLETE_BOOKING_REASON = 'cancel.reason_incomplete';
