// Generated from src/types/openapi.json by scripts/api-types.mjs: do not edit.
// After a change to the server's schemas:
//   WAYFARE_UPDATE_SNAPSHOTS=1 cargo test -p wayfare-http --test openapi_snapshot
//   cd ui && npm run api-types
// Types the document does not describe (socket payloads, screens' own shapes)
// live in src/types/app.ts.

/**
 * The fields of an account in the users tables: what a manager sends to add
 * an account (all that apply) or to edit one (only what changes). `None`
 * leaves a field as it is.
 */
export interface AccountFields {
  /** Added accounts are approved unless this says otherwise. */
  approved?: boolean | null;
  bankAccount?: string | null;
  bankCode?: string | null;
  bankName?: string | null;
  /** A driver's car type, by name; blank clears it. */
  carType?: string | null;
  /** Only when adding: an edit that changes it is `contact_not_editable`. */
  email?: string | null;
  firstName?: string | null;
  fleetadmin?: UserId | null;
  lastName?: string | null;
  /** Only when adding: an edit that changes it is `contact_not_editable`. */
  mobile?: string | null;
  other_info?: string | null;
  usertype?: Role | null;
  vehicleColor?: string | null;
  vehicleMake?: string | null;
  vehicleModel?: string | null;
  vehicleNumber?: string | null;
  /** Four digits; blank clears it. */
  vehicleYear?: string | null;
}

/** An active booking as the console starts from it. */
export type ActiveBooking = Booking & {
  offered: HeldOffer[];
};

export interface ActiveBookings {
  items: ActiveBooking[];
}

export interface AddressBody {
  latlng: LatLng;
}

export interface AddressResponse {
  address: string;
}

/**
 * The body of an admin credit or a withdraw request
 * (`routes::wallet::AmountBody`).
 */
export interface AmountBody {
  /**
   * A number above 0 and at most 1000000, or numeric text such as
   * `"12.50"`; rounded to `settings.decimal`.
   */
  amount: number;
}

/** Flat amount or percentage, for convenience fees and promos. */
export type AmountType = 'flat' | 'percentage';

/** The category of the platform and of each booking (spec §1). */
export type AppCategory = 'taxi' | 'delivery';

/**
 * The app info (spec §2 "App info form", the /appinfo page): the name, the
 * company's details the contact-us and privacy pages and the footer show,
 * the social handles and the store links. Every field is a text.
 */
export interface AppInfo {
  AppleStoreLink?: string | null;
  CompanyAddress?: string | null;
  CompanyName?: string | null;
  CompanyPhone?: string | null;
  CompanyTerms?: string | null;
  CompanyWebsite?: string | null;
  FacebookHandle?: string | null;
  InstagramHandle?: string | null;
  PlayStoreLink?: string | null;
  TwitterHandle?: string | null;
  /** Not blank when given. */
  appName?: string | null;
  contact_email?: string | null;
}

/**
 * The driver's application: its status, the reason of the last rejection,
 * the kinds required and what is missing.
 */
export interface Application {
  documents: DriverDocument[];
  /** Required kinds with no usable document (none, rejected or expired). */
  missing: DocumentKind[];
  reason?: string | null;
  required: DocumentKind[];
  status: ApplicationStatus;
}

/** Where a driver's sign-up stands, as the driver and the panel see it. */
export type ApplicationStatus = 'incomplete' | 'pending' | 'approved' | 'rejected';

export interface AssignBody {
  driver: UserId;
}

/** A driver an admin may assign a booking to. */
export interface AssignCandidate {
  carType: string;
  /**
   * Great-circle distance to the pickup, in the platform's unit (miles
   * when `convert_to_mile` is on), to the metre.
   */
  distance_km: number;
  id: UserId;
  /** Where the driver is now (the live index). */
  lat: number;
  lng: number;
  /** First and last name. */
  name: string;
  vehicleNumber: string;
}

/** The candidates, nearest the pickup first. */
export interface AssignCandidates {
  items: AssignCandidate[];
  /**
   * The dispatch radius (`driverRadius`) in the platform's unit: drivers
   * farther than this (up to three times it) are listed after those inside.
   */
  radius: number;
}

export interface AutocompleteBody {
  near?: LatLng | null;
  searchKeyword: string;
}

export interface AutocompleteResponse {
  searchResults: Suggestion[];
}

/**
 * A booking (spec §3), plus `version` for compare-and-set in storage and the
 * dispatch history and timers the server keeps.
 */
export interface Booking {
  acceptedAt?: Millis | null;
  actualDrop?: Place | null;
  appcat: AppCategory;
  bookLater: boolean;
  bookingDate: Millis;
  booking_type_admin?: boolean;
  cancellationFee?: number;
  /**
   * The part of `cancellationFee` the rider's wallet could not cover
   * while negative balances are off: owed, not debited.
   */
  cancellationFeeOwed?: number;
  cancelledBy?: CancelledBy | null;
  carImage?: string;
  carType: string;
  cardPaymentAmount?: number;
  cashPaymentAmount?: number;
  /** Not shown to riders. */
  convenience_fees?: number;
  coords?: Coord[];
  customer: UserId;
  customer_contact?: string;
  customer_email?: string;
  customer_image?: string;
  customer_name?: string;
  customer_paid?: number;
  customer_token?: string;
  deliver_image?: string | null;
  deliveryInstructions?: string;
  deliveryPerson?: string;
  deliveryPersonPhone?: string;
  /**
   * Made by the living demo or its seeded history (issue #35): the
   * demo's traffic, which reports and exports can tell apart.
   */
  demo?: boolean;
  discount?: number;
  discount_amount?: number;
  dispatch?: DispatchState;
  /** Final distance, from the tracked points for taxi. */
  distance?: number;
  driver?: UserId | null;
  driverRating?: number;
  driver_arrive_time?: Millis | null;
  driver_contact?: string;
  driver_image?: string;
  driver_name?: string;
  /** Not shown to riders. */
  driver_share?: number;
  driver_token?: string;
  drop: Place;
  dropAddress: string;
  endTime?: Millis | null;
  /** The fare quoted at booking. */
  estimate: number;
  /** Route distance at booking, km (miles when convert_to_mile). */
  estimateDistance: number;
  /** Route time at booking, seconds. */
  estimateTime: number;
  fleetadmin?: UserId | null;
  gateway?: string | null;
  id: BookingId;
  optionIndex?: number | null;
  optionSelected?: PricedChoice | null;
  /** Only the rider and admins receive it. */
  otp?: Otp;
  parcelTypeIndex?: number | null;
  parcelTypeSelected?: PricedChoice | null;
  payableAmount: number;
  paymentPacket?: PaymentPacket | null;
  payment_mode?: PaymentMode | null;
  pickUpInstructions?: string;
  /**
   * The booked pickup and drop: never overwritten (receipts and exports
   * show what the rider booked).
   */
  pickup: Place;
  pickupAddress: string;
  pickup_image?: string | null;
  prepaid?: boolean;
  promo_applied?: boolean;
  promo_details?: PromoDetails | null;
  rating?: number | null;
  reason?: string;
  reference: string;
  /** Refunded to the rider's wallet by admins from this booking. */
  refunded?: number;
  requestedDrivers?: RequestedDrivers;
  searchingSince?: Millis | null;
  startTime?: Millis | null;
  status: BookingStatus;
  timers?: Timers;
  /** Seconds. */
  total_trip_time?: number;
  trip_cost: number;
  trip_end_time?: Millis | null;
  trip_start_time?: Millis | null;
  tripdate: Millis;
  updatedAt?: Millis;
  usedWalletMoney?: number;
  vehicle_number?: string;
  version?: number;
  waypoints?: Place[];
}

