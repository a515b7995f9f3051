//! Shapes of answers the handlers build as JSON values, and of types from
//! crates that do not derive schemas (storage, actors, maps), written out
//! for the document only. Each mirrors the code named in its comment; the
//! tests in `super::tests` compare real answers with these.

#![allow(non_snake_case, dead_code)]

use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;
use wayfare_engine::{
    Booking, ChatMessage, Coord, EarningsReportRow, EarningsRow, LatLng, Millis, TrackingPoint, WalletEntry,
    WithdrawRequest,
};

/// Every refusal: an HTTP status and this body (`crate::error::ApiError`).
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"error": {"code": "booking_taken", "message": "This booking was taken by another driver"}}))]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Serialize, ToSchema)]
pub struct ErrorDetail {
    /// A translation key (see the `ErrorKey` schema), or `internal_error` /
    /// `unavailable` for a 5xx.
    #[schema(example = "select_proper")]
    pub code: String,
    /// The text of the key in English.
    pub message: String,
    /// The input field that was wrong, when one was.
    #[schema(nullable = false)]
    pub field: Option<String>,
}

/// `POST /api/v1/bookings/estimate` (`routes::bookings::create::estimate`).
#[derive(Serialize, ToSchema)]
pub struct EstimateResponse {
    /// The fare a booking would be quoted: trip cost plus convenience fee.
    pub estimateFare: Decimal,
    pub convenience_fees: Decimal,
    pub distance_in_km: f64,
    pub time_in_secs: u64,
    /// Google's encoded polyline (precision 5).
    pub polylinePoints: String,
    /// How the fare is made: each part rounded to `settings.decimal`, adding
    /// up to `payableAmount` (`wayfare_engine::fare::breakdown`).
    pub breakdown: wayfare_engine::fare::Breakdown,
    /// Whether the `promo` sent applies (a code that does not is refused instead).
    pub promo_applied: bool,
    /// The promo's discount off `estimateFare` (0 without one).
    pub discount_amount: Decimal,
    /// What the rider would pay: `estimateFare` − `discount_amount`.
    pub payableAmount: Decimal,
    /// The driver's share of the fare; admins only.
    #[schema(nullable = false)]
    pub driver_share: Option<Decimal>,
}

/// `sort` of `GET /api/v1/bookings` (`wayfare_storage::BookingSort`).
#[derive(Serialize, ToSchema)]
pub enum BookingSortParam {
    #[serde(rename = "tripdate")]
    Tripdate,
    #[serde(rename = "bookingDate")]
    BookingDate,
    #[serde(rename = "reference")]
    Reference,
    #[serde(rename = "status")]
    Status,
    #[serde(rename = "customer_name")]
    CustomerName,
    #[serde(rename = "driver_name")]
    DriverName,
    #[serde(rename = "carType")]
    CarType,
    #[serde(rename = "trip_cost")]
    TripCost,
}

/// `order` of `GET /api/v1/bookings` (`wayfare_storage::SortOrder`).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SortOrderParam {
    Desc,
    Asc,
}

/// A page of bookings, newest first unless sorted otherwise.
#[derive(Serialize, ToSchema)]
pub struct BookingPage {
    /// Bookings as the caller may see them: riders get no `driver_share` or
    /// `convenience_fees`; push tokens are never shown; in demo mode other
    /// people's contact data is masked.
    pub items: Vec<Booking>,
    /// Pass as `after` for the next page; `null` on the last one.
    pub next: Option<String>,
}

/// The bookings offered to the calling driver.
#[derive(Serialize, ToSchema)]
pub struct BookingItems {
    pub items: Vec<Booking>,
}

/// A stored chat message (`wayfare_storage::StoredChat`).
#[derive(Serialize, ToSchema)]
pub struct StoredChatMessage {
    pub id: uuid::Uuid,
    #[serde(flatten)]
    pub message: ChatMessage,
    /// When the other party read it.
    pub read_at: Option<Millis>,
}

