//! What both backends share that does not depend on which database runs it:
//! money in micro-units, cursors, the search text and query syntax, the typed
//! columns copied out of each document, row wrapper types, the SQL builder
//! and the [`Dialect`] contract each backend fills in. The queries themselves
//! are in `shared.rs`, compiled once per backend.

use crate::error::{StorageError, StorageResult};
use crate::types::{BookingSort, EarningsScope, PaymentOrder, PaymentRecord, PaymentStatus, Session, SortOrder};
use rust_decimal::Decimal;
use sqlx::types::Json;
use uuid::Uuid;
use wayfare_engine::sos::{SosAlert, SosRaiser};
use wayfare_engine::{
    Booking, BookingId, BookingStatus, ChatMessage, EarningsReportRow, EarningsRow, LatLng, Promo, Ratings, Role,
    SosId, User, UserId, UserPlatform, WalletEntryType, WithdrawRequest, money, timefmt,
};

// ---- money -----------------------------------------------------------------

/// Money is stored as an integer count of millionths, so SQL sums are exact.
pub(crate) const MICROS_PER_UNIT: i64 = 1_000_000;
const MICRO_PLACES: u32 = 6;

/// The amount in micro-units. An amount with more than six decimal places, or
/// beyond ±9.2 × 10^12, cannot be stored exactly and is refused.
pub(crate) fn to_micros(amount: Decimal, field: &'static str) -> StorageResult<i64> {
    // Checked: a product beyond Decimal's range must be refused, not panic.
    let Some(scaled) = amount.checked_mul(Decimal::from(MICROS_PER_UNIT)) else {
        return Err(StorageError::Invalid(field));
    };
    if !scaled.fract().is_zero() {
        return Err(StorageError::Invalid(field));
    }
    i64::try_from(scaled).map_err(|_| StorageError::Invalid(field))
}

pub(crate) fn from_micros(micros: i64) -> Decimal {
    Decimal::new(micros, MICRO_PLACES).normalize()
}

// ---- cursors ---------------------------------------------------------------

/// A keyset cursor: the sort value and id of the last row of a page, as 48
/// hex digits. Clients treat it as opaque.
pub(crate) fn encode_cursor(sort_value: i64, id: Uuid) -> String {
    let mut bytes = [0u8; 24];
    bytes[..8].copy_from_slice(&sort_value.to_be_bytes());
    bytes[8..].copy_from_slice(id.as_bytes());
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

pub(crate) fn decode_cursor(cursor: &str) -> StorageResult<(i64, Uuid)> {
    let invalid = || StorageError::Invalid("cursor");
    if cursor.len() != 48 || !cursor.is_ascii() {
        return Err(invalid());
    }
    let mut bytes = [0u8; 24];
    for (index, byte) in bytes.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&cursor[index * 2..index * 2 + 2], 16).map_err(|_| invalid())?;
    }
    let sort_value = i64::from_be_bytes(bytes[..8].try_into().map_err(|_| invalid())?);
    let id = Uuid::from_slice(&bytes[8..]).map_err(|_| invalid())?;
    Ok((sort_value, id))
}

// ---- search ----------------------------------------------------------------

/// At most this many words of a search are used; more only slow the query.
const MAX_SEARCH_WORDS: usize = 8;

/// The words of a text as search sees them: runs of letters and digits,
/// lowercased. Everything else separates words.
pub(crate) fn search_words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|character: char| !character.is_alphanumeric()).filter(|word| !word.is_empty()).map(str::to_lowercase)
}

/// The stored search text: the words of every part, separated by single
/// spaces. Both the full-text indexes and the scan fallback read this, so
/// they agree on what a word is.
pub(crate) fn search_document<'a>(parts: impl IntoIterator<Item = &'a str>) -> String {
    let mut document = String::new();
    for part in parts {
        for word in search_words(part) {
            if !document.is_empty() {
                document.push(' ');
            }
            document.push_str(&word);
        }
    }
    document
}

/// What a booking is found by: reference, customer and driver names, pickup
/// and drop addresses.
pub(crate) fn booking_search_text(booking: &Booking) -> String {
    search_document([
        booking.reference.as_str(),
        booking.customer_name.as_str(),
        booking.driver_name.as_str(),
        booking.pickupAddress.as_str(),
        booking.dropAddress.as_str(),
    ])
}

/// What a user is found by: names, e-mail, mobile (also as one run of digits,
/// so "4105550101" finds "+1 410-555-0101").
pub(crate) fn user_search_text(user: &User) -> String {
    let mobile_digits: String = user.mobile.chars().filter(char::is_ascii_digit).collect();
    search_document([
        user.firstName.as_str(),
        user.lastName.as_str(),
        user.email.as_str(),
        user.mobile.as_str(),
        mobile_digits.as_str(),
    ])
}

/// A parsed search: every word must be the start of some word of the
/// record's search text (case-insensitive, in any order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SearchQuery {
    pub words: Vec<String>,
}

impl SearchQuery {
    /// `None` for a search with no words, which filters nothing.
    pub fn parse(text: &str) -> Option<SearchQuery> {
        let words: Vec<String> = search_words(text).take(MAX_SEARCH_WORDS).collect();
        if words.is_empty() { None } else { Some(SearchQuery { words }) }
    }

    /// SQLite FTS5, exactly this search: `"smi"* AND "baltimore"*`. Words
    /// hold only letters and digits, so the quoting cannot be escaped.
    pub fn fts5(&self) -> String {
        self.fts5_with(|word| format!("\"{word}\"*"))
    }