/** A booking. */
export type BookingId = string;

/** The bookings offered to the calling driver. */
export interface BookingItems {
  items: Booking[];
}

/** A page of bookings, newest first unless sorted otherwise. */
export interface BookingPage {
  /**
   * Bookings as the caller may see them: riders get no `driver_share` or
   * `convenience_fees`; push tokens are never shown; in demo mode other
   * people's contact data is masked.
   */
  items: Booking[];
  /** Pass as `after` for the next page; `null` on the last one. */
  next?: string | null;
}

/** `GET /api/v1/bookings/{id}/refunds` (`routes::refunds::refunds`). */
export interface BookingRefunds {
  gateway: RefundGateway;
  /** Oldest first, done and failed. */
  items: Refund[];
  totals: RefundTotals;
}

/** The booking statuses of spec §4. */
export type BookingStatus = 'PAYMENT_PENDING' | 'NEW' | 'ACCEPTED' | 'ARRIVED' | 'STARTED' | 'REACHED' | 'PENDING' | 'PAID' | 'COMPLETE' | 'CANCELLED';

/**
 * A fare's parts, as the estimate shows them to the rider: each rounded to
 * `settings.decimal`, and `payable` what they add up to less the promo.
 */
export interface Breakdown {
  base: number;
  convenienceFees: number;
  distance: number;
  /** What the minimum fare adds on top of the formula. */
  minimumTopUp: number;
  option: number;
  parcel: number;
  payable: number;
  promo: number;
  time: number;
}

/** What a provider sends back, in the query or (Apple) a posted form. */
export interface CallbackParams {
  code?: string | null;
  /** The provider's refusal (the person said no), e.g. `access_denied`. */
  error?: string | null;
  state?: string | null;
  /**
   * Apple's form post only, on a person's first sign-in: JSON
   * `{"name": {"firstName", "lastName"}, "email"}`. Its names fill those
   * the ID token lacks; it is not signed, so its e-mail is never read.
   */
  user?: string | null;
}

export interface CancelBody {
  /** Why; required (`select_proper` when blank). */
  reason: string;
}

/** One reason. */
export interface CancelReasonBody {
  label: string;
}

/** The whole list, in order. */
export interface CancelReasonsBody {
  reasons: string[];
}

/**
 * A step of the cancellation fee: once `minsDelayed` minutes have passed since
 * the driver accepted, cancelling costs `amount`.
 */
export interface CancelSlab {
  amount: number;
  minsDelayed: number;
}

/** A cancellation reason as the UI lists it: the text and its index. */
export interface CancellationReason {
  label: string;
  value: number;
}

/** Who cancelled: a role, or the system's scheduler. */
export type CancelledBy = 'rider' | 'driver' | 'admin' | 'fleetadmin' | 'system';

/** A car type with its rates (spec §3). */
export interface CarType {
  base_fare: number;
  cancelSlab?: CancelSlab[];
  convenience_fee_type?: AmountType;
  convenience_fees: number;
  createdAt?: Millis;
  extra_info?: string;
  id: CarTypeId;
  image?: string;
  min_fare: number;
  name: string;
  /**
   * Delivery: a booking must choose one of `options` (issue #34: options
   * are optional unless the operator makes them required).
   */
  optionRequired?: boolean;
  options?: PricedChoice[];
  parcelTypes?: PricedChoice[];
  rate_per_hour: number;
  rate_per_unit_distance: number;
}

/**
 * A car type as the car types table sends it (spec §3). To add one, `name`
 * and the five amounts are required; to update one, fields left out keep
 * their value. The image has its own upload.
 */
export interface CarTypeBody {
  /** Each amount 0 to 1000000 (`money::MAX_CATALOG_AMOUNT`). */
  base_fare?: number | null;
  cancelSlab?: CancelSlab[] | null;
  convenience_fee_type?: AmountType | null;
  /** A flat amount, or a percentage (at most 100) with `percentage`. */
  convenience_fees?: number | null;
  extra_info?: string | null;
  min_fare?: number | null;
  name?: string | null;
  /** Delivery: a booking must choose one of `options` (issue #34). */
  optionRequired?: boolean | null;
  options?: PricedChoice[] | null;
  parcelTypes?: PricedChoice[] | null;
  rate_per_hour?: number | null;
  rate_per_unit_distance?: number | null;
}

export interface CarTypeDeleted {
  deleted: boolean;
  id: CarTypeId;
}

/** A car type. */
export type CarTypeId = string;

/** One change: who, when, which fields (never their values). */
export interface ChangeView {
  changed: string[];
  changedAt: Millis;
  changedBy?: UserId | null;
  /** The admin's name when they still exist. */
  changedByName?: string | null;
  gateway: string;
  id: string;
}

/** A page of the change log. */
export interface ChangesPage {
  items: ChangeView[];
  /** The cursor of the next page, if any. */
  next?: string | null;
}

export type Channel = 'email' | 'sms';

export interface ChatBody {
  message: string;
}

/** A chat message on a booking (spec §3). */
export interface ChatMessage {
  createdAt?: Millis;
  from: UserId;
  message: string;
  /** MM:DD:YYYY. */
  msgDate: string;
  /** HH:MM. */
  msgTime: string;
  /** Assigned when read. */
  smsId?: string | null;
  /** The sender's role. */
  source: Role;
  type: string;
}

export interface ChatMessages {
  /** In time order. */
  messages: StoredChatMessage[];
}

/**
 * The checkout form of spec §7, as the web app posts it. Every field is
 * read as text so a missing or malformed one is refused by name.
 */
export interface CheckoutForm {
  amount?: string;
  /** Where to go after giving up; only its path and query are kept. */
  cancel_url?: string | null;
  currency?: string;
  /** The payer's user id. */
  cust_id?: string;
  email?: string;
  first_name?: string;
  last_name?: string;
  mobile_no?: string;
  /** A booking id, or `wallet-…` for a wallet top-up. */
  order_id?: string;
  product_name?: string;
  quantity?: string;
  /** Where to go after paying; only its path and query are kept (our site). */
  success_url?: string | null;
}

export interface CodeRequest {
  /** An e-mail address or a phone number in international form. */
  contact: string;
  country?: string | null;
}

export interface CodeSent {
  channel: Channel;
  expiresAt: number;
}

/** One point of a route polyline, as the spec's `coords` list writes it. */
export interface Coord {
  latitude: number;
  longitude: number;
}

