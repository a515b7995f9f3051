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
export function needsParcelChoice(carType: CarType | undefined, category: string | undefined) {
  return category === 'delivery' && Boolean(carType?.parcelTypes?.length || carType?.options?.length);
}

/** Issue #34: a parcel type is required (when the car type lists any); an
 * option only when the operator made it so (`optionRequired` on the car
 * type). Otherwise the chooser offers "None" and the request leaves
 * `optionIndex` out, which the server accepts. */
export function optionRequired(carType: CarType): boolean {
  return carType.optionRequired === true;
}

/** What the parcel chooser sends: the type always (when there are types), the option only when one was picked. */
export function parcelChoice(carType: CarType, parcelTypeIndex: number | null, optionIndex: number | null): { parcelTypeIndex?: number; optionIndex?: number } {
  return {
    parcelTypeIndex: carType.parcelTypes?.length && parcelTypeIndex !== null ? parcelTypeIndex : undefined,
    optionIndex: carType.options?.length && optionIndex !== null ? optionIndex : undefined,
  };
}

/** The delivery fields a rider fills in the estimate dialog. */
export type DeliveryField = 'deliveryPerson' | 'deliveryPersonPhone' | 'pickUpInstructions' | 'deliveryInstructions';

export const DELIVERY_FIELDS: DeliveryField[] = ['deliveryPerson', 'deliveryPersonPhone', 'pickUpInstructions', 'deliveryInstructions'];

/** The server's limit on each instruction (engine `MAX_NOTE_CHARS`). */
export const MAX_INSTRUCTION_CHARS = 500;

// Spec §5 Delivery, as the server checks it: digits, spaces and dashes (a
// leading + allowed), at least 7 characters and at least 7 digits.
const DELIVERY_PHONE = /^\+?[0-9\s-]+$/;

function deliveryPhoneOk(value: string) {
  const phone = value.trim();
  return DELIVERY_PHONE.test(phone) && phone.length >= 7 && phone.replace(/\D/g, '').length >= 7;
}

/** The first delivery field that is wrong, with the text that says so on the field; null when all are right. */
export function deliveryFieldProblem(details: Record<DeliveryField, string>): { field: DeliveryField; key: string } | null {
  if (blank(details.deliveryPerson)) return { field: 'deliveryPerson', key: 'booking.recipient_name_missing' };
  if (!deliveryPhoneOk(details.deliveryPersonPhone)) return { field: 'deliveryPersonPhone', key: 'booking.recipient_phone_invalid' };
  for (const field of ['pickUpInstructions', 'deliveryInstructions'] as const) {
    if ([...details[field].trim()].length > MAX_INSTRUCTION_CHARS) return { field, key: 'booking.instructions_too_long' };
  }
  return null;
}

/** The text a field shows when the server refuses its value. */
export const DELIVERY_FIELD_TEXT: Record<DeliveryField, string> = {
  deliveryPerson: 'booking.recipient_name_missing',
  deliveryPersonPhone: 'booking.recipient_phone_invalid',
  pickUpInstructions: 'booking.instructions_too_long',
  deliveryInstructions: 'booking.instructions_too_long',
};

/** The field a server refusal of the estimate or booking names, when the rider can fix it on a field. */
export function refusedDeliveryField(field: string | undefined): DeliveryField | null {
  return field && (DELIVERY_FIELDS as string[]).includes(field) ? (field as DeliveryField) : null;
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