    /// An FTS5 query matching a subset of this search, cheap to count: short
    /// words as prefixes (served by the prefix indexes), longer ones as whole
    /// words. A prefix query on a longer word merges the lists of every word
    /// it starts before returning anything, which is slow for common words.
    pub fn fts5_subset(&self) -> String {
        self.fts5_with(|word| {
            if word.chars().count() <= FTS5_PREFIX_INDEX_CHARS { format!("\"{word}\"*") } else { format!("\"{word}\"") }
        })
    }

    /// FTS5 for some of the words, each as a prefix.
    pub fn fts5_of<'a>(words: impl IntoIterator<Item = &'a String>) -> String {
        words.into_iter().map(|word| format!("\"{word}\"*")).collect::<Vec<_>>().join(" AND ")
    }

    fn fts5_with(&self, term: impl Fn(&str) -> String) -> String {
        self.words.iter().map(|word| term(word)).collect::<Vec<_>>().join(" AND ")
    }

    /// PostgreSQL `to_tsquery('simple', …)`: `smi:* & bal:*`.
    pub fn tsquery(&self) -> String {
        self.words.iter().map(|word| format!("{word}:*")).collect::<Vec<_>>().join(" & ")
    }

    /// `LIKE` patterns over `' ' || search_text`, one per word: a word start.
    pub fn like_patterns(&self) -> impl Iterator<Item = String> + '_ {
        self.words.iter().map(|word| format!("% {word}%"))
    }
}

/// The longest prefix the FTS5 tables keep an index for (`prefix = '1 2 3'`).
const FTS5_PREFIX_INDEX_CHARS: usize = 3;

/// A word the FTS5 prefix indexes serve directly.
pub(crate) fn is_short_word(word: &str) -> bool {
    word.chars().count() <= FTS5_PREFIX_INDEX_CHARS
}

/// The end of the range of words that start with `word` (exclusive): no
/// word continues with a character above U+10FFFF, and UTF-8 sorts as code
/// points do.
pub(crate) fn prefix_range_end(word: &str) -> String {
    format!("{word}\u{10FFFF}")
}

/// The tables that have a search text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SearchTable {
    /// Aliased `b` in queries.
    Bookings,
    /// Aliased `u` in queries.
    Users,
}

impl SearchTable {
    /// The table with its alias.
    pub fn from(self) -> &'static str {
        match self {
            SearchTable::Bookings => "bookings b",
            SearchTable::Users => "users u",
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            SearchTable::Bookings => "b.id",
            SearchTable::Users => "u.id",
        }
    }

    pub fn search_text(self) -> &'static str {
        match self {
            SearchTable::Bookings => "b.search_text",
            SearchTable::Users => "u.search_text",
        }
    }
}

/// How one page of a search is found, on a backend whose planner cannot
/// estimate text matches (SQLite; PostgreSQL's planner chooses for itself
/// and always gets `Index`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SearchPlan {
    /// Few matches: read the matches of `text` (the rare words) from the text
    /// index, then sort them; `verify` re-tests every word, when `text` does
    /// not hold them all.
    Index { text: String, verify: bool },
    /// Many matches: walk the sort order and test each row's words.
    Scan,
    /// Every word is common but together they may not be: walk at most
    /// [`SEARCH_SCAN_CAP`] rows of the sort order, and if that does not fill
    /// the page, use the text index.
    ScanThenIndex,
}

/// Below this many matches the index plan wins; at or above it, a walk of the
/// sort order fills a page within a few thousand rows.
pub(crate) const SEARCH_INDEX_LIMIT: i64 = 3_000;
/// Rows an uncertain search walks before it turns to the text index.
pub(crate) const SEARCH_SCAN_CAP: i64 = 5_000;

// ---- SQL built from static fragments ---------------------------------------

/// A value bound to a placeholder.
#[derive(Debug)]
pub(crate) enum Bind {
    Uuid(Uuid),
    OptUuid(Option<Uuid>),
    Int(i64),
    Bool(bool),
    Text(String),
    OptText(Option<String>),
    OptFloat(Option<f64>),
    OptInt(Option<i64>),
    /// A JSON document, serialised once (TEXT on SQLite, JSONB on PostgreSQL).
    Json(Box<sqlx::types::JsonRawValue>),
}

/// Builds SQL from `&'static str` fragments only, numbering placeholders
/// (`$1`, `$2`, … — both backends accept them) as values are bound. User
/// input can reach a query only as a bound value.
#[derive(Debug, Default)]
pub(crate) struct SqlBuilder {
    pub sql: String,
    pub binds: Vec<Bind>,
}

impl SqlBuilder {
    pub fn new(start: &'static str) -> Self {
        SqlBuilder { sql: start.to_string(), binds: Vec::new() }
    }

    pub fn push(&mut self, fragment: &'static str) -> &mut Self {
        self.sql.push_str(fragment);
        self
    }

    /// Appends a placeholder for the value.
    pub fn bind(&mut self, value: Bind) -> &mut Self {
        self.binds.push(value);
        self.sql.push('$');
        self.sql.push_str(&self.binds.len().to_string());
        self
    }

    /// `fragment` then a placeholder, e.g. `push_bind(" AND b.customer = ", …)`.
    pub fn push_bind(&mut self, fragment: &'static str, value: Bind) -> &mut Self {
        self.push(fragment).bind(value)
    }
}

// ---- dialects --------------------------------------------------------------

/// Counting SQL for the search planner, each counting up to a limit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TextCounts {
    /// Rows matching the text-index query `$1`, up to `$2`.
    pub documents: &'static str,
    /// Occurrences of words from `$1` (inclusive) to `$2` (exclusive), up to
    /// `$3`: at least the rows matching the prefix, read without merging.
    pub occurrences: &'static str,
}