export type CreateBody = TripBody & DeliveryDetails & {
  bookLater?: boolean;
  customer?: UserId | null;
  payment_mode?: PaymentMode | null;
  /** A promo code. */
  promo?: string | null;
  tripdate?: number | null;
};

/**
 * The dashboard's gross earning cards (spec §2 "Dashboard"): Σ `trip_cost`
 * of the rides the panel counts (spec §9) whose trip date falls on the
 * platform's local today, in its local month, and ever, each rounded to
 * `settings.decimal`, with how many rides each sum holds.
 */
export interface DashboardEarnings {
  rides: DashboardRides;
  thisMonth: number;
  today: number;
  total: number;
}

/** The rides behind each of the dashboard's sums. */
export interface DashboardRides {
  thisMonth: number;
  today: number;
  total: number;
}

export interface Deleted {
  deleted: boolean;
  id: UserId;
}

/** The four extra fields of a delivery booking (spec §2 "Landing page"). */
export interface DeliveryDetails {
  deliveryInstructions?: string;
  deliveryPerson?: string;
  deliveryPersonPhone?: string;
  pickUpInstructions?: string;
}

export type DeviceTarget = 'All' | 'ANDROID' | 'IOS';

export interface DirectionsBody {
  dest: LatLng;
  start: LatLng;
  waypoints?: LatLng[];
}

export interface DirectionsResponse {
  coords: Coord[];
  distance_in_km: number;
  /** Google's encoded polyline (precision 5). */
  polylinePoints: string;
  time_in_secs: number;
}

/**
 * One dispatch log entry (`wayfare_engine::dispatch::DispatchEntry`), as
 * the socket's `dispatch` event and the timeline carry it. Which fields are
 * there depends on `kind`.
 */
export interface DispatchEntry {
  at: Millis;
  booking: BookingId;
  /** The booking's car type. */
  car_type: string;
  deadline?: Millis | null;
  /**
   * `offered`: each driver's distance to the pickup when offered, in km
   * (`null` when not known, as for an admin's assignment).
   */
  distances_km?: (number | null)[] | null;
  driver?: UserId | null;
  /** `offered`, `withdrawn`: the drivers. */
  drivers?: UserId[] | null;
  /** `offered`, `withdrawn`, `accepted`, `no_candidates`, `exhausted` or `cancelled`. */
  kind: string;
  /** `withdrawn`: `taken`, `declined`, `expired` or `cancelled`. */
  reason?: string | null;
  /** `offered`, `no_candidates`: the wave's number. */
  wave?: number | null;
}

/** How Book Now bookings are offered to drivers (DESIGN.md, "Server behaviours"). */
export type DispatchPolicy = 'broadcast' | 'waves' | 'nearest' | 'batch';

/**
 * Auto-dispatch history of a booking, so waves never re-offer a driver who
 * declined or let an offer expire, and a restart resumes at the right wave.
 */
export interface DispatchState {
  /** Offers came from the dispatcher rather than an admin. */
  auto: boolean;
  deadline?: Millis | null;
  declined: UserId[];
  expired: UserId[];
  /** Waves offered so far (0 before the first). */
  wave: number;
}

export interface DispatchTimeline {
  /** Oldest first. */
  items: DispatchEntry[];
}

/**
 * A document a driver uploads when signing up (issue #33). Which kinds are
 * required is the setting `driverDocuments`.
 */
export type DocumentKind = 'licence' | 'registration' | 'insurance' | 'photo';

/** Where a document is in review. */
export type DocumentStatus = 'pending' | 'approved' | 'rejected';

/** The multipart form of a document (documentation only). */
export interface DocumentUpload {
  /** The licence's back side. */
  back?: string | null;
  /** Licence and insurance: when it expires, `YYYY-MM-DD` or milliseconds. */
  expiry?: string | null;
  /** The image: PNG, JPEG, GIF or WebP by content. */
  front: string;
  /** The licence number. */
  number?: string | null;
}

/** A driver and their application, as the panel's review shows them. */
export interface DriverApplication {
  application: Application;
  user: User;
}

/** A driver's current document of one kind (a new upload replaces it). */
export interface DriverDocument {
  /** The licence's back side. */
  back?: string | null;
  createdAt: Millis;
  driver: UserId;
  expiresAt?: Millis | null;
  /** The file URL of the image (`/api/v1/files/{id}`). */
  front: string;
  kind: DocumentKind;
  /** The licence number; empty for other kinds. */
  number?: string;
  /** Why it was rejected; the driver is told. */
  reason?: string | null;
  remindedAt?: Millis | null;
  reviewedAt?: Millis | null;
  reviewedBy?: UserId | null;
  status: DocumentStatus;
  updatedAt: Millis;
}

/** `GET /api/v1/reports/driver-earnings` (`routes::reports`). */
export interface DriverEarnings {
  /** With `limit`: the cursor of the next page (`after`), null on the last. */
  next?: string | null;
  /**
   * Newest month first, then by driver name; with `limit`, one page
   * newest month first, then by driver id.
   */
  rows: EarningsRow[];
}

/** What a driver's app is sent by `POST /api/v1/drivers/{id}/message`. */
export interface DriverMessage {
  body: string;
  createdAt: Millis;
  /** Who sent it. */
  from: UserId;
  /** Always `message`. */
  key: string;
  /** `notification_title` in the driver's language. */
  title: string;
}

export interface DriverMessageBody {
  /** Required, 1 to 2000 characters (trimmed); empty is `no_details_error`. */
  message: string;
}

export interface DriverStatusResponse {
  driverActiveStatus: boolean;
}

/** `GET /api/v1/reports/earnings` (`routes::reports`). */
export interface EarningsReport {
  /** With `limit`: the cursor of the next page (`after`), null on the last. */
  next?: string | null;
  /**
   * Newest month first, then by driver name; with `limit`, one page
   * newest month first, then by driver id.
   */
  rows: EarningsReportRow[];
}

/** An earnings report row: the earnings row plus the platform's side. */
export type EarningsReportRow = EarningsRow & {
  cancellationFee: number;
  convenienceFee: number;
  customerPaid: number;
  discountAmount: number;
  myEarning: number;
  rideCost: number;
  tripCost: number;
};

/** Per driver per month earnings (spec §3 "Earnings rows"). */
export interface EarningsRow {
  driverName: string;
  driverShare: number;
  driverUId: UserId;
  driverVehicleNo: string;
  month: number;
  monthsName: string;
  total_rides: number;
  year: number;
}

/** Every refusal: an HTTP status and this body (`crate::error::ApiError`). */
export interface ErrorBody {
  error: ErrorDetail;
}

export interface ErrorDetail {
  /**
   * A translation key (see the `ErrorKey` schema), or `internal_error` /
   * `unavailable` for a 5xx.
   */
  code: string;
  /** The input field that was wrong, when one was. */
  field?: string;
  /** The text of the key in English. */
  message: string;
}

