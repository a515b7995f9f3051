// The server's JSON, as the Rust engine serialises it (engine/src/model).
// Money is a JSON number rounded to settings.decimal; times are ms since the epoch.

export type Role = 'rider' | 'driver' | 'fleetadmin' | 'admin';
export type RegType = 'email' | 'mobile' | 'social' | 'admin' | 'registration';
export type AppCategory = 'taxi' | 'delivery';

export type BookingStatus =
  | 'PAYMENT_PENDING'
  | 'NEW'
  | 'ACCEPTED'
  | 'ARRIVED'
  | 'STARTED'
  | 'REACHED'
  | 'PENDING'
  | 'PAID'
  | 'COMPLETE'
  | 'CANCELLED';

export type PaymentMode = 'cash' | 'wallet' | 'card';

export interface LatLng {
  lat: number;
  lng: number;
}

export interface Place extends LatLng {
  add: string;
}

export interface Coord {
  latitude: number;
  longitude: number;
}

export interface Settings {
  appName: string;
  appcat: AppCategory;
  code: string;
  symbol: string;
  swipe_symbol: boolean;
  decimal: number;
  otp_secure: boolean;
  country: string;
  restrictCountry: string;
  AllowCountrySelection: boolean;
  convert_to_mile: boolean;
  AllowDeliveryPickupImageCapture: boolean;
  AllowFinalDeliveryImageCapture: boolean;
  RiderWithDraw: boolean;
  /** Not a setting: the server runs the demo city (`--demo`), where a driver may simulate driving. */
  demoCity?: boolean;
  autoDispatch: boolean;
  bank_fields: boolean;
  showLiveRoute: boolean;
  AllowCriticalEditsAdmin: boolean;
  FacebookLoginEnabled: boolean;
  CompanyName: string;
  CompanyAddress: string;
  CompanyWebsite: string;
  contact_email: string;
  CompanyPhone: string;
  CompanyTerms: string;
  FacebookHandle: string;
  TwitterHandle: string;
  InstagramHandle: string;
  AppleStoreLink: string;
  PlayStoreLink: string;
  /** A MapLibre style URL; the built-in offline style when absent. */
  mapStyleUrl?: string;
  /** The documents a driver must have approved to go online (issue #33). */
  driverDocuments?: DocumentKind[];
  /** Minutes a Book Now booking waits for a driver before the system cancels it (`no_driver_available`). */
  noDriverCancelMinutes?: number;
  /** Minutes after payment a booking nobody rated completes by itself. */
  autoCompleteMinutes?: number;
  /** The living demo's switch and booking rate (admins; issue #35). */
  livingDemo?: boolean;
  livingDemoBookingsPerHour?: number;
  [key: string]: unknown;
}

export interface PricedChoice {
  description: string;
  amount: number;
}

export interface CarType {
  id: string;
  name: string;
  image: string;
  base_fare: number;
  rate_per_unit_distance: number;
  rate_per_hour: number;
  min_fare: number;
  convenience_fees: number;
  convenience_fee_type: 'flat' | 'percentage';
  extra_info: string;
  parcelTypes: PricedChoice[];
  options: PricedChoice[];
  cancelSlab: { minsDelayed: number; amount: number }[];
  /** Delivery: a booking must choose one of `options` (otherwise options are optional). */
  optionRequired?: boolean;
}

export interface UserLang {
  langLocale: string;
  dateLocale: string;
}

export interface User {
  id: string;
  createdAt: number;
  usertype: Role;
  firstName: string;
  lastName: string;
  mobile: string;
  email: string;
  regType: RegType;
  referralId: string;
  approved: boolean;
  walletBalance: number;
  profile_image: string | null;
  licenseImage: string | null;
  lang: UserLang | null;
  bankName: string;
  bankCode: string;
  bankAccount: string;
  ratings: { userrating: number } | null;
  location: LatLng | null;
  vehicleMake: string;
  vehicleModel: string;
  vehicleNumber: string;
  vehicleColor?: string;
  vehicleYear?: string;
  carType: string | null;
  driverActiveStatus: boolean;
  queue: boolean;
  /** A driver's fleet admin. */
  fleetadmin?: string | null;
  other_info?: string;
}