/// Where the two backends' SQL differs. Everything else is one text.
pub(crate) trait Dialect {
    /// Starts a transaction that will write. SQLite takes the write lock at
    /// once (`BEGIN IMMEDIATE`) so a read followed by a write never fails on a
    /// stale snapshot; PostgreSQL locks rows as it goes.
    const BEGIN_WRITE: &'static str;
    /// Appended to a `SELECT` of rows the transaction will then update:
    /// ` FOR UPDATE` on PostgreSQL, nothing on SQLite (one writer at a time).
    const FOR_UPDATE: &'static str;
    /// Run first in a write transaction whose commit need not wait for the
    /// disk (see `begin_relaxed_write`): PostgreSQL turns the commit's flush
    /// off for that transaction; SQLite has no per-transaction switch, and
    /// uses a connection opened with `synchronous = NORMAL` instead.
    const RELAXED_COMMIT: Option<&'static str>;
    /// Bound values per statement of a bulk insert.
    const MAX_BINDS_PER_STATEMENT: usize;
    /// Takes a script of several statements with bound values (numbered
    /// across the script) in one call: SQLite, whose sqlx driver steps
    /// through them on the connection's thread. PostgreSQL's extended
    /// protocol takes one statement per call.
    const SCRIPTS: bool;
    /// For a backend whose planner has no estimate of text matches (SQLite),
    /// the SQL the shared code counts with to choose a [`SearchPlan`]; `None`
    /// where the planner chooses (PostgreSQL).
    fn text_counts(table: SearchTable) -> Option<TextCounts>;
    /// The text-index query meaning exactly this search.
    fn index_text(query: &SearchQuery) -> String;
    /// Pushes `FROM <table> <alias> … WHERE <the text index matches $n>`.
    fn push_index_from(builder: &mut SqlBuilder, table: SearchTable, text: String);
    /// `yyyymm` of the local instant `l.local_s` (seconds since the epoch, or
    /// NULL), or NULL.
    const YEAR_MONTH_OF_LOCAL_SECONDS: &'static str;
    /// Which unique value a unique violation is about.
    fn duplicate_field(error: &dyn sqlx::error::DatabaseError) -> &'static str;
}

/// The name of the unique value an index or constraint guards.
pub(crate) fn unique_field(constraint_or_message: &str) -> &'static str {
    const FIELDS: [(&str, &str); 7] = [
        ("users_email", "email"),
        ("users.email", "email"),
        ("users_mobile", "mobile"),
        ("users.mobile", "mobile"),
        ("users_referral", "referral"),
        ("users.referral", "referral"),
        ("name", "name"),
    ];
    FIELDS.iter().find(|(needle, _)| constraint_or_message.contains(needle)).map(|(_, field)| *field).unwrap_or("id")
}

// ---- typed columns ---------------------------------------------------------

pub(crate) fn status_text(status: BookingStatus) -> &'static str {
    status.as_str()
}

pub(crate) fn parse_status(text: &str) -> StorageResult<BookingStatus> {
    BookingStatus::parse(text).ok_or_else(|| StorageError::Corrupt(format!("booking status {text:?}")))
}

pub(crate) fn platform_text(platform: UserPlatform) -> &'static str {
    match platform {
        UserPlatform::Ios => "IOS",
        UserPlatform::Android => "ANDROID",
        UserPlatform::Web => "WEB",
    }
}

pub(crate) fn parse_platform(text: &str) -> StorageResult<UserPlatform> {
    match text {
        "IOS" => Ok(UserPlatform::Ios),
        "ANDROID" => Ok(UserPlatform::Android),
        "WEB" => Ok(UserPlatform::Web),
        other => Err(StorageError::Corrupt(format!("platform {other:?}"))),
    }
}

pub(crate) fn parse_role(text: &str) -> StorageResult<Role> {
    Role::parse(text).map_err(|_| StorageError::Corrupt(format!("role {text:?}")))
}

pub(crate) fn entry_type_text(entry_type: WalletEntryType) -> &'static str {
    match entry_type {
        WalletEntryType::Credit => "Credit",
        WalletEntryType::Debit => "Debit",
        WalletEntryType::Withdraw => "Withdraw",
    }
}

pub(crate) fn parse_entry_type(text: &str) -> StorageResult<WalletEntryType> {
    match text {
        "Credit" => Ok(WalletEntryType::Credit),
        "Debit" => Ok(WalletEntryType::Debit),
        "Withdraw" => Ok(WalletEntryType::Withdraw),
        other => Err(StorageError::Corrupt(format!("wallet entry type {other:?}"))),
    }
}

/// The typed columns of a booking row, copied from its document.
#[derive(Debug, Clone)]
pub(crate) struct BookingColumns {
    pub status: &'static str,
    pub active: bool,
    pub trip_cost: i64,
    pub driver_share: i64,
    pub convenience_fees: i64,
    pub discount_amount: i64,
    pub customer_paid: i64,
    pub cancellation_fee: i64,
    pub fee_owed: i64,
    pub search_text: String,
}

impl BookingColumns {
    pub fn of(booking: &Booking) -> StorageResult<BookingColumns> {
        Ok(BookingColumns {
            status: status_text(booking.status),
            active: booking.status.is_active(),
            trip_cost: to_micros(booking.trip_cost, "trip_cost")?,
            driver_share: to_micros(booking.driver_share, "driver_share")?,
            convenience_fees: to_micros(booking.convenience_fees, "convenience_fees")?,
            discount_amount: to_micros(booking.discount_amount, "discount_amount")?,
            customer_paid: to_micros(booking.customer_paid, "customer_paid")?,
            cancellation_fee: to_micros(booking.cancellationFee, "cancellationFee")?,
            fee_owed: to_micros(booking.cancellationFeeOwed, "cancellationFeeOwed")?,
            search_text: booking_search_text(booking),
        })
    }
}