#[derive(Serialize, ToSchema)]
pub struct ChatMessages {
    /// In time order.
    pub messages: Vec<StoredChatMessage>,
}

#[derive(Serialize, ToSchema)]
pub struct TrackingResponse {
    /// The newest point, `null` before the first.
    pub latest: Option<TrackingPoint>,
    /// In time order.
    pub points: Vec<TrackingPoint>,
}

/// One dispatch log entry (`wayfare_engine::dispatch::DispatchEntry`), as
/// the socket's `dispatch` event and the timeline carry it. Which fields are
/// there depends on `kind`.
#[derive(Serialize, ToSchema)]
pub struct DispatchEntry {
    pub at: Millis,
    pub booking: wayfare_engine::BookingId,
    /// The booking's car type.
    pub car_type: String,
    /// `offered`, `withdrawn`, `accepted`, `no_candidates`, `exhausted` or `cancelled`.
    pub kind: String,
    /// `offered`, `no_candidates`: the wave's number.
    pub wave: Option<u32>,
    /// `offered`, `withdrawn`: the drivers.
    pub drivers: Option<Vec<wayfare_engine::UserId>>,
    /// `offered`: each driver's distance to the pickup when offered, in km
    /// (`null` when not known, as for an admin's assignment).
    pub distances_km: Option<Vec<Option<f64>>>,
    /// `offered`: when the offers lapse (`null` under broadcast).
    pub deadline: Option<Millis>,
    /// `withdrawn`: `taken`, `declined`, `expired` or `cancelled`.
    pub reason: Option<String>,
    /// `accepted`: the driver.
    pub driver: Option<wayfare_engine::UserId>,
}

#[derive(Serialize, ToSchema)]
pub struct DispatchTimeline {
    /// Oldest first.
    pub items: Vec<DispatchEntry>,
}

/// An offer an active booking holds (`GET /api/v1/dispatch/active`).
#[derive(Serialize, ToSchema)]
pub struct HeldOffer {
    pub driver: wayfare_engine::UserId,
    /// When it lapses; `null` for a broadcast or an admin's assignment.
    pub deadline: Option<Millis>,
    /// The driver's distance to the pickup now, in km; `null` off the map.
    pub distance_km: Option<f64>,
}

/// An active booking as the console starts from it.
#[derive(Serialize, ToSchema)]
pub struct ActiveBooking {
    #[serde(flatten)]
    pub booking: Booking,
    pub offered: Vec<HeldOffer>,
}

#[derive(Serialize, ToSchema)]
pub struct ActiveBookings {
    pub items: Vec<ActiveBooking>,
}

/// What a driver's app is sent by `POST /api/v1/drivers/{id}/message`.
#[derive(Serialize, ToSchema)]
pub struct DriverMessage {
    /// Always `message`.
    pub key: String,
    /// `notification_title` in the driver's language.
    pub title: String,
    pub body: String,
    /// Who sent it.
    pub from: wayfare_engine::UserId,
    pub createdAt: Millis,
}

/// A wallet ledger entry (`wayfare_storage::WalletRecord`).
#[derive(Serialize, ToSchema)]
pub struct WalletRecord {
    #[serde(flatten)]
    pub entry: WalletEntry,
    /// Makes each change happen once (e.g. `booking:{id}:driver_share`).
    pub idempotency_key: String,
}

#[derive(Serialize, ToSchema)]
pub struct WalletResponse {
    pub walletBalance: Decimal,
    /// Newest first.
    pub walletHistory: Vec<WalletRecord>,
    /// Pass as `after` for the next page; `null` on the last one.
    pub next: Option<String>,
}

// ---- money: wallet credit, withdraws, reports

/// The body of an admin credit or a withdraw request
/// (`routes::wallet::AmountBody`).
#[derive(Serialize, ToSchema)]
pub struct AmountBody {
    /// A number above 0 and at most 1000000, or numeric text such as
    /// `"12.50"`; rounded to `settings.decimal`.
    #[schema(value_type = f64, example = 12.5, exclusive_minimum = 0, maximum = 1000000)]
    pub amount: Decimal,
}