/** A translation key: every refusal's `error.code` is one of these */
export type ErrorKey = 'must_login' | 'profile_incomplete' | 'select_proper' | 'past_booking_error' | 'place_to_coords_error' | 'user_issue_contact_admin' | 'deliveryDetailMissing' | 'proper_email' | 'mobile_no_blank_error' | 'country_blank_error' | 'contact_input_error' | 'otp_validate_error' | 'login_error' | 'not_logged_in' | 'require_approval' | 'not_valid_user_type' | 'google_places_error' | 'demo_mode' | 'user_exists' | 'email_or_mobile_issue' | 'incomplete_user' | 'proper_bonus' | 'update_failed' | 'choose_image_first' | 'no_details_error' | 'location_fetch_error' | 'no_user_match' | 'no_tasks' | 'chat_not_found' | 'no_cancel_reason' | 'no_cars' | 'no_bookings' | 'no_provider_found' | 'json_error' | 'cannot_delete_default_language' | 'no_route_found' | 'booking_taken' | 'not_offered' | 'status_not_allowed' | 'stale_timer' | 'otp_mismatch' | 'invalid_rating' | 'invalid_amount' | 'invalid_input' | 'insufficient_wallet_balance' | 'auto_dispatch_on' | 'driver_not_eligible' | 'no_eligible_driver' | 'promo_invalid' | 'promo_expired' | 'promo_limit_reached' | 'promo_min_order' | 'already_processed' | 'not_allowed' | 'not_found' | 'code_expired' | 'invalid_code' | 'too_many_attempts' | 'file_too_large' | 'field_locked' | 'contact_not_editable' | 'user_has_active_bookings' | 'car_type_exists' | 'car_type_in_use' | 'invalid_signature' | 'promo_exists' | 'language_exists' | 'export_too_large' | 'referral_invalid' | 'fleet_code_invalid' | 'vehicle_details_missing' | 'vehicle_year_invalid' | 'document_number_missing' | 'document_expiry_invalid' | 'documents_missing' | 'document_expired' | 'reason_required' | 'sos_no_trip' | 'sos_note_required' | 'sos_already_taken' | 'sos_already_resolved' | 'set_in_config_file' | 'secrets_key_missing';

/** An estimate's body: the trip, and a promo code to price in. */
export type EstimateBody = TripBody & {
  customer?: UserId | null;
  /**
   * A promo code: the answer shows its discount, or refuses a code that
   * does not apply with the same errors as booking.
   */
  promo?: string | null;
};

/** `POST /api/v1/bookings/estimate` (`routes::bookings::create::estimate`). */
export interface EstimateResponse {
  /**
   * How the fare is made: each part rounded to `settings.decimal`, adding
   * up to `payableAmount` (`wayfare_engine::fare::breakdown`).
   */
  breakdown: Breakdown;
  convenience_fees: number;
  /** The promo's discount off `estimateFare` (0 without one). */
  discount_amount: number;
  distance_in_km: number;
  /** The driver's share of the fare; admins only. */
  driver_share?: number;
  /** The fare a booking would be quoted: trip cost plus convenience fee. */
  estimateFare: number;
  /** What the rider would pay: `estimateFare` − `discount_amount`. */
  payableAmount: number;
  /** Google's encoded polyline (precision 5). */
  polylinePoints: string;
  /** Whether the `promo` sent applies (a code that does not is refused instead). */
  promo_applied: boolean;
  time_in_secs: number;
}

/** The answer of the existence check. */
export interface ExistsAnswer {
  /** The e-mail is taken. */
  email: boolean;
  /** Whether an account already has the e-mail or the mobile. */
  exists: boolean;
  /** The mobile is taken. */
  mobile: boolean;
}

export type FieldKind = 'text' | 'secret';

/** A field of a gateway as the panel shows it. */
export interface FieldView {
  /** Set in `wayfare.toml`: read-only here. */
  inFile: boolean;
  kind: FieldKind;
  /** The original product's name for it (e.g. `KEY_ID`). */
  name: string;
  required: boolean;
  set: boolean;
  /** The value, for text fields only; a secret is never sent. */
  value?: string | null;
}

/**
 * A change of a gateway's settings from the panel: fields left out keep
 * their value; `null` or an empty text clears one.
 */
export interface GatewayEdit {
  active?: boolean | null;
  /** By the gateway's field names (`GET /api/v1/payment-gateways` lists them). */
  fields?: Record<string, string | null>;
  testing?: boolean | null;
}

/** A gateway as the panel shows it. */
export interface GatewayView {
  active: boolean;
  /** `active` is decided by `wayfare.toml`: read-only here. */
  activeInFile: boolean;
  fields: FieldView[];
  /** Has a table in `wayfare.toml`. */
  inFile: boolean;
  /** Required fields not set. */
  missing: string[];
  name: string;
  testing: boolean;
  /** `testing` is decided by `wayfare.toml`: read-only here. */
  testingInFile: boolean;
  updatedAt?: Millis | null;
  updatedBy?: UserId | null;
  /** On: active with every required field set (then offered to payers). */
  usable: boolean;
  /** What to register in the provider's dashboard. */
  webhookUrl: string;
}

export interface Health {
  status: string;
}

/** An offer an active booking holds (`GET /api/v1/dispatch/active`). */
export interface HeldOffer {
  deadline?: Millis | null;
  /** The driver's distance to the pickup now, in km; `null` off the map. */
  distance_km?: number | null;
  driver: UserId;
}

/**
 * The multipart form of an image upload (documentation only: the handler
 * reads the parts itself).
 */
export interface ImageUpload {
  /** The image: PNG, JPEG, GIF or WebP by content. */
  file: string;
}

/** A language and its dictionary (spec §3). */
export interface Language {
  createdAt?: Millis;
  dateLocale: string;
  default: boolean;
  id: LanguageId;
  keyValuePairs: Record<string, string>;
  langLocale: string;
  langName: string;
}

export interface LanguageBody {
  /** The locale dates are shown in; the language's locale when empty. */
  dateLocale?: string;
  /** Adding only: make it the default at once. */
  default?: boolean;
  /** The dictionary: an object of texts, or that object as a JSON string. */
  keyValuePairs: Record<string, unknown>;
  /** e.g. `en`, `ar`, `pt-BR`; required. */
  langLocale: string;
  /** Required. */
  langName: string;
}

/** A language. */
export type LanguageId = string;

/** A point on the map. */
export interface LatLng {
  lat: number;
  lng: number;
}

/** `GET /api/v1/bookings/{id}/ledger`. */
export interface LedgerEntries {
  items: LedgerEntry[];
}

/** A wallet entry a booking made (`routes::mend::ledger`). */
export interface LedgerEntry {
  amount: number;
  date: Millis;
  /** Why an admin moved it (a refund's reason); absent otherwise. */
  description?: string | null;
  role: Role;
  txRef: string;
  type: WalletEntryType;
  user: UserId;
  userName: string;
}

/** One origin-destination pair (`wayfare_maps::Leg`). */
export interface Leg {
  distance_km: number;
  time_secs: number;
}

export interface LocationAccepted {
  lat: number;
  lng: number;
  ok: boolean;
}