/** One online driver of the socket's `drivers` feed. */
export interface LiveDriver extends LatLng {
  id: string;
  carType: string | null;
  /** Free for an offer: not on a trip. */
  available: boolean;
  /** No usable fix for 30 s: where they were, not where they are. */
  stale?: boolean;
}

export interface Booking {
  id: string;
  reference: string;
  appcat: AppCategory;
  carType: string;
  carImage: string;
  customer: string;
  customer_name: string;
  customer_contact: string;
  customer_email: string;
  customer_image: string;
  pickup: Place;
  drop: Place;
  pickupAddress: string;
  dropAddress: string;
  estimate: number;
  estimateDistance: number;
  distance: number;
  estimateTime: number;
  status: BookingStatus;
  bookLater: boolean;
  tripdate: number;
  bookingDate: number;
  /** A 5-digit number, or false when otp_secure is off. */
  otp: number | false;
  coords: Coord[];
  trip_cost: number;
  /** Hidden from riders. */
  convenience_fees?: number;
  /** Hidden from riders. */
  driver_share?: number;
  requestedDrivers: Record<string, boolean>;
  driver: string | null;
  driver_image: string;
  driver_name: string;
  driver_contact: string;
  driverRating: number;
  vehicle_number: string;
  /** The fleet admin of the booking's driver (null: an independent driver, or no driver yet). */
  fleetadmin?: string | null;
  discount_amount: number;
  cashPaymentAmount: number;
  cardPaymentAmount: number;
  usedWalletMoney: number;
  payableAmount: number;
  customer_paid: number;
  cancellationFee: number;
  reason: string;
  cancelledBy: string | null;
  rating: number | null;
  payment_mode: PaymentMode | null;
  gateway: string | null;
  prepaid: boolean;
  /** When the winning driver accepted. */
  acceptedAt?: number | null;
  /** When the driver said they had arrived. */
  driver_arrive_time?: number | null;
  trip_start_time: number | null;
  trip_end_time: number | null;
  total_trip_time: number;
  pickup_image: string | null;
  deliver_image: string | null;
  parcelTypeSelected: PricedChoice | null;
  optionSelected: PricedChoice | null;
  deliveryPerson: string;
  deliveryPersonPhone: string;
  pickUpInstructions: string;
  deliveryInstructions: string;
  dispatch?: { deadline: number | null };
  /** Where the trip really ended (the driver's position at Reached); the booked `drop` is never overwritten. */
  actualDrop?: Place | null;
  /** When the search for a driver began (creation for Book Now, payment for prepaid, the Book Later dispatch time). */
  searchingSince?: number | null;
  /** Made by the living demo or its seeded history (issue #35). */
  demo?: boolean;
  /** The part of the cancellation fee the rider's wallet could not cover (negative balances off): owed. */
  cancellationFeeOwed?: number;
  /** What an admin has refunded to the rider's wallet from this booking. */
  refunded?: number;
  /** The server's timers: `auto_cancel.at` is when a booking without a driver (or payment) gives up,
   * `auto_complete.at` when a paid booking nobody rated completes. */
  timers?: Partial<Record<'offer_expiry' | 'dispatch_retry' | 'auto_cancel' | 'book_later_dispatch' | 'auto_complete' | 'payment_reminder', { at: number; generation: number } | null>>;
  updatedAt: number;
  /** Goes up by one with each change: of two copies, the higher is newer. */
  version: number;
}

export interface Page<T> {
  items: T[];
  next: string | null;
}

/** A booking offered to the driver, with the moment the offer lapses. */
export interface Offer {
  booking: Booking;
  deadline: number | null;
  /** How far the driver was from the pickup when offered, in km (the
   * socket's `offer` knows it; a read of /tasks does not). */
  distanceKm?: number | null;
}

export interface ChatMessage {
  message: string;
  from: string;
  type: string;
  msgDate: string;
  msgTime: string;
  source: Role;
  smsId: string | null;
  createdAt: number;
}

export interface TrackingPoint {
  at: number;
  status: BookingStatus;
  lat: number;
  lng: number;
}