/// `POST /api/v1/users/{id}/wallet/credit`, `/debit` and `/adjust`
/// (`routes::wallet`).
#[derive(Serialize, ToSchema)]
pub struct WalletCredited {
    pub user: wayfare_engine::UserId,
    /// The balance now.
    pub walletBalance: Decimal,
    /// False when the `Idempotency-Key` had been used: nothing changed.
    pub applied: bool,
}

/// The body of an admin debit (`routes::wallet::ReasonedAmountBody`).
#[derive(Serialize, ToSchema)]
pub struct WalletDebitBody {
    /// A number above 0 and at most 1000000, or numeric text; rounded to
    /// `settings.decimal`.
    #[schema(value_type = f64, example = 12.5, exclusive_minimum = 0, maximum = 1000000)]
    pub amount: Decimal,
    /// Why; kept on the ledger entry (`select_proper` when blank).
    #[schema(min_length = 1, max_length = 500)]
    pub reason: String,
}

/// The body of an admin adjustment (`routes::wallet::AdjustBody`).
#[derive(Serialize, ToSchema)]
pub struct WalletAdjustBody {
    /// The balance the wallet should hold, a number or numeric text;
    /// rounded to `settings.decimal`. Below 0 only with `negativeBalance`.
    #[schema(value_type = f64, example = 40)]
    pub balance: Decimal,
    /// Why; kept on the ledger entry (`select_proper` when blank).
    #[schema(min_length = 1, max_length = 500)]
    pub reason: String,
}

/// The body of a refund (`routes::refunds::RefundBody`).
#[derive(Serialize, ToSchema)]
pub struct RefundBody {
    /// Above 0 and at most what is left to refund; rounded to `settings.decimal`.
    #[schema(value_type = f64, example = 4.5, exclusive_minimum = 0)]
    pub amount: Decimal,
    /// `wallet` when absent.
    pub destination: Option<wayfare_engine::refund::RefundDestination>,
    /// Why; kept on the refund and its ledger entry (`select_proper` when blank).
    #[schema(min_length = 1, max_length = 500)]
    pub reason: String,
    /// Read only when there is no `Idempotency-Key` header (the older place for it).
    #[schema(min_length = 1, max_length = 128)]
    pub idempotencyKey: Option<String>,
}

/// `POST /api/v1/bookings/{id}/refund` (`routes::refunds::refund`).
#[derive(Serialize, ToSchema)]
pub struct RefundMade {
    pub refund: wayfare_engine::refund::Refund,
    /// False when the key had refunded before: nothing changed.
    pub applied: bool,
    /// The booking as it now is.
    pub booking: Booking,
    pub totals: wayfare_engine::refund::RefundTotals,
}

/// Whether a booking's money can go back through its gateway.
#[derive(Serialize, ToSchema)]
pub struct RefundGateway {
    /// Paid by card through a gateway.
    pub available: bool,
    /// What may still go back through it (0 when not available).
    pub refundable: Decimal,
}

/// `GET /api/v1/bookings/{id}/refunds` (`routes::refunds::refunds`).
#[derive(Serialize, ToSchema)]
pub struct BookingRefunds {
    /// Oldest first, done and failed.
    pub items: Vec<wayfare_engine::refund::Refund>,
    pub totals: wayfare_engine::refund::RefundTotals,
    pub gateway: RefundGateway,
}

/// `POST /api/v1/withdraws` (`routes::withdraws::create`).
#[derive(Serialize, ToSchema)]
pub struct WithdrawCreated {
    pub withdraw: WithdrawRequest,
    /// The balance after the debit.
    pub walletBalance: Decimal,
}

/// `GET /api/v1/withdraws` (`routes::withdraws::list`).
#[derive(Serialize, ToSchema)]
pub struct WithdrawPage {
    /// Newest first.
    pub items: Vec<WithdrawRequest>,
    /// Pass as `after` for the next page; `null` on the last one.
    pub next: Option<String>,
}