/**
 * A position from a driver's device (`wayfare_actors::LocationUpdate`,
 * the same as the socket's `location` event).
 */
export interface LocationUpdate {
  /** Metres. */
  accuracy?: number;
  /** When the device took the fix; the server's clock when absent. */
  at?: Millis;
  /** Degrees clockwise from north. */
  heading?: number;
  lat: number;
  lng: number;
  /** Metres per second. */
  speed?: number;
}

export interface MatrixBody {
  dest: LatLng[];
  start: LatLng[];
}

export interface MatrixResponse {
  /** Rows by origin, columns by destination; `null` where no route joins the pair. */
  rows: (Leg | null)[][];
}

export interface Me {
  user: User;
}

/** A time: milliseconds since the Unix epoch */
export type Millis = number;

/** A broadcast push notification (spec §3). */
export interface Notification {
  body: string;
  createdAt?: Millis;
  devicetype: DeviceTarget;
  id: NotificationId;
  title: string;
  usertype: UserTarget;
}

export interface NotificationBody {
  /** Required, 1 to 2000 characters. */
  body: string;
  devicetype?: DeviceTarget;
  /** Required, 1 to 200 characters. */
  title: string;
  usertype?: UserTarget;
}

/** A broadcast notification. */
export type NotificationId = string;

/** A page of notifications, newest first. */
export interface NotificationPage {
  items: Notification[];
  /** Pass as `after` for the next page; `null` on the last one. */
  next?: string | null;
}

/** The booking otp: a 5-digit number, or `false` when `otp_secure` is off */
export type Otp = number | false;

/**
 * An attachment as the dev outbox lists it: its name, type and size, and
 * its first bytes (so a test can see what it is).
 */
export interface OutboxAttachment {
  content_type: string;
  filename: string;
  /** Bytes. */
  size: number;
  /** The first 8 bytes, as text where they are ASCII (`%PDF-1.7`). */
  starts_with: string;
}

/** A message as the dev outbox lists it. */
export interface OutboxEntry {
  at: Millis;
  attachments: OutboxAttachment[];
  body: string;
  channel: Channel;
  code: string;
  /** The HTML version of the body, when the message has one. */
  html?: string | null;
  subject: string;
  to: string;
}

/** `GET /api/v1/dev/outbox`. */
export interface OutboxMessages {
  /** Newest first. */
  messages: OutboxEntry[];
}

/** A cancellation fee a rider's wallet could not cover (`routes::mend::owed`). */
export interface OwedFee {
  booking: BookingId;
  customer: UserId;
  customer_name: string;
  /** The booking's trip date. */
  date: Millis;
  owed: number;
  reference: string;
}

/** `GET /api/v1/reports/owed`. */
export interface OwedReport {
  fees: OwedFee[];
  /** PENDING bookings, newest trip first. */
  pending: Booking[];
}

/**
 * The two parcel photos of a delivery booking (spec §3, §7 file storage
 * `bookings/{id}/{pickup_image|deliver_image}`).
 */
export type ParcelImage = 'pickup_image' | 'deliver_image';

/** The multipart form of a parcel photo. */
export interface ParcelImageUpload {
  /** The image: PNG, JPEG, GIF or WebP by content. */
  file: string;
  /** Which photo: `pickup_image` or `deliver_image`. */
  kind: ParcelImage;
}

export interface PayBody {
  payment_mode?: PaymentMode | null;
}

export type PaymentMode = 'cash' | 'wallet' | 'card';

/** The card payment made for a prepaid booking (spec §3 "Payment packet"). */
export interface PaymentPacket {
  appcat: AppCategory;
  cardPaymentAmount: number;
  cashPaymentAmount: number;
  customer_paid: number;
  discount_amount: number;
  payableAmount: number;
  payment_mode: PaymentMode;
  promo_applied: boolean;
  promo_details?: PromoDetails | null;
  usedWalletMoney: number;
}

/** A payment gateway shown to riders (spec §3). */
export interface PaymentProvider {
  link: string;
  name: string;
}

/** A pickup, drop or waypoint: coordinates and the address shown to people. */
export interface Place {
  add?: string;
  lat: number;
  lng: number;
}

export interface PlaceBody {
  place_id: string;
}

export interface PlaceResponse {
  address: string;
  coords: LatLng;
  place_id: string;
}

/** A parcel type or option of a car type, with its price (spec §3). */
export interface PricedChoice {
  amount: number;
  description: string;
}

/** A user as one of their managers or they themself see them. */
export interface ProfileAnswer {
  user: User;
}

/** What the profile form sends (spec §7 updateProfile). */
export interface ProfileBody {
  bankAccount?: string | null;
  bankCode?: string | null;
  /**
   * Bank details a withdraw request carries (spec §3), at most 64
   * characters each; empty clears one.
   */
  bankName?: string | null;
  /** Only when the e-mail is not locked (spec §2: locked when `regType` is email, admin or registration). */
  email?: string | null;
  /** Not blank when given (`profile_incomplete`), at most 100 characters. */
  firstName?: string | null;
  lang?: UserLang | null;
  /** Not blank when given (`profile_incomplete`), at most 100 characters. */
  lastName?: string | null;
  /** Only when the phone is not locked (spec §2: locked when `regType` is mobile, admin or registration). */
  mobile?: string | null;
}

/** A promo code (spec §3). */
export interface Promo {
  createdAt?: Millis;
  id: PromoId;
  /** Cap of a percentage discount; zero means no cap. */
  max_promo_discount_value?: number;
  min_order?: number;
  promo_description?: string;
  promo_discount_type: AmountType;
  promo_discount_value: number;
  promo_name: string;
  /** Users that may use it; zero means no limit. */
  promo_usage_limit?: number;
  /** Last moment the promo may be used. */
  promo_validity: Millis;
  /** Users who used it (read-only). */
  user_avail?: number;
}

/**
 * A promo as the admin form sends it; `user_avail` and `createdAt` are the
 * server's and ignored if sent.
 */
export interface PromoBody {
  /** The cap of a percentage discount; 0 for none. */
  max_promo_discount_value?: number;
  min_order?: number;
  promo_description?: string;
  /** `flat` or `percentage`; required. */
  promo_discount_type: AmountType;
  /** Above 0, at most 1000000 (a percentage at most 100); required. */
  promo_discount_value: number;
  /** The code riders type; required. */
  promo_name: string;
  /** How many riders may use it; 0 for no limit. */
  promo_usage_limit?: number;
  /** The last moment the code may be used (ms); required. */
  promo_validity: Millis;
}

/**
 * What was promised by the promo applied at booking, kept on the booking so
 * the final fare can re-apply it without the promo record.
 */
export interface PromoDetails {
  max_promo_discount_value: number;
  promo_discount_type: AmountType;
  promo_discount_value: number;
  promo_name: string;
}

/** A promo. */
export type PromoId = string;

/**
 * `GET /api/v1/settings`: the settings (the dispatch tuning for admins
 * only) and one fact about the server that is not a setting.
 */