export interface Tracking {
  latest: TrackingPoint | null;
  points: TrackingPoint[];
}

export interface WalletEntry {
  type: 'Credit' | 'Debit' | 'Withdraw';
  amount: number;
  date: number;
  txRef: string;
}

export interface Wallet {
  walletBalance: number;
  walletHistory: WalletEntry[];
  next: string | null;
}

/** Spec §3 "Withdraw request". */
export interface WithdrawRequest {
  id: string;
  uid: string;
  name: string;
  amount: number;
  date: number;
  bankName: string;
  bankCode: string;
  bankAccount: string;
  processed: boolean;
  procesDate: number | null;
}

export interface Language {
  id: string;
  langName: string;
  langLocale: string;
  dateLocale: string;
  default: boolean;
  keyValuePairs: Record<string, string>;
}

export interface PaymentProvider {
  name: string;
  link: string;
}

export interface CancellationReason {
  label: string;
  value: number;
}

export interface Estimate {
  estimateFare: number;
  convenience_fees: number;
  distance_in_km: number;
  time_in_secs: number;
  polylinePoints: string;
  /** With a promo code: whether it applies, the discount and what is left to pay. */
  promo_applied?: boolean;
  discount_amount?: number;
  payableAmount?: number;
  /** How the fare is made (the engine's formula): each part already rounded to `settings.decimal`. */
  breakdown?: FareBreakdown;
}

export interface FareBreakdown {
  base: number;
  distance: number;
  time: number;
  parcel: number;
  option: number;
  /** What the minimum fare adds on top of the formula (0 when the formula is above it). */
  minimumTopUp: number;
  convenienceFees: number;
  /** The promo's discount (0 without one). */
  promo: number;
  /** What the rider pays: the sum of the parts less the promo. */
  payable: number;
}

/** One wallet movement made by a booking (`GET /bookings/{id}/ledger`). */
export interface LedgerEntry {
  user: string;
  userName: string;
  role: Role;
  type: 'Credit' | 'Debit' | 'Withdraw';
  amount: number;
  date: number;
  txRef: string;
}

/** Money owed to the platform (`GET /reports/owed`). */
export interface OwedReport {
  /** Bookings in PENDING: the trip is over, the card payment has not come. */
  pending: Booking[];
  /** Cancellation fees the rider's wallet could not cover. */
  fees: OwedFee[];
}

export interface OwedFee {
  booking: string;
  reference: string;
  customer: string;
  customer_name: string;
  owed: number;
  date: number;
}

export interface PlaceSuggestion {
  place_id: string;
  description: string;
  main_text?: string;
  secondary_text?: string;
}

export interface Directions {
  distance_in_km: number;
  time_in_secs: number;
  polylinePoints: string;
  coords: Coord[];
}

// ---- drivers' sign-up and documents (issue #33) ----

export type DocumentKind = 'licence' | 'registration' | 'insurance' | 'photo';
export type DocumentStatus = 'pending' | 'approved' | 'rejected';
export type ApplicationStatus = 'incomplete' | 'pending' | 'approved' | 'rejected';

export interface DriverDocument {
  driver: string;
  kind: DocumentKind;
  number: string;
  expiresAt: number | null;
  front: string;
  back: string | null;
  status: DocumentStatus;
  reason: string | null;
  reviewedBy: string | null;
  reviewedAt: number | null;
  remindedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface Application {
  status: ApplicationStatus;
  reason: string | null;
  required: DocumentKind[];
  missing: DocumentKind[];
  documents: DriverDocument[];
}

/** Issue #33: an SOS alert raised during a trip (engine/src/sos.rs). */
export type SosState = 'open' | 'taken' | 'resolved';

export interface SosAlert {
  id: string;
  booking: string;
  reference: string;
  raised_by: string;
  raised_by_role: 'rider' | 'driver';
  raised_by_name: string;
  lat: number;
  lng: number;
  created_at: number;
  fleetadmin: string | null;
  taken_by: string | null;
  taken_by_name: string;
  taken_at: number | null;
  resolved_by: string | null;
  resolved_by_name: string;
  resolved_at: number | null;
  note: string;
  state: SosState;
}
