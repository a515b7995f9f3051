import { haversineMetres } from '@/lib/geo';
import type { CheckoutOutcome } from '@/lib/payments';
import type { Booking, BookingStatus, Place, Role } from '@/types/api';
import { UNASSIGNED_LEAD_MS, unassignedSince } from '@/lib/booking-state';

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

/** Spec §4 "Assign driver": NEW and an admin. Issue #34: with automatic
 * dispatch on too (the driver chosen is offered it beside the system's
 * offers; the first to accept has it). */
export function canAssign(booking: Booking, role: Role) {
  return booking.status === 'NEW' && role === 'admin';
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

/** Dispatch begins this long before a Book Later trip's date (spec §4): the shared rule's lead. */
export const BOOK_LATER_DISPATCH_LEAD_MS = UNASSIGNED_LEAD_MS;

/** A booking no driver has taken yet, that the system is (or will be) looking for one for. */
export function isWaitingForDriver(booking: Booking) {
  return booking.status === 'NEW' && !booking.driver;
}

/** A Book Later booking whose search has not begun: its trip date matters, not a clock. */
export function isScheduledAhead(booking: Booking, now: number) {
  return booking.bookLater && !booking.searchingSince && now < booking.tripdate - BOOK_LATER_DISPATCH_LEAD_MS;
}

/** When the search for a driver began: the same moment the panel counts an
 * unassigned booking's wait from. */
export const searchStartedAt = unassignedSince;

/** When the booking gives up: no driver (NEW) or no payment (PAYMENT_PENDING). */
export function autoCancelAt(booking: Booking): number | null {
  return booking.timers?.auto_cancel?.at ?? null;
}

/** When a paid booking nobody rated completes by itself. */
export function autoCompleteAt(booking: Booking): number | null {
  return booking.timers?.auto_complete?.at ?? null;
}

/** Where the trip really ended, when that is further than this from the booked drop. */
export const DROP_MOVED_METRES = 200;

/** The real end of the trip, only when it is worth showing beside the booked drop. */
export function movedDrop(booking: Booking): Place | null {
  const actual = booking.actualDrop;
  if (!actual || !booking.drop) return null;
  return haversineMetres(booking.drop, actual) > DROP_MOVED_METRES ? actual : null;
}

/** The rider asks for the same trip again after no driver took it. */
export function canRebook(booking: Booking, role: Role) {
  return role === 'rider' && booking.status === 'CANCELLED' && booking.reason === 'no_driver_available';
}

/** One line, for the rider, of what happens next in each status (a translation key). */
export function nextStepKey(booking: Booking, now: number): string {
  switch (booking.status) {
    case 'PAYMENT_PENDING':
    case 'PENDING':
      return 'trip.next.your_payment';
    case 'NEW':
      if (booking.driver) return 'trip.next.driver_on_way';
      return isScheduledAhead(booking, now) ? 'trip.scheduled_hint' : 'trip.finding_driver';
    case 'ACCEPTED':
      return 'trip.next.driver_on_way';
    case 'ARRIVED':
      return 'trip.next.driver_arrived';
    case 'STARTED':
      return 'trip.next.on_trip';
    case 'REACHED':
      return booking.prepaid ? 'trip.next.driver_finishing' : 'trip.next.pay_driver';
    case 'PAID':
      return 'trip.next.rate';
    case 'COMPLETE':
      return 'trip.next.complete';
    case 'CANCELLED':
      return 'trip.next.closed';
  }
}