export type PublicSettings = Settings & {
  /**
   * True when the server runs the demo city (`--demo`): only then does the
   * driver's console offer to simulate driving. Not a setting: the
   * command line or the configuration decides it, never `PATCH /settings`.
   */
  demoCity: boolean;
};

/** `GET /api/v1/push/config` (`routes::notifications::push_config`). */
export interface PushConfigAnswer {
  /** The push services in use: `expo`, `webpush`. */
  senders: string[];
  /** The VAPID public key (base64url) when Web Push is on. */
  vapidPublicKey?: string | null;
}

export interface PushTokenBody {
  /** An Expo push token, a Web Push subscription as JSON text, or empty to stop push. */
  pushToken?: string;
  userPlatform?: UserPlatform | null;
}

/** A page of the approval queue. */
export interface QueuePage {
  /** The drivers waiting, oldest sign-up first. */
  items: User[];
  next?: string | null;
  /** How many drivers wait in all. */
  total: number;
}

export interface RateBody {
  /** 1 to 5 (`invalid_rating` otherwise); required unless `skip`. */
  rating?: number | null;
  /** True: the rider closes the trip without rating it. */
  skip?: boolean;
}

export interface RatingDetail {
  rate: number;
  user: UserId;
}

/** A driver's ratings: the average to one decimal and who gave what. */
export interface Ratings {
  details?: RatingDetail[];
  userrating: number;
}

export interface ReferralCheck {
  /** The code a friend shared: 5 letters, any case. */
  referralId: string;
}

export interface ReferralValid {
  /** The code as stored (capitals). */
  referralId: string;
  valid: boolean;
}

/** One refund of a booking's money. */
export interface Refund {
  amount: number;
  booking: BookingId;
  created_at: Millis;
  currency: string;
  destination: RefundDestination;
  /** The gateway's id of the refund. */
  gateway_ref?: string | null;
  id: RefundId;
  /** The ledger's key too when the money went to the wallet. */
  idempotency_key: string;
  /** The admin who made it. */
  made_by: UserId;
  /**
   * The gateway payment refunded (a refund through the gateway, or to the
   * wallet of a booking paid by card).
   */
  payment?: string | null;
  reason: string;
  status: RefundStatus;
  /** The payer, who gets the money. */
  user: UserId;
}

/** The body of a refund (`routes::refunds::RefundBody`). */
export interface RefundBody {
  /** Above 0 and at most what is left to refund; rounded to `settings.decimal`. */
  amount: number;
  destination?: RefundDestination | null;
  /** Read only when there is no `Idempotency-Key` header (the older place for it). */
  idempotencyKey?: string | null;
  /** Why; kept on the refund and its ledger entry (`select_proper` when blank). */
  reason: string;
}

/** Where the money goes back to. */
export type RefundDestination = 'gateway' | 'wallet';

/** Whether a booking's money can go back through its gateway. */
export interface RefundGateway {
  /** Paid by card through a gateway. */
  available: boolean;
  /** What may still go back through it (0 when not available). */
  refundable: number;
}

/** A refund of a booking's money (issue #37). */
export type RefundId = string;

/** `POST /api/v1/bookings/{id}/refund` (`routes::refunds::refund`). */
export interface RefundMade {
  /** False when the key had refunded before: nothing changed. */
  applied: boolean;
  /** The booking as it now is. */
  booking: Booking;
  refund: Refund;
  totals: RefundTotals;
}

/**
 * How a refund ended. A wallet refund is done or refused; a gateway refund
 * the gateway declined is kept as `failed`, and a retry with the same key
 * may still make it `done`.
 */
export type RefundStatus = 'done' | 'failed';

/**
 * The money a booking's refunds page shows: what was paid, refunded, and
 * what is left.
 */
export interface RefundTotals {
  paid: number;
  refundable: number;
  refunded: number;
}

/** How the account was made (spec §3); it decides which profile fields lock. */
export type RegType = 'email' | 'mobile' | 'social' | 'admin' | 'registration';

export interface RejectBody {
  /** What the driver is told: not blank, at most 500 characters. */
  reason?: string | null;
}

/** The drivers the booking is offered to: driver id → `true` */
export type RequestedDrivers = Record<string, true>;

export interface ResolveBody {
  /** What was done: required, 1 to 2000 characters. */
  note: string;
}

/** The four user types of spec §1. */
export type Role = 'rider' | 'driver' | 'fleetadmin' | 'admin';

/** An address the rider went to, counted so the most used come first. */
export interface SavedAddress {
  count: number;
  description: string;
  lat: number;
  lng: number;
}

/** `POST /api/v1/notifications` (`routes::notifications::send`). */
export type SentNotification = Notification & {
  /** How many users it was delivered to (in the app; by push too when they have a token). */
  recipients: number;
};

/** The platform settings, one row (spec §3), plus the dispatch knobs we added. */
export interface Settings {
  AllowCountrySelection?: boolean;
  /** False is demo mode: writes refused, contact data masked. */
  AllowCriticalEditsAdmin?: boolean;
  AllowDeliveryPickupImageCapture?: boolean;
  AllowFinalDeliveryImageCapture?: boolean;
  /** Sign-in with Apple (ours, as `FacebookLoginEnabled`). */
  AppleLoginEnabled?: boolean;
  AppleStoreLink?: string;
  CarHornRepeat?: boolean;
  CompanyAddress?: string;
  CompanyName?: string;
  CompanyPhone?: string;
  CompanyTerms?: string;
  CompanyWebsite?: string;
  FacebookHandle?: string;
  /**
   * Sign-in with Facebook (spec §3); like the two below, it shows only
   * when the server has the provider's client id and secret (issue #37).
   */
  FacebookLoginEnabled?: boolean;
  /** Sign-in with Google (ours, as `FacebookLoginEnabled`). */
  GoogleLoginEnabled?: boolean;
  InstagramHandle?: string;
  PlayStoreLink?: string;
  RiderWithDraw?: boolean;
  TwitterHandle?: string;
  appName?: string;
  appcat?: AppCategory;
  /**
   * Minutes after payment a booking its rider did not rate completes by
   * itself (1 to 10080).
   */
  autoCompleteMinutes?: number;
  autoDispatch?: boolean;
  bank_fields?: boolean;
  /** Referral bonus credited to both users (0 to 1000000). */
  bonus?: number;
  /** Currency code, e.g. USD. */
  code?: string;
  contact_email?: string;
  convert_to_mile?: boolean;
  country?: string;
  /** Decimal places of every amount. */
  decimal?: number;
  /**
   * The `batch` policy's window: how long bookings and drivers are
   * gathered before they are matched, in seconds (1 to 60).
   */
  dispatchBatchSeconds?: number;
  /** Waves tried before the booking waits for manual assignment or a retry (1 to 100). */
  dispatchMaxWaves?: number;
  /** How long a driver has to answer an offer, in seconds (5 to 3600). */
  dispatchOfferSeconds?: number;
  dispatchPolicy?: DispatchPolicy;
  /** How much each wave after the first widens the radius, in the radius' unit. */
  dispatchRadiusStep?: number;
  /** Drivers offered at once in a wave (1 to 100). */
  dispatchWaveSize?: number;
  /**
   * The documents a driver must upload and have approved to go online
   * (issue #33): `licence`, `registration`, `insurance`, `photo`.
   */
  driverDocuments?: DocumentKind[];
  /** Dispatch radius, in km (miles when `convert_to_mile`). */
  driverRadius?: number;
  driver_approval?: boolean;
  horizontal_view?: boolean;
  /**
   * The living demo (issue #35): demo drivers and riders played by the
   * simulator's people against this server. Only a `--demo` server plays
   * them; elsewhere the switch does nothing.
   */
  livingDemo?: boolean;
  /** How many bookings an hour the living demo's riders make (0 to 600). */
  livingDemoBookingsPerHour?: number;
  /** Whether a wallet may go below zero when paying. */
  negativeBalance?: boolean;
  /**
   * Minutes a Book Now booking looks for a driver before the system
   * cancels it, `no_driver_available` (1 to 1440; issue #34).
   */
  noDriverCancelMinutes?: number;
  otp_secure?: boolean;
  /** Panic (emergency) phone number. */
  panic?: string;
  restrictCountry?: string;
  showLiveRoute?: boolean;
  /** True puts the symbol after the amount. */
  swipe_symbol?: boolean;
  symbol?: string;
  /**
   * Prices include the tax. Always true for now: a tax added on top would
   * have to be charged by the fare rules, which do not (docs/operations.md).
   */
  taxIncluded?: boolean;
  /** The tax receipts name, e.g. `VAT` (issue #37). */
  taxName?: string;
  /** The company's tax number, printed on receipts and statements. */
  taxNumber?: string;
  /**
   * The tax rate in percent, 0 to 100; 0 shows no tax on receipts.
   * Display only: fares already include it, and a receipt shows the
   * part of the total that is tax ("of which VAT 20%").
   */
  taxRate?: number;
  useDistanceMatrix?: boolean;
  /** Quick amounts offered when topping up, comma separated. */
  walletMoneyField?: string;
}

