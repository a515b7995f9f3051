//! Queries, pages and records that exist only in storage.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use wayfare_engine::{Booking, BookingId, BookingStatus, ChatMessage, Millis, Role, UserId, UserPlatform, WalletEntry};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Keyset pagination: `after` is the cursor of the last row of the previous
/// page, so every page costs an index seek, however deep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRequest {
    pub limit: u32,
    pub after: Option<String>,
}

impl PageRequest {
    pub const MAX_LIMIT: u32 = 500;

    pub fn first(limit: u32) -> Self {
        PageRequest { limit: limit.clamp(1, Self::MAX_LIMIT), after: None }
    }

    pub fn limit(&self) -> u32 {
        self.limit.clamp(1, Self::MAX_LIMIT)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// The cursor of the next page, `None` on the last one.
    pub next: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SortOrder {
    #[default]
    Desc,
    Asc,
}

/// What a booking list is ordered by (then by id). The names are the
/// booking's own JSON fields, as the panel's grid columns are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum BookingSort {
    /// The trip date (the default).
    #[default]
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

impl BookingSort {
    pub const ALL: [BookingSort; 8] = [
        BookingSort::Tripdate,
        BookingSort::BookingDate,
        BookingSort::Reference,
        BookingSort::Status,
        BookingSort::CustomerName,
        BookingSort::DriverName,
        BookingSort::CarType,
        BookingSort::TripCost,
    ];
}

/// Which bookings a list shows. The http edge fills the scope fields from the
/// caller's role (spec §6); all set fields must match.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BookingFilter {
    pub customer: Option<UserId>,
    pub driver: Option<UserId>,
    pub fleetadmin: Option<UserId>,
    /// Only these statuses, when not empty.
    pub statuses: Vec<BookingStatus>,
    /// Text search over reference, customer and driver names and addresses.
    pub search: Option<String>,
    pub sort: BookingSort,
    pub order: SortOrder,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct UserFilter {
    /// Only these roles, when not empty.
    pub roles: Vec<Role>,
    /// Drivers of this fleet admin only.
    pub fleetadmin: Option<UserId>,
    /// Over names, e-mail and mobile.
    pub search: Option<String>,
    pub approved: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct PushFilter {
    /// Only these roles, when not empty.
    pub roles: Vec<Role>,
    /// Only these platforms, when not empty.
    pub platforms: Vec<UserPlatform>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PushTarget {
    pub user: UserId,
    pub role: Role,
    pub platform: UserPlatform,
    pub push_token: Option<String>,
    pub language: Option<String>,
}

/// A booking as written, with its new version.
#[derive(Debug, Clone, PartialEq)]
pub struct Committed {
    pub booking: Booking,
    /// Balances after the wallet entries of the transition, per user.
    pub balances: Vec<(UserId, Decimal)>,
}

/// What `wayfare audit` finds in the system of record: the invariants that
/// must hold whatever crashed (docs/operations.md "Checking the data").
/// Every list is empty on a healthy database.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Audit {
    pub users: u64,
    pub bookings: u64,
    pub active_bookings: u64,
    /// Users whose balance is not the sum of their ledger entries.
    pub wallet_mismatches: Vec<WalletMismatch>,
    /// Drivers holding more than one trip (ACCEPTED to REACHED) at once.
    pub drivers_on_two_trips: Vec<UserId>,
    /// Drivers whose busy flag (`queue`) says otherwise than their trips.
    pub busy_flag_mismatches: Vec<UserId>,
    /// Bookings whose `active` column disagrees with their status.
    pub active_flag_mismatches: Vec<BookingId>,
    /// Trips (ACCEPTED to COMPLETE) with no driver.
    pub trips_without_driver: Vec<BookingId>,
    /// Offers still held by bookings that are no longer NEW.
    pub offers_on_taken_bookings: Vec<BookingId>,
}

impl Audit {
    pub fn is_clean(&self) -> bool {
        self.wallet_mismatches.is_empty()
            && self.drivers_on_two_trips.is_empty()
            && self.busy_flag_mismatches.is_empty()
            && self.active_flag_mismatches.is_empty()
            && self.trips_without_driver.is_empty()
            && self.offers_on_taken_bookings.is_empty()
    }
}

/// A node's claim on something it serves alone in cluster mode (a booking),
/// until `expires_at` unless renewed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Lease {
    pub kind: String,
    pub key: String,
    pub node: String,
    pub expires_at: Millis,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WalletMismatch {
    pub user: UserId,
    pub balance_micros: i64,
    pub ledger_micros: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct WalletOutcome {
    /// False when the idempotency key had been used: nothing changed.
    pub applied: bool,
    pub balance: Decimal,
}

/// Done refunds summed by where the money went (issue #37).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct RefundSums {
    /// Back to the card through the gateway.
    pub gateway: Decimal,
    /// To the rider's wallet.
    pub wallet: Decimal,
}

impl RefundSums {
    pub fn total(&self) -> Decimal {
        self.gateway + self.wallet
    }
}

/// A ledger entry with its key, as the wallet history lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WalletRecord {
    #[serde(flatten)]
    pub entry: WalletEntry,
    pub idempotency_key: String,
}

/// A ledger entry a booking made, with whose wallet it moved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LedgerRecord {
    pub user: UserId,
    #[serde(flatten)]
    pub entry: WalletEntry,
}

/// The bookings behind the report of money owed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OwedBookings {
    /// PENDING: the trip is over and the card payment has not come.
    pub pending: Vec<Booking>,
    /// CANCELLED with part of the cancellation fee owed.
    pub fees: Vec<Booking>,
}