/// The typed columns of a user row, copied from its document (the wallet
/// balance is not among them: only the ledger moves it).
#[derive(Debug, Clone)]
pub(crate) struct UserColumns {
    pub role: &'static str,
    pub fleetadmin: Option<Uuid>,
    pub lat: Option<f64>,
    pub lng: Option<f64>,
    pub platform: &'static str,
    pub language: Option<String>,
    pub search_text: String,
}

impl UserColumns {
    pub fn of(user: &User) -> UserColumns {
        UserColumns {
            role: user.usertype.as_str(),
            fleetadmin: user.fleetadmin.map(|fleetadmin| fleetadmin.0),
            lat: user.location.map(|location| location.lat),
            lng: user.location.map(|location| location.lng),
            platform: platform_text(user.userPlatform),
            language: user.lang.as_ref().map(|lang| lang.langLocale.clone()),
            search_text: user_search_text(user),
        }
    }
}

// ---- rows ------------------------------------------------------------------

/// A booking row: the document, with the version the column holds.
#[derive(sqlx::FromRow)]
pub(crate) struct BookingRow {
    pub version: i64,
    pub doc: Json<Booking>,
}

impl BookingRow {
    pub fn into_booking(self) -> Booking {
        let mut booking = self.doc.0;
        booking.version = u64::try_from(self.version).unwrap_or_default();
        booking
    }
}

/// A user row: the document, with the fields that have their own writers
/// (balance, busy flag, online flag, location) taken from their columns.
#[derive(sqlx::FromRow)]
pub(crate) struct UserRow {
    pub wallet_balance_micros: i64,
    pub queue: bool,
    pub driver_active: bool,
    pub lat: Option<f64>,
    pub lng: Option<f64>,
    pub doc: Json<User>,
}

impl UserRow {
    pub fn into_user(self) -> User {
        let mut user = self.doc.0;
        user.walletBalance = from_micros(self.wallet_balance_micros);
        user.queue = self.queue;
        user.driverActiveStatus = self.driver_active;
        user.location = match (self.lat, self.lng) {
            (Some(lat), Some(lng)) => Some(LatLng::new(lat, lng)),
            _ => None,
        };
        user
    }
}

/// The columns every user query selects, in [`UserRow`]'s order.
/// A driver's position is the runtime's latest write-behind in
/// `driver_positions` when there is one, else the one saved with the account.
pub(crate) const USER_COLUMNS: &str = "u.wallet_balance_micros, u.queue, u.driver_active, \
     COALESCE((SELECT p.lat FROM driver_positions p WHERE p.user_id = u.id), u.lat) AS lat, \
     COALESCE((SELECT p.lng FROM driver_positions p WHERE p.user_id = u.id), u.lng) AS lng, u.doc";

#[derive(sqlx::FromRow)]
pub(crate) struct PromoRow {
    pub user_avail: i64,
    pub doc: Json<Promo>,
}

