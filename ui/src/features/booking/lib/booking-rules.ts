// Spec §5 "Booking (landing)": the checks made when the rider presses book,
// in the spec's order, each failure a translation key.
import type { CarType, Place, User } from '@/types/api';

/** Spec §9: a Book Later trip is at least 15 minutes ahead. */
export const BOOK_LATER_MIN_LEAD_MINUTES = 15;

export interface BookingDraft {
  pickup: Place | null;
  drop: Place | null;
  carType: string;
  bookLater: boolean;
  /** Milliseconds; null when no date was chosen. */
  tripDate: number | null;
}

const blank = (value: string | null | undefined) => !value || value.trim() === '';

export function bookingRuleError(draft: BookingDraft, user: User | null | undefined, now: number): string | null {
  if (!user) return 'must_login';
  if (user.usertype !== 'rider') return 'booking.riders_only';
  if (blank(user.email) || blank(user.firstName) || blank(user.lastName)) return 'profile_incomplete';
  return tripRuleError(draft, now);
}

/** Spec §5 "add-booking": the admin's form needs a rider, and the rider a
 * mobile number (`incomplete_user`); then the trip's own checks. */
export function adminBookingRuleError(draft: BookingDraft, rider: User | null | undefined, now: number): string | null {
  if (!rider) return 'select_proper';
  if (blank(rider.mobile)) return 'incomplete_user';
  return tripRuleError(draft, now);
}

/** Pickup, drop and car type chosen; a Book Later date at least 15 minutes ahead. */
function tripRuleError(draft: BookingDraft, now: number): string | null {
  if (!draft.pickup || !draft.drop || blank(draft.carType)) return 'select_proper';
  if (draft.bookLater) {
    if (draft.tripDate === null || Number.isNaN(draft.tripDate)) return 'select_proper';
    if (draft.tripDate < now + BOOK_LATER_MIN_LEAD_MINUTES * 60_000) return 'past_booking_error';
  }
  return null;
}

/** The chooser shows only for delivery, when the car type has parcel types or options. */
export function needsParcelChoice(carType: CarType | undefined, category: string) {
  return category === 'delivery' && Boolean(carType && (carType.parcelTypes.length > 0 || carType.options.length > 0));
}

// Spec §5 Delivery: a name, and a phone of digits, spaces and dashes, at least 7 long.
const DELIVERY_PHONE = /^[0-9\s-]{7,}$/;

export function deliveryDetailsError(details: { deliveryPerson: string; deliveryPersonPhone: string }) {
  const phone = details.deliveryPersonPhone.trim();
  if (blank(details.deliveryPerson) || !DELIVERY_PHONE.test(phone) || phone.length <= 6) return 'deliveryDetailMissing';
  return null;
}

/** The value of a datetime-local field as milliseconds, null when empty. */
export function parseLocalDateTime(value: string): number | null {
  if (!value) return null;
  const parsed = new Date(value).getTime();
  return Number.isNaN(parsed) ? null : parsed;
}

/** A time as a datetime-local field's value (local time, minutes). */
export function toLocalDateTimeValue(at: number) {
  const date = new Date(at);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