/// A chat message with its id and read time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredChat {
    pub id: uuid::Uuid,
    #[serde(flatten)]
    pub message: ChatMessage,
    pub read_at: Option<Millis>,
}

/// Metadata of an uploaded file; the bytes live in the file store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileRecord {
    pub id: uuid::Uuid,
    pub owner: Option<UserId>,
    /// Where the file store keeps it.
    pub key: String,
    pub mime: String,
    pub size: u64,
    pub created_at: Millis,
}

/// What a gateway payment pays for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PaymentOrder {
    /// A booking's fare: PAYMENT_PENDING becomes NEW, PENDING becomes PAID.
    Booking(wayfare_engine::BookingId),
    /// Money into the customer's wallet.
    WalletTopUp,
}

/// Where a gateway payment stands. Only `Pending` ever changes, once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaymentStatus {
    Pending,
    Paid,
    Failed,
}

impl PaymentStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            PaymentStatus::Pending => "pending",
            PaymentStatus::Paid => "paid",
            PaymentStatus::Failed => "failed",
        }
    }

    pub fn parse(text: &str) -> Option<PaymentStatus> {
        match text {
            "pending" => Some(PaymentStatus::Pending),
            "paid" => Some(PaymentStatus::Paid),
            "failed" => Some(PaymentStatus::Failed),
            _ => None,
        }
    }
}

/// A payment gateway's settings as saved from the panel (issue #37). Secret
/// fields arrive here already sealed by the caller; storage never sees them
/// in clear.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredGateway {
    pub name: String,
    pub active: bool,
    pub testing: bool,
    /// By the original product's field names.
    pub fields: std::collections::BTreeMap<String, String>,
    pub updated_by: Option<UserId>,
    pub updated_at: Millis,
}

/// One change of a gateway's settings: who, when, which fields (names only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GatewayChange {
    pub id: uuid::Uuid,
    pub gateway: String,
    pub changed_by: Option<UserId>,
    pub changed_at: Millis,
    pub changed: Vec<String>,
}

/// One checkout through a payment gateway (issue 6 "Payments").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaymentRecord {
    pub id: uuid::Uuid,
    /// The provider name (spec §3): `test`, `stripe`.
    pub gateway: String,
    pub order: PaymentOrder,
    pub customer: UserId,
    pub amount: rust_decimal::Decimal,
    pub currency: String,
    pub status: PaymentStatus,
    /// The gateway's own id for it (a Stripe Checkout Session id).
    pub gateway_ref: Option<String>,
    /// The confirmation that settled it (a Stripe event id).
    pub event_id: Option<String>,
    /// Where the payer goes back to after paying or giving up.
    pub success_url: String,
    pub cancel_url: String,
    pub settled_at: Option<Millis>,
    pub created_at: Millis,
}