/// `GET /api/v1/reports/earnings` (`routes::reports`).
#[derive(Serialize, ToSchema)]
pub struct EarningsReport {
    /// Newest month first, then by driver name; with `limit`, one page
    /// newest month first, then by driver id.
    pub rows: Vec<EarningsReportRow>,
    /// With `limit`: the cursor of the next page (`after`), null on the last.
    pub next: Option<String>,
}

/// `GET /api/v1/reports/driver-earnings` (`routes::reports`).
#[derive(Serialize, ToSchema)]
pub struct DriverEarnings {
    /// Newest month first, then by driver name; with `limit`, one page
    /// newest month first, then by driver id.
    pub rows: Vec<EarningsRow>,
    /// With `limit`: the cursor of the next page (`after`), null on the last.
    pub next: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct DriverStatusResponse {
    pub driverActiveStatus: bool,
}

#[derive(Serialize, ToSchema)]
pub struct SuggestedAreaResponse {
    pub area: Option<wayfare_engine::reposition::SuggestedArea>,
}

/// `GET /api/v1/settings`: the settings (the dispatch tuning for admins
/// only) and one fact about the server that is not a setting.
#[derive(Serialize, ToSchema)]
pub struct PublicSettings {
    #[serde(flatten)]
    pub settings: wayfare_engine::Settings,
    /// True when the server runs the demo city (`--demo`): only then does the
    /// driver's console offer to simulate driving. Not a setting: the
    /// command line or the configuration decides it, never `PATCH /settings`.
    pub demoCity: bool,
}

/// A position from a driver's device (`wayfare_actors::LocationUpdate`,
/// the same as the socket's `location` event).
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"lat": 39.2904, "lng": -76.6122, "heading": 90, "speed": 8.5, "accuracy": 5, "at": 1767225600000_i64}))]
pub struct LocationUpdate {
    #[schema(minimum = -90, maximum = 90)]
    pub lat: f64,
    #[schema(minimum = -180, maximum = 180)]
    pub lng: f64,
    /// Degrees clockwise from north.
    #[schema(nullable = false)]
    pub heading: Option<f64>,
    /// Metres per second.
    #[schema(nullable = false)]
    pub speed: Option<f64>,
    /// Metres.
    #[schema(nullable = false)]
    pub accuracy: Option<f64>,
    /// When the device took the fix; the server's clock when absent.
    #[schema(nullable = false)]
    pub at: Option<Millis>,
}

#[derive(Serialize, ToSchema)]
pub struct LocationAccepted {
    pub ok: bool,
    pub lat: f64,
    pub lng: f64,
}

/// `GET /api/v1/dev/outbox`.
#[derive(Serialize, ToSchema)]
pub struct OutboxMessages {
    /// Newest first.
    pub messages: Vec<crate::auth::OutboxEntry>,
}

#[derive(Serialize, ToSchema)]
pub struct SignedOut {
    pub signedOut: bool,
}

/// One autocomplete answer (`wayfare_maps::Suggestion`).
#[derive(Serialize, ToSchema)]
pub struct Suggestion {
    /// Pass to `/api/v1/geo/place`.
    pub place_id: String,
    pub description: String,
    pub main_text: String,
    pub secondary_text: String,
}

#[derive(Serialize, ToSchema)]
pub struct AutocompleteResponse {
    pub searchResults: Vec<Suggestion>,
}

#[derive(Serialize, ToSchema)]
pub struct PlaceResponse {
    pub coords: LatLng,
    pub address: String,
    pub place_id: String,
}

#[derive(Serialize, ToSchema)]
pub struct AddressResponse {
    pub address: String,
}

#[derive(Serialize, ToSchema)]
pub struct DirectionsResponse {
    pub distance_in_km: f64,
    pub time_in_secs: u64,
    /// Google's encoded polyline (precision 5).
    pub polylinePoints: String,
    pub coords: Vec<Coord>,
}