impl PromoRow {
    pub fn into_promo(self) -> Promo {
        let mut promo = self.doc.0;
        promo.user_avail = u32::try_from(self.user_avail).unwrap_or(u32::MAX);
        promo
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct WithdrawRow {
    pub processed: bool,
    pub proces_date: Option<i64>,
    pub doc: Json<WithdrawRequest>,
}

/// An `sos_alerts` row.
#[derive(sqlx::FromRow)]
pub(crate) struct SosRow {
    pub id: Uuid,
    pub booking_id: Uuid,
    pub reference: String,
    pub raised_by: Uuid,
    pub raised_by_role: String,
    pub raised_by_name: String,
    pub lat: f64,
    pub lng: f64,
    pub fleetadmin: Option<Uuid>,
    pub taken_by: Option<Uuid>,
    pub taken_by_name: String,
    pub taken_at: Option<i64>,
    pub resolved_by: Option<Uuid>,
    pub resolved_by_name: String,
    pub resolved_at: Option<i64>,
    pub note: String,
    pub created_at: i64,
}

/// The columns of [`SosRow`], for `SELECT` and `RETURNING`.
pub(crate) const SOS_COLUMNS: &str = "id, booking_id, reference, raised_by, raised_by_role, raised_by_name, lat, lng, \
     fleetadmin, taken_by, taken_by_name, taken_at, resolved_by, resolved_by_name, resolved_at, note, created_at";

/// Added to an unresolved alert's `list_rank` so it sorts before every
/// resolved one (2^45 ms is a thousand years; epoch times stay below 2^42
/// until 2109).
pub(crate) const SOS_OPEN_RANK: i64 = 1 << 45;

/// The `list_rank` of an alert: open first, newest first, in one column.
pub(crate) fn sos_rank(alert: &SosAlert) -> i64 {
    if alert.resolved_at.is_some() { alert.created_at } else { alert.created_at + SOS_OPEN_RANK }
}

/// A [`SosRow`] with its rank, for a page's cursor.
#[derive(sqlx::FromRow)]
pub(crate) struct RankedSosRow {
    #[sqlx(flatten)]
    pub row: SosRow,
    pub list_rank: i64,
}

impl SosRow {
    pub fn into_alert(self) -> StorageResult<SosAlert> {
        let raised_by_role = SosRaiser::parse(&self.raised_by_role)
            .ok_or_else(|| StorageError::Corrupt(format!("sos raised_by_role {:?}", self.raised_by_role)))?;
        Ok(SosAlert {
            id: SosId(self.id),
            booking: BookingId(self.booking_id),
            reference: self.reference,
            raised_by: UserId(self.raised_by),
            raised_by_role,
            raised_by_name: self.raised_by_name,
            lat: self.lat,
            lng: self.lng,
            created_at: self.created_at,
            fleetadmin: self.fleetadmin.map(UserId),
            taken_by: self.taken_by.map(UserId),
            taken_by_name: self.taken_by_name,
            taken_at: self.taken_at,
            resolved_by: self.resolved_by.map(UserId),
            resolved_by_name: self.resolved_by_name,
            resolved_at: self.resolved_at,
            note: self.note,
        })
    }
}

impl WithdrawRow {
    pub fn into_withdraw(self) -> WithdrawRequest {
        let mut request = self.doc.0;
        request.processed = self.processed;
        request.procesDate = self.proces_date;
        request
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct ChatRow {
    pub id: Uuid,
    pub read_at: Option<i64>,
    pub doc: Json<ChatMessage>,
}

#[derive(sqlx::FromRow)]
pub(crate) struct WalletRow {
    pub entry_type: String,
    pub amount_micros: i64,
    pub date: i64,
    pub tx_ref: String,
    pub idempotency_key: String,
    pub id: Uuid,
}

/// The booking a ledger entry belongs to, read off its idempotency key
/// (`booking:<id>:<purpose>`, `wayfare_engine::booking::booking_idempotency_key`).
pub(crate) fn booking_of_key(key: &str) -> Option<Uuid> {
    let rest = key.strip_prefix("booking:")?;
    Uuid::parse_str(rest.split(':').next()?).ok()
}

#[derive(sqlx::FromRow)]
pub(crate) struct LedgerRow {
    pub user_id: Uuid,
    pub entry_type: String,
    pub amount_micros: i64,
    pub date: i64,
    pub tx_ref: String,
}

#[derive(sqlx::FromRow)]
pub(crate) struct PushTargetRow {
    pub id: Uuid,
    pub role: String,
    pub platform: String,
    pub push_token: Option<String>,
    pub language: Option<String>,
}

#[derive(sqlx::FromRow)]
pub(crate) struct FileRow {
    pub id: Uuid,
    pub owner: Option<Uuid>,
    pub key: String,
    pub mime: String,
    pub size: i64,
    pub created_at: i64,
}

#[derive(sqlx::FromRow)]
pub(crate) struct PaymentRow {
    pub id: Uuid,
    pub gateway: String,
    pub order_kind: String,
    pub booking_id: Option<Uuid>,
    pub customer: Uuid,
    pub amount_micros: i64,
    pub currency: String,
    pub status: String,
    pub gateway_ref: Option<String>,
    pub event_id: Option<String>,
    pub success_url: String,
    pub cancel_url: String,
    pub settled_at: Option<i64>,
    pub created_at: i64,
}

impl PaymentRow {
    pub(crate) fn into_record(self) -> StorageResult<PaymentRecord> {
        let order = match (self.order_kind.as_str(), self.booking_id) {
            ("booking", Some(booking)) => PaymentOrder::Booking(wayfare_engine::BookingId(booking)),
            ("wallet", _) => PaymentOrder::WalletTopUp,
            _ => {
                return Err(StorageError::Corrupt(format!("payment {} has order {}", self.id, self.order_kind)));
            }
        };
        let status = PaymentStatus::parse(&self.status)
            .ok_or_else(|| StorageError::Corrupt(format!("payment {} has status {}", self.id, self.status)))?;
        Ok(PaymentRecord {
            id: self.id,
            gateway: self.gateway,
            order,
            customer: UserId(self.customer),
            amount: from_micros(self.amount_micros),
            currency: self.currency,
            status,
            gateway_ref: self.gateway_ref,
            event_id: self.event_id,
            success_url: self.success_url,
            cancel_url: self.cancel_url,
            settled_at: self.settled_at,
            created_at: self.created_at,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct ChallengeRow {
    pub id: Uuid,
    pub contact: String,
    pub code_hash: String,
    pub created_at: i64,
    pub expires_at: i64,
    pub attempts: i64,
    pub consumed_at: Option<i64>,
    pub client: Option<String>,
}

#[derive(sqlx::FromRow)]
pub(crate) struct SessionRow {
    pub token_hash: String,
    pub user_id: Uuid,
    pub created_at: i64,
    pub expires_at: i64,
    pub revoked_at: Option<i64>,
}

impl SessionRow {
    pub fn into_session(self) -> Session {
        Session {
            token_hash: self.token_hash,
            user: UserId(self.user_id),
            created_at: self.created_at,
            expires_at: self.expires_at,
            revoked_at: self.revoked_at,
        }
    }
}

/// The columns of a session joined with its user, in [`SessionUserRow`]'s order.
pub(crate) const SESSION_COLUMNS: &str = "s.token_hash, s.user_id, s.created_at, s.expires_at, s.revoked_at, ";

#[derive(sqlx::FromRow)]
pub(crate) struct SessionUserRow {
    #[sqlx(flatten)]
    pub session: SessionRow,
    #[sqlx(flatten)]
    pub user: UserRow,
}

#[derive(sqlx::FromRow)]
pub(crate) struct DispatchEventRow {
    pub doc: Json<wayfare_engine::dispatch::DispatchEntry>,
}

#[derive(sqlx::FromRow)]
pub(crate) struct TrackingRow {
    pub at: i64,
    pub status: String,
    pub lat: f64,
    pub lng: f64,
}

// ---- ratings ---------------------------------------------------------------

/// Adds a rating and recomputes the average to one decimal, half away from
/// zero (spec §9 "Rating average: 1 decimal").
pub(crate) fn add_rating(ratings: &mut Ratings, customer: UserId, rating: u8) {
    ratings.details.push(wayfare_engine::RatingDetail { user: customer, rate: rating });
    let total: u64 = ratings.details.iter().map(|detail| u64::from(detail.rate)).sum();
    let count = ratings.details.len() as u64;
    ratings.userrating = money::round(Decimal::from(total) / Decimal::from(count), 1);
}

// ---- sort keys -------------------------------------------------------------

/// A sort key's value: the cursor carries it, the keyset compares with it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SortValue {
    Int(i64),
    Text(String),
}

/// Whether a list's sort column holds numbers or text (its cursors differ).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SortKind {
    Int,
    Text,
}

/// The column a booking list is ordered by, and its kind.
pub(crate) fn booking_sort_column(sort: BookingSort) -> (&'static str, SortKind) {
    match sort {
        BookingSort::Tripdate => ("b.tripdate", SortKind::Int),
        BookingSort::BookingDate => ("b.booking_date", SortKind::Int),
        BookingSort::Reference => ("b.reference", SortKind::Text),
        BookingSort::Status => ("b.status", SortKind::Text),
        BookingSort::CustomerName => ("b.customer_name", SortKind::Text),
        BookingSort::DriverName => ("b.driver_name", SortKind::Text),
        BookingSort::CarType => ("b.car_type", SortKind::Text),
        BookingSort::TripCost => ("b.trip_cost_micros", SortKind::Int),
    }
}

/// The sort column's value on a booking, as the row stores it.
pub(crate) fn booking_sort_value(booking: &Booking, sort: BookingSort) -> SortValue {
    match sort {
        BookingSort::Tripdate => SortValue::Int(booking.tripdate),
        BookingSort::BookingDate => SortValue::Int(booking.bookingDate),
        BookingSort::Reference => SortValue::Text(booking.reference.clone()),
        BookingSort::Status => SortValue::Text(status_text(booking.status).to_string()),
        BookingSort::CustomerName => SortValue::Text(booking.customer_name.clone()),
        BookingSort::DriverName => SortValue::Text(booking.driver_name.clone()),
        BookingSort::CarType => SortValue::Text(booking.carType.clone()),
        // A stored booking's amounts fit (they were written as micros).
        BookingSort::TripCost => SortValue::Int(to_micros(booking.trip_cost, "trip_cost").unwrap_or_default()),
    }
}

/// A cursor for either kind: a number's is [`encode_cursor`]'s 48 hex
/// digits; a text's is `t`, the id's 32 hex digits, then the text's UTF-8
/// bytes in hex, so the two never parse as each other.
pub(crate) fn encode_sort_cursor(value: &SortValue, id: Uuid) -> String {
    match value {
        SortValue::Int(number) => encode_cursor(*number, id),
        SortValue::Text(text) => {
            let mut cursor = String::with_capacity(33 + text.len() * 2);
            cursor.push('t');
            for byte in id.as_bytes().iter().chain(text.as_bytes()) {
                cursor.push_str(&format!("{byte:02x}"));
            }
            cursor
        }
    }
}

/// Reads a cursor of the list's kind; one of the other kind is invalid.
pub(crate) fn decode_sort_cursor(cursor: &str, kind: SortKind) -> StorageResult<(SortValue, Uuid)> {
    let invalid = || StorageError::Invalid("cursor");
    match kind {
        SortKind::Int => decode_cursor(cursor).map(|(number, id)| (SortValue::Int(number), id)),
        SortKind::Text => {
            let hex = cursor.strip_prefix('t').ok_or_else(invalid)?;
            if hex.len() < 32 || hex.len() % 2 != 0 || !hex.is_ascii() {
                return Err(invalid());
            }
            let bytes = (0..hex.len() / 2)
                .map(|index| u8::from_str_radix(&hex[index * 2..index * 2 + 2], 16))
                .collect::<Result<Vec<u8>, _>>()
                .map_err(|_| invalid())?;
            let id = Uuid::from_slice(&bytes[..16]).map_err(|_| invalid())?;
            let text = String::from_utf8(bytes[16..].to_vec()).map_err(|_| invalid())?;
            Ok((SortValue::Text(text), id))
        }
    }
}

/// `(<", ">")` keyset comparison and the ORDER BY direction.
pub(crate) fn order_fragments(order: SortOrder) -> (&'static str, &'static str) {
    match order {
        SortOrder::Desc => (" < ", " DESC"),
        SortOrder::Asc => (" > ", " ASC"),
    }
}

// ---- earnings --------------------------------------------------------------

/// The SQL that sums earnings per (local month, driver), in four levels:
/// the counted bookings with their local time in whole seconds (`$1` is the
/// UTC offset in ms; only trip dates in `$2..=$3`, whose local year is
/// 1..=9999, are placed, the others go to the month-0 "Unknown" row as in the
/// engine; the floor division keeps instants before 1970 in the right
/// second), their local month as `yyyymm`, the latest booking of each group
/// (greatest tripdate, then id) by a window function, and the sums. Callers
/// push [`EARNINGS_COUNTED`], the counted-status condition and the scope
/// filters, then [`EARNINGS_MONTH`], the month expression (the dialect's, or a
/// constant when the whole range lies in one month) and [`EARNINGS_GROUP`].
pub(crate) const EARNINGS_COUNTED: &str = "
SELECT
    ym, driver,
    COUNT(CASE WHEN ride THEN 1 END) AS rides,
    CAST(SUM(CASE WHEN ride THEN driver_share_micros ELSE 0 END) AS BIGINT) AS driver_share,
    CAST(SUM(CASE WHEN ride THEN trip_cost_micros ELSE 0 END) AS BIGINT) AS trip_cost,
    CAST(SUM(CASE WHEN ride THEN convenience_fees_micros ELSE 0 END) AS BIGINT) AS convenience_fee,
    CAST(SUM(CASE WHEN ride THEN discount_amount_micros ELSE 0 END) AS BIGINT) AS discount_amount,
    CAST(SUM(CASE WHEN ride THEN customer_paid_micros ELSE 0 END) AS BIGINT) AS customer_paid,
    CAST(SUM(CASE WHEN ride THEN 0 ELSE cancellation_fee_micros END) AS BIGINT) AS cancellation_fee,
    MAX(CASE WHEN latest = 1 THEN driver_name END) AS driver_name,
    MAX(CASE WHEN latest = 1 THEN vehicle_number END) AS vehicle_number
FROM (
    SELECT
        m.*,
        ROW_NUMBER() OVER (PARTITION BY ym, driver ORDER BY tripdate DESC, id DESC) AS latest
    FROM (
        SELECT l.*, ";

/// Between [`EARNINGS_COUNTED`]'s month expression and its filters.
pub(crate) const EARNINGS_LOCAL: &str = " AS ym
        FROM (
            SELECT
                b.id, b.tripdate, b.driver, b.driver_name, b.vehicle_number,
                b.status IN ('PAID', 'COMPLETE') AS ride,
                b.driver_share_micros, b.trip_cost_micros, b.convenience_fees_micros,
                b.discount_amount_micros, b.customer_paid_micros, b.cancellation_fee_micros,
                CASE WHEN b.tripdate BETWEEN $2 AND $3
                    THEN (b.tripdate + $1 - ((b.tripdate + $1) % 1000 + 1000) % 1000) / 1000
                END AS local_s
            FROM bookings b
            WHERE b.driver IS NOT NULL";

/// Closes the earnings query: one row per (month, driver).
pub(crate) const EARNINGS_GROUP: &str = "
        ) l
    ) m
) counted
GROUP BY ym, driver";

/// Only rides (PAID, COMPLETE).
pub(crate) const EARNINGS_RIDES: &str = " AND b.status IN ('PAID', 'COMPLETE')";
/// Rides and cancellations that charged a fee; written as a status list so
/// the index on (status, tripdate) serves it.
pub(crate) const EARNINGS_REPORTED: &str = " AND b.status IN ('PAID', 'COMPLETE', 'CANCELLED')
                AND (b.status <> 'CANCELLED' OR b.cancellation_fee_micros > 0)";

/// The local month a scope's whole trip-date range lies in, when it does:
/// then the month is a constant and the query groups by driver alone.
pub(crate) fn single_month(scope: &EarningsScope) -> Option<i64> {
    let (from, until) = (scope.tripdate_from?, scope.tripdate_until?);
    let first = timefmt::year_month(from, scope.utc_offset_minutes);
    let last = timefmt::year_month(until.checked_sub(1)?, scope.utc_offset_minutes);
    (from < until && first == last && first != timefmt::UNKNOWN_YEAR_MONTH)
        .then(|| i64::from(first.0) * 100 + i64::from(first.1))
}

/// One (month, driver) group of sums in micro-units.
#[derive(sqlx::FromRow, Debug)]
pub(crate) struct EarningsGroup {
    pub ym: i64,
    pub driver: Uuid,
    pub rides: i64,
    pub driver_share: i64,
    pub trip_cost: i64,
    pub convenience_fee: i64,
    pub discount_amount: i64,
    pub customer_paid: i64,
    pub cancellation_fee: i64,
    pub driver_name: Option<String>,
    pub vehicle_number: Option<String>,
}

/// The bound values `$1..=$3` of the earnings query: the offset in ms and the trip dates
/// whose local year is within 1..=9999. An offset outside the engine's range
/// makes every date unplaceable, as in the engine.
pub(crate) fn earnings_bounds(utc_offset_minutes: i32) -> (i64, i64, i64) {
    /// 0001-01-01T00:00:00Z and 10000-01-01T00:00:00Z in ms.
    const FIRST_MS: i64 = -62_135_596_800_000;
    const END_MS: i64 = 253_402_300_800_000;
    if timefmt::validate_utc_offset(utc_offset_minutes).is_err() {
        return (0, 1, 0);
    }
    let offset_ms = i64::from(utc_offset_minutes) * wayfare_engine::MINUTE_MS;
    (offset_ms, FIRST_MS - offset_ms, END_MS - 1 - offset_ms)
}

impl EarningsGroup {
    fn year_month(&self) -> (i32, u32) {
        let year = i32::try_from(self.ym / 100).unwrap_or_default();
        let month = u32::try_from(self.ym % 100).unwrap_or_default();
        (year, month)
    }

    pub fn earnings_row(&self, decimals: u32) -> EarningsRow {
        let (year, month) = self.year_month();
        EarningsRow {
            year,
            month,
            monthsName: timefmt::month_name(month).to_string(),
            driverShare: money::round(from_micros(self.driver_share), decimals),
            total_rides: u32::try_from(self.rides).unwrap_or(u32::MAX),
            driverName: self.driver_name.clone().unwrap_or_default(),
            driverVehicleNo: self.vehicle_number.clone().unwrap_or_default(),
            driverUId: UserId(self.driver),
        }
    }

    /// The report row, derived exactly as `engine::earnings::earnings_report`.
    pub fn report_row(&self, decimals: u32) -> EarningsReportRow {
        let earnings = self.earnings_row(decimals);
        let trip_cost = money::round(from_micros(self.trip_cost), decimals);
        let convenience_fee = money::round(from_micros(self.convenience_fee), decimals);
        let discount_amount = money::round(from_micros(self.discount_amount), decimals);
        EarningsReportRow {
            rideCost: trip_cost - convenience_fee,
            myEarning: trip_cost - earnings.driverShare - discount_amount,
            discountAmount: discount_amount,
            customerPaid: money::round(from_micros(self.customer_paid), decimals),
            convenienceFee: convenience_fee,
            tripCost: trip_cost,
            cancellationFee: money::round(from_micros(self.cancellation_fee), decimals),
            earnings,
        }
    }
}

/// Newest month first, then driver name in byte order, then driver id: the
/// engine's order. Sorting here keeps the SQL free of collation differences.
pub(crate) fn sort_earnings(groups: &mut [EarningsGroup]) {
    groups.sort_by(|left, right| {
        right
            .ym
            .cmp(&left.ym)
            .then_with(|| left.driver_name.as_deref().unwrap_or("").cmp(right.driver_name.as_deref().unwrap_or("")))
            .then_with(|| left.driver.cmp(&right.driver))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn money_goes_to_micros_and_back_exactly() {
        assert_eq!(to_micros(dec!(12.505), "amount").unwrap(), 12_505_000);
        assert_eq!(to_micros(dec!(-0.000001), "amount").unwrap(), -1);
        assert_eq!(from_micros(12_505_000), dec!(12.505));
        assert!(matches!(to_micros(dec!(0.0000001), "amount"), Err(StorageError::Invalid("amount"))));
        // Found by fuzzing: a fare of 4e28 made the multiplication panic.
        for huge in [Decimal::MAX, Decimal::MIN, dec!(100000000000000000000000), dec!(9300000000000)] {
            assert!(matches!(to_micros(huge, "trip_cost"), Err(StorageError::Invalid("trip_cost"))), "{huge}");
        }
    }

    #[test]
    fn cursors_round_trip_and_refuse_garbage() {
        let id = Uuid::from_u128(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef);
        for value in [0, -1, i64::MIN, i64::MAX, 1_767_225_600_000] {
            assert_eq!(decode_cursor(&encode_cursor(value, id)).unwrap(), (value, id));
        }
        assert!(decode_cursor("nope").is_err());
        assert!(decode_cursor(&"zz".repeat(24)).is_err());
    }

    #[test]
    fn search_text_is_lowercase_words_separated_by_single_spaces() {
        assert_eq!(
            search_document(["ABCDEF", "  O'Brien, Jr.", "1600 N. Charles St"]),
            "abcdef o brien jr 1600 n charles st"
        );
    }

    #[test]
    fn a_search_becomes_word_prefixes_for_each_backend() {
        let query = SearchQuery::parse("  Smi, baltimore! ").unwrap();
        assert_eq!(query.fts5(), "\"smi\"* AND \"baltimore\"*");
        assert_eq!(query.fts5_subset(), "\"smi\"* AND \"baltimore\"");
        assert_eq!(SearchQuery::fts5_of(&query.words[1..]), "\"baltimore\"*");
        assert!(prefix_range_end("smi").as_str() > "smith" && prefix_range_end("smi").as_str() < "smj");
        assert_eq!(query.tsquery(), "smi:* & baltimore:*");
        assert_eq!(query.like_patterns().collect::<Vec<_>>(), ["% smi%", "% baltimore%"]);
        assert_eq!(SearchQuery::parse(" ,.; "), None);
    }

    #[test]
    fn the_rating_average_has_one_decimal_rounded_half_away_from_zero() {
        let mut ratings = Ratings::default();
        let rider = UserId::from_u128(1);
        for rate in [5, 4, 4, 4] {
            add_rating(&mut ratings, rider, rate);
        }
        // 17 / 4 = 4.25 → 4.3
        assert_eq!(ratings.userrating, dec!(4.3));
        assert_eq!(ratings.details.len(), 4);
    }

    #[test]
    fn earnings_bounds_keep_local_years_within_one_to_9999() {
        let (offset, first, last) = earnings_bounds(60);
        assert_eq!(offset, 3_600_000);
        assert_eq!(timefmt::year_month(first, 60).0, 1);
        assert_eq!(timefmt::year_month(first - 1, 60), timefmt::UNKNOWN_YEAR_MONTH);
        assert_eq!(timefmt::year_month(last, 60).0, 9999);
        assert_eq!(timefmt::year_month(last + 1, 60), timefmt::UNKNOWN_YEAR_MONTH);
        let (_, first, last) = earnings_bounds(24 * 60);
        assert!(first > last, "an invalid offset places nothing");
    }
}

/// Turns for the database's write lock inside this process, first come first
/// served. SQLite has one write lock per file and a writer that finds it
/// taken sleeps in the busy handler's back-off (1, 2, 5, 10, … ms) and may
/// wake well after the lock came free; queueing here wakes the next writer
/// the moment the last one commits. PostgreSQL locks rows, so it needs none.
#[derive(Debug, Clone, Default)]
pub(crate) struct WriteGate(Option<std::sync::Arc<tokio::sync::Mutex<()>>>);

/// Held for the whole of a write; `None` where writers need no turns.
pub(crate) type WriteTurn = Option<tokio::sync::OwnedMutexGuard<()>>;

impl WriteGate {
    /// One writer at a time (SQLite).
    pub(crate) fn serial() -> Self {
        WriteGate(Some(std::sync::Arc::new(tokio::sync::Mutex::new(()))))
    }

    /// Writers go concurrently (PostgreSQL).
    pub(crate) fn concurrent() -> Self {
        WriteGate(None)
    }

    pub(crate) async fn turn(&self) -> WriteTurn {
        match &self.0 {
            Some(lock) => Some(lock.clone().lock_owned().await),
            None => None,
        }
    }
}