/// A one-time sign-in code sent to a contact. Only its hash is kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Challenge {
    pub id: uuid::Uuid,
    pub contact: String,
    pub code_hash: String,
    pub created_at: Millis,
    pub expires_at: Millis,
    pub attempts: u32,
    pub consumed_at: Option<Millis>,
    /// The client address that asked, for rate limiting.
    pub client: Option<String>,
}

/// One trip to a social sign-in provider and back (issue #37): single
/// use, until `expires_at`. Only the state's hash is kept; the PKCE
/// verifier and the nonce are sent to the provider later, so kept as they are.
#[derive(Debug, Clone, PartialEq)]
pub struct OAuthAttempt {
    pub id: uuid::Uuid,
    /// `google`, `apple` or `facebook`.
    pub provider: String,
    pub state_hash: String,
    pub code_verifier: String,
    pub nonce: String,
    /// The callback the provider was given, sent again with the code.
    pub redirect_uri: String,
    /// A path on this site to go back to once signed in.
    pub return_to: String,
    pub created_at: Millis,
    pub expires_at: Millis,
}

/// A provider's person linked to a user: they sign in as that user.
#[derive(Debug, Clone, PartialEq)]
pub struct UserIdentity {
    pub provider: String,
    pub subject: String,
    pub user: UserId,
    /// The e-mail the provider gave when linked (for the record).
    pub email: String,
    pub created_at: Millis,
}

/// A signed-in session. Only the token's hash is kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub token_hash: String,
    pub user: UserId,
    pub created_at: Millis,
    pub expires_at: Millis,
    pub revoked_at: Option<Millis>,
}

/// Which bookings an earnings query sums.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EarningsScope {
    /// A fleet admin's drivers only.
    pub fleetadmin: Option<UserId>,
    pub driver: Option<UserId>,
    /// Only bookings whose tripdate is at or after this instant.
    pub tripdate_from: Option<Millis>,
    /// Only bookings whose tripdate is before this instant. With
    /// `tripdate_from`, the start and end of a local month make the report of
    /// one month, which is an index range however long the history.
    pub tripdate_until: Option<Millis>,
    /// Minutes east of UTC that months are cut in.
    pub utc_offset_minutes: i32,
    pub decimals: u32,
}

/// Which rides the dashboard's cards sum, and when "today" is.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DashboardScope {
    /// A fleet admin's fleet only; every booking when `None`.
    pub fleetadmin: Option<UserId>,
    /// The instant whose local day and month are "today" and "this month".
    pub now: Millis,
    /// Minutes east of UTC that days and months are cut in.
    pub utc_offset_minutes: i32,
    pub decimals: u32,
}

/// Which SOS alerts a list shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SosFilter {
    /// Only alerts on bookings of this fleet admin's drivers.
    pub fleetadmin: Option<UserId>,
    /// Only open ones: neither taken nor resolved (what the banners show).
    pub open_only: bool,
}

/// A user's unique sign-in values, what an import merges people by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserContact {
    pub id: UserId,
    pub email: String,
    pub mobile: String,
    pub referral: String,
}

/// The catalogue an import writes in one transaction (issue #38).
#[derive(Debug, Clone, Copy, Default)]
pub struct CatalogueImport<'a> {
    pub settings: Option<&'a wayfare_engine::Settings>,
    /// Replaces the list when given.
    pub cancel_reasons: Option<&'a [String]>,
    pub car_types: &'a [wayfare_engine::CarType],
    pub promos: &'a [wayfare_engine::Promo],
    /// Who used which promo, by promo name.
    pub promo_uses: &'a [(String, UserId)],
    pub notifications: &'a [wayfare_engine::Notification],
    pub languages: &'a [wayfare_engine::Language],
}