export interface SettleBody {
  /**
   * `card`: marked paid (paid outside the app, gateway `manual`);
   * `cash`: settled in cash with the driver.
   */
  mode: PaymentMode;
}

export interface SignedIn {
  token: string;
  user: User;
}

export interface SignedOut {
  signedOut: boolean;
}

/** What the sign-up form sends besides the contact and the code. */
export interface SignupFields {
  /** A car type's name (drivers). */
  carType?: string;
  email?: string | null;
  firstName?: string;
  lastName?: string;
  /** `driver` or `rider`. */
  usertype?: string;
  vehicleColor?: string;
  vehicleMake?: string;
  vehicleModel?: string;
  vehicleNumber?: string;
  /** Four digits. */
  vehicleYear?: string;
}

/**
 * The sign-up form: the contact and its one-time code (asked for with
 * `POST /api/v1/auth/otp/request`), who the person is and, for a driver,
 * the vehicle.
 */
export type SignupRequest = SignupFields & {
  /** The 6-digit code. */
  code: string;
  /** An e-mail address or a phone number in international form. */
  contact: string;
  /** A fleet admin's referral code: the driver joins that fleet. */
  fleetCode?: string | null;
  /** A friend's referral code: the referral bonus to both. */
  referralId?: string | null;
};

export interface SocialProviders {
  /**
   * `google`, `apple`, `facebook`: switched on in the settings and
   * configured on the server, in this order.
   */
  providers: string[];
}

/**
 * One alert: who raised it on which booking, where and when, and who
 * handled it.
 */
export interface SosAlert {
  booking: BookingId;
  created_at: Millis;
  fleetadmin?: UserId | null;
  id: SosId;
  lat: number;
  lng: number;
  note?: string;
  raised_by: UserId;
  raised_by_name: string;
  raised_by_role: SosRaiser;
  /** The booking's reference, as people read it. */
  reference: string;
  resolved_at?: Millis | null;
  resolved_by?: UserId | null;
  resolved_by_name?: string;
  taken_at?: Millis | null;
  taken_by?: UserId | null;
  taken_by_name?: string;
}

/** An SOS alert as the routes and the socket's `sos` event show it. */
export type SosAlertShown = SosAlert & {
  /** `open` (nobody took it: the banners show it), `taken` or `resolved`. */
  state: SosState;
};

export interface SosBody {
  /** Where the caller is now (the phone's position), -90 to 90. */
  lat: number;
  /** -180 to 180. */
  lng: number;
}

/** An SOS alert. */
export type SosId = string;

/** `GET /api/v1/sos` (`routes::sos::list`). */
export interface SosPage {
  /** Unresolved first, then newest first. */
  items: SosAlertShown[];
  /** Pass as `after` for the next page; `null` on the last one. */
  next?: string | null;
}

/** `POST /api/v1/bookings/{id}/sos` (`routes::sos::raise`). */
export interface SosRaised {
  alert: SosAlertShown;
  /** The `panic` number of the settings, for a `tel:` link; empty when none is set. */
  panic: string;
}

/** Which party of the trip raised the alert. */
export type SosRaiser = 'rider' | 'driver';

/**
 * Where an alert is: `open` until someone takes it (the banners show it),
 * `taken` while someone handles it, `resolved` once closed with a note.
 */
export type SosState = 'open' | 'taken' | 'resolved';

export interface StartBody {
  otp?: number | null;
}

/** What a week comes to (see the module's rules). */
export interface StatementTotals {
  balance: number;
  cancellation_fee: number;
  card_paid: number;
  cash_collected: number;
  convenience_fees: number;
  discount_amount: number;
  driver_share: number;
  earnings: number;
  rides: number;
  trip_cost: number;
  wallet_paid: number;
}

/** A week a driver has a statement for. */
export interface StatementWeek {
  /** Its first instant (Monday 00:00 in the reporting offset). */
  from: number;
  /** What the week comes to, as its statement says. */
  totals: StatementTotals;
  /** The next week's first instant. */
  until: number;
  /** `YYYY-Www`. */
  week: string;
}

export interface StatementWeeks {
  /** Newest first. */
  weeks: StatementWeek[];
}

export interface StatusBody {
  driverActiveStatus: boolean;
  location?: LocationUpdate | null;
}

/** A stored chat message (`wayfare_storage::StoredChat`). */
export type StoredChatMessage = ChatMessage & {
  id: string;
  read_at?: Millis | null;
};

/** An area an idle driver is pointed to. */
export interface SuggestedArea {
  /** The cell's outline as a closed ring of `[lng, lat]`, GeoJSON's order. */
  boundary: number[][];
  /** The H3 index, as H3 writes it. */
  cell: string;
  center: LatLng;
  /** Straight-line distance from the driver. */
  distanceKm: number;
  /** Riders expected there in the next hour. */
  expectedPerHour: number;
}

export interface SuggestedAreaResponse {
  area?: SuggestedArea | null;
}