/// One origin-destination pair (`wayfare_maps::Leg`).
#[derive(Serialize, ToSchema)]
pub struct Leg {
    pub distance_km: f64,
    pub time_secs: u64,
}

#[derive(Serialize, ToSchema)]
pub struct MatrixResponse {
    /// Rows by origin, columns by destination; `null` where no route joins the pair.
    pub rows: Vec<Vec<Option<Leg>>>,
}

#[derive(Serialize, ToSchema)]
pub struct Health {
    #[schema(example = "ok")]
    pub status: String,
}

// ---- promos, notifications, languages ------------------------------------------

/// `POST /api/v1/notifications` (`routes::notifications::send`).
#[derive(Serialize, ToSchema)]
pub struct SentNotification {
    #[serde(flatten)]
    pub notification: wayfare_engine::Notification,
    /// How many users it was delivered to (in the app; by push too when they have a token).
    pub recipients: u64,
}

/// A page of notifications, newest first.
#[derive(Serialize, ToSchema)]
pub struct NotificationPage {
    pub items: Vec<wayfare_engine::Notification>,
    /// Pass as `after` for the next page; `null` on the last one.
    pub next: Option<String>,
}

/// `GET /api/v1/push/config` (`routes::notifications::push_config`).
#[derive(Serialize, ToSchema)]
pub struct PushConfigAnswer {
    /// The push services in use: `expo`, `webpush`.
    pub senders: Vec<String>,
    /// The VAPID public key (base64url) when Web Push is on.
    pub vapidPublicKey: Option<String>,
}

// ---- SOS (issue 33)

/// An SOS alert as the routes and the socket's `sos` event show it.
#[derive(Serialize, ToSchema)]
pub struct SosAlertShown {
    #[serde(flatten)]
    pub alert: wayfare_engine::sos::SosAlert,
    /// `open` (nobody took it: the banners show it), `taken` or `resolved`.
    pub state: wayfare_engine::sos::SosState,
}

/// `POST /api/v1/bookings/{id}/sos` (`routes::sos::raise`).
#[derive(Serialize, ToSchema)]
pub struct SosRaised {
    pub alert: SosAlertShown,
    /// The `panic` number of the settings, for a `tel:` link; empty when none is set.
    pub panic: String,
}

/// `GET /api/v1/sos` (`routes::sos::list`).
#[derive(Serialize, ToSchema)]
pub struct SosPage {
    /// Unresolved first, then newest first.
    pub items: Vec<SosAlertShown>,
    /// Pass as `after` for the next page; `null` on the last one.
    pub next: Option<String>,
}

/// A wallet entry a booking made (`routes::mend::ledger`).
#[derive(Serialize, ToSchema)]
pub struct LedgerEntry {
    pub user: wayfare_engine::UserId,
    pub userName: String,
    pub role: wayfare_engine::Role,
    #[serde(rename = "type")]
    pub entry_type: wayfare_engine::WalletEntryType,
    pub amount: Decimal,
    pub date: Millis,
    pub txRef: String,
    /// Why an admin moved it (a refund's reason); absent otherwise.
    pub description: Option<String>,
}

/// `GET /api/v1/bookings/{id}/ledger`.
#[derive(Serialize, ToSchema)]
pub struct LedgerEntries {
    pub items: Vec<LedgerEntry>,
}

/// A cancellation fee a rider's wallet could not cover (`routes::mend::owed`).
#[derive(Serialize, ToSchema)]
pub struct OwedFee {
    pub booking: wayfare_engine::BookingId,
    pub reference: String,
    pub customer: wayfare_engine::UserId,
    pub customer_name: String,
    pub owed: Decimal,
    /// The booking's trip date.
    pub date: Millis,
}

/// `GET /api/v1/reports/owed`.
#[derive(Serialize, ToSchema)]
pub struct OwedReport {
    /// PENDING bookings, newest trip first.
    pub pending: Vec<Booking>,
    pub fees: Vec<OwedFee>,
}