/** One autocomplete answer (`wayfare_maps::Suggestion`). */
export interface Suggestion {
  description: string;
  main_text: string;
  /** Pass to `/api/v1/geo/place`. */
  place_id: string;
  secondary_text: string;
}

export interface TestSettleForm {
  /** `pay` or `fail`. */
  action: string;
}

export interface Timer {
  at: Millis;
  /** Matches the message the scheduler will send; an older one is stale. */
  generation: number;
}

/** A deadline per timer kind; the next wake-up is the earliest. */
export interface Timers {
  auto_cancel?: Timer | null;
  auto_complete?: Timer | null;
  book_later_dispatch?: Timer | null;
  dispatch_retry?: Timer | null;
  /** Bumped on every set, so each timer ever set has its own generation. */
  generation: number;
  offer_expiry?: Timer | null;
  payment_reminder?: Timer | null;
}

/** A stored position of a booking's driver (spec §3). */
export interface TrackingPoint {
  at: Millis;
  lat: number;
  lng: number;
  status: BookingStatus;
}

export interface TrackingResponse {
  latest?: TrackingPoint | null;
  /** In time order. */
  points: TrackingPoint[];
}

export interface TripBody {
  /** The name of a car type (`GET /api/v1/cartypes`); required. */
  carType: string;
  /** Required: without it (or without its `lat` and `lng`) the answer is `select_proper`. */
  drop: Place;
  optionIndex?: number | null;
  parcelTypeIndex?: number | null;
  /** Required: without it (or without its `lat` and `lng`) the answer is `select_proper`. */
  pickup: Place;
  waypoints?: Place[];
}

/** A user of any role (spec §3). Driver-only fields are empty for others. */
export interface User {
  approved?: boolean;
  bankAccount?: string;
  bankCode?: string;
  bankName?: string;
  /** The car type name a driver drives. */
  carType?: string | null;
  createdAt: Millis;
  /**
   * Played by the living demo (issue #35): a demo driver or rider of a
   * `--demo` server. Their bookings are marked `demo`.
   */
  demo?: boolean;
  driverActiveStatus?: boolean;
  email?: string;
  firstName?: string;
  fleetadmin?: UserId | null;
  id: UserId;
  lang?: UserLang | null;
  lastName?: string;
  licenseImage?: string | null;
  location?: LatLng | null;
  mobile?: string;
  other_info?: string;
  profile_image?: string | null;
  pushToken?: string | null;
  /** Busy with a trip. */
  queue?: boolean;
  ratings?: Ratings | null;
  referralId?: string;
  regType?: RegType;
  savedAddresses?: SavedAddress[];
  /** The referral code used at sign-up, if any. */
  signupViaReferral?: string | null;
  userPlatform?: UserPlatform;
  usertype: Role;
  vehicleColor?: string;
  vehicleMake?: string;
  vehicleModel?: string;
  vehicleNumber?: string;
  /** Four digits, e.g. "2019". */
  vehicleYear?: string;
  walletBalance?: number;
}

/** A user of any role. */
export type UserId = string;

export interface UserLang {
  dateLocale: string;
  langLocale: string;
}

/** A page of users as the caller may see them. */
export interface UserPage {
  /**
   * Newest first. No push tokens; in demo mode other people's e-mail and
   * mobile are masked.
   */
  items: User[];
  /** Pass as `after` for the next page; `null` on the last one. */
  next?: string | null;
}

/** The user's platform, for push. */
export type UserPlatform = 'IOS' | 'ANDROID' | 'WEB';

export type UserTarget = 'All' | 'rider' | 'driver';

export interface VerifyRequest {
  /** The 6-digit code. */
  code: string;
  contact: string;
  /** A referral code given at first sign-in. */
  referralId?: string | null;
}

/** The body of an admin adjustment (`routes::wallet::AdjustBody`). */
export interface WalletAdjustBody {
  /**
   * The balance the wallet should hold, a number or numeric text;
   * rounded to `settings.decimal`. Below 0 only with `negativeBalance`.
   */
  balance: number;
  /** Why; kept on the ledger entry (`select_proper` when blank). */
  reason: string;
}

/**
 * `POST /api/v1/users/{id}/wallet/credit`, `/debit` and `/adjust`
 * (`routes::wallet`).
 */
export interface WalletCredited {
  /** False when the `Idempotency-Key` had been used: nothing changed. */
  applied: boolean;
  user: UserId;
  /** The balance now. */
  walletBalance: number;
}

/** The body of an admin debit (`routes::wallet::ReasonedAmountBody`). */
export interface WalletDebitBody {
  /**
   * A number above 0 and at most 1000000, or numeric text; rounded to
   * `settings.decimal`.
   */
  amount: number;
  /** Why; kept on the ledger entry (`select_proper` when blank). */
  reason: string;
}

/** One wallet history entry (spec §3). */
export interface WalletEntry {
  amount: number;
  date: Millis;
  /**
   * Why an admin moved the money (a refund, a debit, an adjustment);
   * absent on the entries bookings and payments make.
   */
  description?: string | null;
  txRef: string;
  type: WalletEntryType;
}

/**
 * Credit or debit. The spec's second reading calls a debit for a withdraw
 * `Withdraw`; it stays a debit of the ledger with its own type.
 */
export type WalletEntryType = 'Credit' | 'Debit' | 'Withdraw';

/** A wallet ledger entry (`wayfare_storage::WalletRecord`). */
export type WalletRecord = WalletEntry & {
  /** Makes each change happen once (e.g. `booking:{id}:driver_share`). */
  idempotency_key: string;
};

export interface WalletResponse {
  /** Pass as `after` for the next page; `null` on the last one. */
  next?: string | null;
  walletBalance: number;
  /** Newest first. */
  walletHistory: WalletRecord[];
}

/** What the webhook answers the provider. */
export interface WebhookAnswer {
  received: boolean;
  /** Whether this notification settled a payment (false for replays and other events). */
  settled: boolean;
}

/** `POST /api/v1/withdraws` (`routes::withdraws::create`). */
export interface WithdrawCreated {
  /** The balance after the debit. */
  walletBalance: number;
  withdraw: WithdrawRequest;
}

/** A withdraw request. */
export type WithdrawId = string;

/** `GET /api/v1/withdraws` (`routes::withdraws::list`). */
export interface WithdrawPage {
  /** Newest first. */
  items: WithdrawRequest[];
  /** Pass as `after` for the next page; `null` on the last one. */
  next?: string | null;
}

/** A request to pay out wallet money (spec §3). */
export interface WithdrawRequest {
  amount: number;
  bankAccount?: string;
  bankCode?: string;
  bankName?: string;
  date: Millis;
  id: WithdrawId;
  name: string;
  procesDate?: Millis | null;
  processed: boolean;
  uid: UserId;
}

// ---- the names the app reads these schemas by

export type Directions = DirectionsResponse;
export type Estimate = EstimateResponse;
export type FareBreakdown = Breakdown;
export type PlaceSuggestion = Suggestion;
export type Tracking = TrackingResponse;
export type Wallet = WalletResponse;
