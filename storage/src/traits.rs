//! The parts of [`Storage`](crate::Storage), one trait per aggregate, each
//! small enough to hold in mind: a function that only reads the catalogue can
//! take `&dyn Catalogue`. Callers still hold an `Arc<dyn Storage>`, which has
//! every part's methods; to call them on a concrete store (`SqliteStorage`,
//! `PostgresStorage`), bring the parts into scope with
//! `use wayfare_storage::prelude::*`.

use crate::error::StorageResult;
use crate::types::*;
use async_trait::async_trait;
use rust_decimal::Decimal;
use wayfare_engine::booking::{Effect, WalletChange};
use wayfare_engine::dispatch::DispatchEntry;
use wayfare_engine::exicube::{ImportedChat, ImportedPoint, ImportedRecord, LedgerLine};
use wayfare_engine::refund::Refund;
use wayfare_engine::sos::{SosAlert, SosState};
use wayfare_engine::{
    Booking, BookingId, CarType, CarTypeId, ChatMessage, DashboardEarnings, DocumentKind, DocumentStatus,
    DriverDocument, EarningsReportRow, EarningsRow, Language, LanguageId, LatLng, Millis, Notification, NotificationId,
    PaymentProvider, Promo, PromoId, Ratings, Settings, SosId, TrackingPoint, User, UserId, WithdrawId,
    WithdrawRequest,
};

/// What the admin panel configures and publishes: the settings, car types,
/// cancellation reasons, payment providers, promo codes, broadcast
/// notifications and languages. Small tables, read often, written rarely.
#[async_trait]
pub trait Catalogue: Send + Sync {
    // ---- settings -----------------------------------------------------------
    /// The settings row, `None` before the first save.
    async fn settings(&self) -> StorageResult<Option<Settings>>;
    async fn save_settings(&self, settings: &Settings, now: Millis) -> StorageResult<()>;

    // ---- car types ----------------------------------------------------------
    async fn car_types(&self) -> StorageResult<Vec<CarType>>;
    async fn car_type(&self, id: CarTypeId) -> StorageResult<CarType>;
    async fn car_type_by_name(&self, name: &str) -> StorageResult<CarType>;
    /// Inserts or replaces (by id). Names are unique: `Duplicate`.
    async fn save_car_type(&self, car_type: &CarType, now: Millis) -> StorageResult<()>;
    async fn delete_car_type(&self, id: CarTypeId) -> StorageResult<()>;

    // ---- cancellation reasons and payment providers -------------------------
    /// The simple list of cancellation reasons, in order.
    async fn cancel_reasons(&self) -> StorageResult<Vec<String>>;
    async fn save_cancel_reasons(&self, reasons: &[String], now: Millis) -> StorageResult<()>;
    async fn payment_providers(&self) -> StorageResult<Vec<PaymentProvider>>;
    async fn save_payment_providers(&self, providers: &[PaymentProvider], now: Millis) -> StorageResult<()>;

    // ---- payment gateways' settings (issue #37) -----------------------------
    /// Every gateway saved from the panel, by name.
    async fn payment_gateways(&self) -> StorageResult<Vec<StoredGateway>>;
    async fn payment_gateway(&self, name: &str) -> StorageResult<Option<StoredGateway>>;
    /// Saves a gateway's settings and records the change, together.
    async fn save_payment_gateway(&self, gateway: &StoredGateway, change: &GatewayChange) -> StorageResult<()>;
    /// Changes newest first; of one gateway, or of all.
    async fn payment_gateway_changes(
        &self,
        gateway: Option<&str>,
        page: &PageRequest,
    ) -> StorageResult<Page<GatewayChange>>;

    // ---- promos -------------------------------------------------------------
    async fn promos(&self) -> StorageResult<Vec<Promo>>;
    async fn promo(&self, id: PromoId) -> StorageResult<Promo>;
    async fn promo_by_name(&self, name: &str) -> StorageResult<Option<Promo>>;
    async fn save_promo(&self, promo: &Promo, now: Millis) -> StorageResult<()>;
    async fn delete_promo(&self, id: PromoId) -> StorageResult<()>;
    async fn promo_used_by(&self, promo_name: &str, user: UserId) -> StorageResult<bool>;

    // ---- notifications ------------------------------------------------------
    async fn insert_notification(&self, notification: &Notification) -> StorageResult<()>;
    /// Newest first.
    async fn notifications(&self, page: &PageRequest) -> StorageResult<Page<Notification>>;
    async fn delete_notification(&self, id: NotificationId) -> StorageResult<()>;

    // ---- languages ----------------------------------------------------------
    async fn languages(&self) -> StorageResult<Vec<Language>>;
    /// Inserts or replaces by id. A language saved as default takes the flag
    /// from every other one in the same transaction (`Conflict` if another
    /// transaction did the same at the same moment).
    async fn save_language(&self, language: &Language, now: Millis) -> StorageResult<()>;
    /// Refuses the default language with `DefaultLanguage`.
    async fn delete_language(&self, id: LanguageId) -> StorageResult<()>;
    /// Makes one language the default and every other not, in one transaction.
    async fn make_default_language(&self, id: LanguageId, now: Millis) -> StorageResult<()>;
}

/// Users and how they sign in: accounts, the drivers' online and busy flags
/// and last-known positions, a driver's ratings, one-time-code challenges and
/// sessions.
#[async_trait]
pub trait Accounts: Send + Sync {
    // ---- users --------------------------------------------------------------
    /// Inserts a new user. A taken e-mail, mobile or referral code is
    /// `Duplicate`. The wallet balance starts at zero whatever the document
    /// says: only the ledger moves it.
    async fn insert_user(&self, user: &User) -> StorageResult<()>;
    async fn user(&self, id: UserId) -> StorageResult<User>;
    /// The users of these ids that exist, by id (a primary-key read each;
    /// for a page's worth of ids, at most a few hundred).
    async fn users_by_id(&self, ids: &[UserId]) -> StorageResult<Vec<User>>;
    async fn user_by_email(&self, email: &str) -> StorageResult<Option<User>>;
    async fn user_by_mobile(&self, mobile: &str) -> StorageResult<Option<User>>;
    async fn user_by_referral(&self, referral_id: &str) -> StorageResult<Option<User>>;
    /// Writes every field but the wallet balance, which only the ledger
    /// moves, and `driverActiveStatus` and `queue`, which only
    /// [`Accounts::set_driver_active`] and [`Accounts::set_queue`] do.
    async fn update_user(&self, user: &User, now: Millis) -> StorageResult<()>;
    /// Reads the user, lets `edit` change it and writes it as
    /// [`Accounts::update_user`] does, with no other write in between (the row
    /// is locked from the read to the commit), so an edit of some fields never
    /// writes back a stale copy of the others (a saved address, a new photo).
    /// `edit` returns false to write nothing: the answer is then `None`.
    async fn modify_user(
        &self,
        id: UserId,
        now: Millis,
        edit: &mut (dyn for<'u> FnMut(&'u mut User) -> bool + Send),
    ) -> StorageResult<Option<User>>;
    async fn delete_user(&self, id: UserId) -> StorageResult<()>;
    async fn list_users(&self, filter: &UserFilter, page: &PageRequest) -> StorageResult<Page<User>>;
    /// Push targets for a broadcast, in pages by id.
    async fn push_targets(&self, filter: &PushFilter, page: &PageRequest) -> StorageResult<Page<PushTarget>>;
    /// The driver's average and details after a rating (for the live views).
    async fn ratings(&self, driver: UserId) -> StorageResult<Option<Ratings>>;

    // ---- drivers' flags and positions ---------------------------------------
    async fn set_driver_active(&self, driver: UserId, active: bool, now: Millis) -> StorageResult<()>;
    async fn set_queue(&self, driver: UserId, busy: bool, now: Millis) -> StorageResult<()>;
    /// Latest known positions, written behind the live index in batches.
    async fn save_locations(&self, positions: &[(UserId, LatLng)], now: Millis) -> StorageResult<()>;
    /// Online drivers with a location: what the dispatch index is rebuilt from at start.
    async fn online_drivers(&self) -> StorageResult<Vec<User>>;

    // ---- sign-in ------------------------------------------------------------
    async fn insert_challenge(&self, challenge: &Challenge) -> StorageResult<()>;
    /// The newest unconsumed challenge for a contact.
    async fn latest_challenge(&self, contact: &str) -> StorageResult<Option<Challenge>>;
    /// Counts one wrong code; returns the attempts so far.
    async fn record_failed_attempt(&self, id: uuid::Uuid) -> StorageResult<u32>;
    async fn consume_challenge(&self, id: uuid::Uuid, now: Millis) -> StorageResult<()>;
    /// Challenges made for a contact since a time (rate limiting).
    async fn challenges_since(&self, contact: &str, since: Millis) -> StorageResult<u64>;
    async fn insert_session(&self, session: &Session) -> StorageResult<()>;
    /// A session by token hash, whether or not expired or revoked.
    async fn session(&self, token_hash: &str) -> StorageResult<Option<Session>>;
    /// A session by token hash with its user, in one read (every signed-in
    /// request asks); `None` when either is missing.
    async fn session_with_user(&self, token_hash: &str) -> StorageResult<Option<(Session, User)>>;
    async fn revoke_session(&self, token_hash: &str, now: Millis) -> StorageResult<()>;
    async fn revoke_user_sessions(&self, user: UserId, now: Millis) -> StorageResult<u64>;

    // ---- social sign-in -----------------------------------------------------
    /// Stores a new attempt (and forgets the ones that expired before it).
    async fn insert_oauth_attempt(&self, attempt: &OAuthAttempt) -> StorageResult<()>;
    /// Uses up the attempt with this id and state hash, unused and unexpired
    /// at `now`, in one statement: of two callbacks with it only one gets it.
    /// Anything else (unknown, another state, used, expired) is `NotFound`
    /// and changes nothing.
    async fn take_oauth_attempt(&self, id: uuid::Uuid, state_hash: &str, now: Millis) -> StorageResult<OAuthAttempt>;
    /// The user a provider's person is linked to.
    async fn user_by_identity(&self, provider: &str, subject: &str) -> StorageResult<Option<User>>;
    /// Links a provider's person to a user; linked already is `Duplicate`.
    async fn link_identity(&self, identity: &UserIdentity) -> StorageResult<()>;
}

/// Uploaded files and the drivers' documents (issue #33): the approval
/// queue and the expiry reminders.
#[async_trait]
pub trait Documents: Send + Sync {
    // ---- files --------------------------------------------------------------
    async fn insert_file(&self, file: &FileRecord) -> StorageResult<()>;
    async fn file(&self, id: uuid::Uuid) -> StorageResult<FileRecord>;

    // ---- drivers' documents -------------------------------------------------
    /// Inserts the driver's document of its kind, or replaces the current one.
    async fn save_driver_document(&self, document: &DriverDocument) -> StorageResult<()>;
    /// The driver's current documents, by kind (a primary-key range read).
    async fn driver_documents(&self, driver: UserId) -> StorageResult<Vec<DriverDocument>>;
    /// Sets every pending document of the driver to `status`, with who
    /// reviewed it, when, and (a rejection) why; returns those documents.
    async fn review_driver_documents(
        &self,
        driver: UserId,
        status: DocumentStatus,
        reason: Option<&str>,
        by: UserId,
        now: Millis,
    ) -> StorageResult<Vec<DriverDocument>>;
    /// The approval queue: drivers (of `fleet`, when given) with a document
    /// waiting for review who are approved already (a replacement) or have
    /// every `required` kind uploaded and not rejected; by id, keyset-paged.
    /// Read from the pending index, so it costs what the queue holds.
    async fn driver_applications(
        &self,
        fleet: Option<UserId>,
        required: &[DocumentKind],
        page: &PageRequest,
    ) -> StorageResult<Page<User>>;
    /// How many drivers [`Documents::driver_applications`] lists.
    async fn count_driver_applications(&self, fleet: Option<UserId>, required: &[DocumentKind]) -> StorageResult<u64>;
    /// Documents expiring by `before` that were not reminded of yet,
    /// soonest first, at most `limit`.
    async fn documents_to_remind(&self, before: Millis, limit: u32) -> StorageResult<Vec<DriverDocument>>;
    /// Marks the reminder sent unless it already was: true when this call
    /// did (two nodes sweeping at once remind once).
    async fn mark_document_reminded(&self, driver: UserId, kind: DocumentKind, now: Millis) -> StorageResult<bool>;
    /// The documents of online drivers that expired by `now`.
    async fn online_expired_documents(&self, now: Millis) -> StorageResult<Vec<DriverDocument>>;
}

/// Bookings and what hangs off one: the offers it holds, SOS alerts, the
/// trip's tracking points and its chat.
#[async_trait]
pub trait Bookings: Send + Sync {
    // ---- bookings -----------------------------------------------------------
    /// Writes a booking and the persistent effects of its transition in one
    /// transaction: the booking (insert when `expected_version` is `None`,
    /// else compare-and-set on (id, version), `Conflict` when someone wrote
    /// first), the offers it holds, wallet entries (idempotent), tracking
    /// points, queue flags, ratings, saved addresses, promo uses and refunds
    /// (a refund key already done is `Duplicate`: nothing is written). Effects
    /// that are not state (notifications, timers, offers to publish) are
    /// ignored. Returns the stored booking with its new version.
    async fn commit_booking(
        &self,
        booking: &Booking,
        expected_version: Option<u64>,
        effects: &[Effect],
        now: Millis,
    ) -> StorageResult<Committed>;
    async fn booking(&self, id: BookingId) -> StorageResult<Booking>;
    async fn list_bookings(&self, filter: &BookingFilter, page: &PageRequest) -> StorageResult<Page<Booking>>;
    /// Every booking not COMPLETE or CANCELLED: what the actors restart from.
    async fn active_bookings(&self) -> StorageResult<Vec<Booking>>;
    /// Bookings whose requestedDrivers holds this driver (the driver's tasks).
    async fn bookings_offered_to(&self, driver: UserId) -> StorageResult<Vec<Booking>>;
    /// Money owed (issue #34): bookings in PENDING (card payment not made)
    /// and bookings with part of a cancellation fee owed, newest trip first,
    /// at most `limit` of each; a fleet admin's scope is their fleet.
    async fn owed_bookings(&self, fleetadmin: Option<UserId>, limit: u32) -> StorageResult<OwedBookings>;
    /// A driver's bookings that the earnings rules count (PAID, COMPLETE,
    /// and CANCELLED with a cancellation fee) with a trip date in
    /// `[from, until)`, in trip date order: a weekly statement's trips.
    async fn driver_trips(&self, driver: UserId, from: Millis, until: Millis) -> StorageResult<Vec<Booking>>;
    /// The trip dates of the same bookings, over all time: the weeks a
    /// driver has statements for.
    async fn driver_trip_dates(&self, driver: UserId) -> StorageResult<Vec<Millis>>;
    /// The pickups and trip dates of the newest `limit` bookings (any
    /// status: each was a rider asking) with a trip date in `[from, until)`,
    /// oldest first, read by the trip-date index: the demand a starting node
    /// learns its idle drivers' areas from (`engine::reposition`).
    async fn recent_pickups(&self, from: Millis, until: Millis, limit: u32) -> StorageResult<Vec<(LatLng, Millis)>>;

    // ---- SOS alerts ---------------------------------------------------------
    /// Stores a new alert, unless its raiser already has an open one on the
    /// same booking: then that one, and `false`.
    async fn raise_sos(&self, alert: &SosAlert, now: Millis) -> StorageResult<(SosAlert, bool)>;
    async fn sos_alert(&self, id: SosId) -> StorageResult<SosAlert>;
    /// Unresolved first, then newest first (an index seek per page).
    async fn sos_alerts(&self, filter: &SosFilter, page: &PageRequest) -> StorageResult<Page<SosAlert>>;
    /// Writes who took or resolved an alert (the engine decided it), only
    /// if the stored alert is still in the `from` state: `Conflict` if
    /// someone else moved it first, `NotFound` if there is no such alert.
    async fn update_sos(&self, alert: &SosAlert, from: SosState, now: Millis) -> StorageResult<()>;

    // ---- tracking and chat --------------------------------------------------
    async fn append_tracking(&self, booking: BookingId, point: &TrackingPoint) -> StorageResult<()>;
    async fn latest_tracking(&self, booking: BookingId) -> StorageResult<Option<TrackingPoint>>;
    /// In time order.
    async fn tracking(&self, booking: BookingId) -> StorageResult<Vec<TrackingPoint>>;
    async fn append_chat(&self, booking: BookingId, message: &ChatMessage) -> StorageResult<StoredChat>;
    /// In time order.
    async fn chat(&self, booking: BookingId) -> StorageResult<Vec<StoredChat>>;
    /// Marks the messages not sent by `reader` read, assigning their smsId; returns how many.
    async fn mark_chat_read(&self, booking: BookingId, reader: UserId, now: Millis) -> StorageResult<u64>;
}

/// Money: the wallet ledger and balances, withdraw requests and card
/// payments through a gateway.
#[async_trait]
pub trait Ledger: Send + Sync {
    // ---- wallet -------------------------------------------------------------
    /// Applies one ledger entry and moves the balance in the same transaction.
    /// The same (user, idempotency key) twice changes nothing the second time.
    async fn apply_wallet(&self, change: &WalletChange, now: Millis) -> StorageResult<WalletOutcome>;
    /// [`Ledger::apply_wallet`] with the entry's description (an admin's
    /// reason), and, with `expected_balance`, only if the balance is still
    /// that (`Conflict` otherwise): an adjustment lands on its target or not
    /// at all.
    async fn apply_wallet_noted(
        &self,
        change: &WalletChange,
        note: Option<&str>,
        expected_balance: Option<Decimal>,
        now: Millis,
    ) -> StorageResult<WalletOutcome>;
    async fn wallet_balance(&self, user: UserId) -> StorageResult<Decimal>;
    /// The user's ledger entry of an idempotency key, if it was written.
    async fn wallet_entry(&self, user: UserId, idempotency_key: &str) -> StorageResult<Option<WalletRecord>>;
    /// Newest first.
    async fn wallet_history(&self, user: UserId, page: &PageRequest) -> StorageResult<Page<WalletRecord>>;
    /// Every ledger entry a booking made, oldest first.
    async fn booking_ledger(&self, booking: BookingId) -> StorageResult<Vec<LedgerRecord>>;

    // ---- withdraws ----------------------------------------------------------
    /// Debits the wallet through the ledger and stores the request, together.
    async fn create_withdraw(
        &self,
        request: &WithdrawRequest,
        debit: &WalletChange,
        now: Millis,
    ) -> StorageResult<WalletOutcome>;
    /// Sets processed and procesDate once; a second time is `AlreadyProcessed`.
    async fn complete_withdraw(&self, id: WithdrawId, now: Millis) -> StorageResult<WithdrawRequest>;
    /// One withdraw request, as it now is.
    async fn withdraw(&self, id: WithdrawId) -> StorageResult<WithdrawRequest>;
    /// Newest first; all users when `user` is `None`.
    async fn withdraws(&self, user: Option<UserId>, page: &PageRequest) -> StorageResult<Page<WithdrawRequest>>;

    // ---- payments -----------------------------------------------------------
    async fn insert_payment(&self, payment: &PaymentRecord) -> StorageResult<()>;
    async fn payment(&self, id: uuid::Uuid) -> StorageResult<PaymentRecord>;
    /// A payer's payments, newest first, at most `limit`.
    async fn payments_of(&self, customer: UserId, limit: u32) -> StorageResult<Vec<PaymentRecord>>;
    /// The payment a gateway knows by its own id (`payments_gateway_ref`).
    async fn payment_by_reference(&self, gateway: &str, gateway_ref: &str) -> StorageResult<PaymentRecord>;
    /// Records the gateway's id for a pending payment (unique per gateway).
    async fn set_payment_reference(&self, id: uuid::Uuid, gateway_ref: &str, now: Millis) -> StorageResult<()>;
    /// The settled gateway payment of a booking's fare, if it was paid
    /// through one (the newest, should there be more).
    async fn booking_payment(&self, booking: BookingId) -> StorageResult<Option<PaymentRecord>>;
    /// Moves a pending payment to `status` (with the confirming event, if
    /// any), once: `true` when this call settled it, `false` when it was
    /// already settled. `NotFound` when there is no such payment.
    async fn settle_payment(
        &self,
        id: uuid::Uuid,
        status: PaymentStatus,
        event_id: Option<&str>,
        now: Millis,
    ) -> StorageResult<bool>;

    // ---- refunds (issue #37) ------------------------------------------------
    // A done refund is written with its booking by `Bookings::commit_booking`
    // (`Effect::Refund`), with its ledger credit when it went to the wallet.
    /// Keeps a refund the gateway declined (status `failed`); a retry of the
    /// same key may later make it done. A done refund of the key stays done.
    async fn record_failed_refund(&self, refund: &Refund, now: Millis) -> StorageResult<()>;
    async fn refund_by_key(&self, idempotency_key: &str) -> StorageResult<Option<Refund>>;
    /// A booking's refunds, done and failed, oldest first.
    async fn booking_refunds(&self, booking: BookingId) -> StorageResult<Vec<Refund>>;
    /// The done refunds of a booking, summed by destination.
    async fn refunded_by_booking(&self, booking: BookingId) -> StorageResult<RefundSums>;
    /// The done refunds of a gateway payment, summed by destination.
    async fn refunded_by_payment(&self, payment: uuid::Uuid) -> StorageResult<RefundSums>;
    // ---- receipts by e-mail (issue #37) -----------------------------------------
    /// Records that a booking's receipt is being sent to `to`, once: `true`
    /// when this call claimed it, `false` when it was claimed before.
    async fn claim_receipt_mail(&self, booking: BookingId, to: &str, now: Millis) -> StorageResult<bool>;
    /// Forgets a claim whose e-mail could not be sent, so a later payment
    /// event may try again.
    async fn release_receipt_mail(&self, booking: BookingId) -> StorageResult<()>;
}

/// What is summed rather than stored: earnings (from the monthly roll-up
/// when it can), the dashboard's cards, and the consistency audit.
#[async_trait]
pub trait Reports: Send + Sync {
    // ---- earnings -----------------------------------------------------------
    /// Spec §3 earnings rows, summed in SQL by the rules of `engine::earnings`.
    async fn driver_earnings(&self, scope: &EarningsScope) -> StorageResult<Vec<EarningsRow>>;
    async fn earnings_report(&self, scope: &EarningsScope) -> StorageResult<Vec<EarningsReportRow>>;
    /// One page of [`Reports::earnings_report`], newest month first, then by
    /// driver id (descending): what the panel's table shows, 50 rows at a
    /// time. Whole months in the roll-up's offset page through the roll-up;
    /// other scopes are summed from the bookings and paged after.
    async fn earnings_report_page(
        &self,
        scope: &EarningsScope,
        page: &PageRequest,
    ) -> StorageResult<Page<EarningsReportRow>>;
    /// One page of [`Reports::driver_earnings`], in the same order.
    async fn driver_earnings_page(&self, scope: &EarningsScope, page: &PageRequest)
    -> StorageResult<Page<EarningsRow>>;
    /// Cuts the monthly earnings roll-up and the dashboard's in this offset
    /// (minutes east of UTC), rebuilding them from the bookings when the
    /// offset changes or they do not hold every booking yet (after a
    /// migration or a bulk load).
    /// Scopes in this offset over whole months are then answered from the
    /// roll-up; others are summed from the bookings, with the same result.
    async fn prepare_earnings_rollup(&self, utc_offset_minutes: i32) -> StorageResult<()>;
    /// The dashboard's gross earning cards (spec §2, §9's panel rule) of a
    /// scope. In the roll-up's offset they are read from the dashboard
    /// roll-up (three primary-key reads); in another offset, or before the
    /// roll-up is built, they are summed from the bookings, with the same
    /// result.
    async fn dashboard_earnings(&self, scope: &DashboardScope) -> StorageResult<DashboardEarnings>;

    // ---- consistency --------------------------------------------------------
    /// Checks the invariants a crash must never break (ledger against
    /// balances, one trip per driver, busy flags, offers): reads every user
    /// and booking, so it is an operator's tool, not a request's.
    async fn audit(&self) -> StorageResult<Audit>;
}

/// Bulk writes of an import from another product (issue #38): every record
/// by its id, inserted or replaced (`INSERT … ON CONFLICT … DO UPDATE`),
/// many rows per statement, each call in one transaction, so importing the
/// same records again changes nothing. Meant for a database no server is
/// writing to at the same time (the import runs with the server stopped).
#[async_trait]
pub trait Import: Send + Sync {
    /// Every user's id, e-mail, mobile and referral code.
    async fn user_contacts(&self) -> StorageResult<Vec<UserContact>>;
    /// Settings, cancellation reasons (replaced), car types, promos and
    /// their uses, notifications and languages (an imported default takes
    /// the flag), together.
    async fn import_catalogue(&self, catalogue: &CatalogueImport<'_>, now: Millis) -> StorageResult<()>;
    /// Users with every column but the wallet balance, which only the
    /// ledger moves (a new user starts at zero).
    async fn upsert_users(&self, users: &[User], now: Millis) -> StorageResult<()>;
    /// Bookings and their offers; an existing one's version moves on. The
    /// earnings roll-ups are marked for a rebuild
    /// ([`Reports::prepare_earnings_rollup`]).
    async fn upsert_bookings(&self, bookings: &[Booking], now: Millis) -> StorageResult<()>;
    /// Replaces the imported tracking points of the bookings these points
    /// belong to (give each booking's points in one call); points Wayfare
    /// recorded stay.
    async fn replace_imported_tracking(&self, points: &[ImportedPoint], now: Millis) -> StorageResult<()>;
    /// A first import's bookings: into an empty bookings table, all of
    /// them and their offers in one transaction, the table's indexes and
    /// text index built once after the rows (the rows are those
    /// [`Import::upsert_bookings`] writes; a failure leaves the tables
    /// empty). Calls `progress` with the bookings written as it goes.
    /// Returns false, writing nothing, when the table holds bookings: then
    /// write them with `upsert_bookings`.
    async fn load_bookings(
        &self,
        bookings: &[Booking],
        now: Millis,
        progress: &(dyn Fn(u64) + Send + Sync),
    ) -> StorageResult<bool>;
    /// A first import's tracking points, as [`Import::load_bookings`]: into
    /// an empty tracking table, in one transaction, its index built once
    /// after; false, writing nothing, when it holds points (then use
    /// `replace_imported_tracking`).
    async fn load_tracking(
        &self,
        points: &[ImportedPoint],
        now: Millis,
        progress: &(dyn Fn(u64) + Send + Sync),
    ) -> StorageResult<bool>;
    async fn upsert_chats(&self, chats: &[ImportedChat], now: Millis) -> StorageResult<()>;
    async fn upsert_sos(&self, alerts: &[SosAlert], now: Millis) -> StorageResult<()>;
    async fn upsert_withdraws(&self, withdraws: &[WithdrawRequest], now: Millis) -> StorageResult<()>;
    /// Ledger entries by (user, idempotency key): one written before stays
    /// as it is; the new ones move their users' balances in the same
    /// transaction. Returns how many were new.
    async fn import_ledger(&self, lines: &[LedgerLine], now: Millis) -> StorageResult<u64>;
    /// The wallet balances of these users (those that exist).
    async fn wallet_balances(&self, users: &[UserId]) -> StorageResult<Vec<(UserId, Decimal)>>;
    async fn upsert_files(&self, files: &[FileRecord], now: Millis) -> StorageResult<()>;
    /// The original keys and unused fields of imported records.
    async fn upsert_imported_records(&self, source: &str, records: &[ImportedRecord], now: Millis)
    -> StorageResult<()>;
    /// The rows of every table an import writes, by table name (what an
    /// operator and the tests compare before and after).
    async fn table_counts(&self) -> StorageResult<std::collections::BTreeMap<String, u64>>;
}

/// The dispatch timeline: what auto-dispatch did with each booking, written
/// behind by the runtime's log writer.
#[async_trait]
pub trait DispatchLogStore: Send + Sync {
    /// Appends dispatch log entries in one transaction, keeping their order
    /// (the runtime's log writer calls it with a batch).
    async fn append_dispatch_events(&self, entries: &[DispatchEntry], now: Millis) -> StorageResult<()>;
    /// A booking's dispatch log, oldest first (an index seek on the booking).
    async fn dispatch_events(&self, booking: BookingId) -> StorageResult<Vec<DispatchEntry>>;
    /// The last `limit` entries of every booking, newest first, in the order
    /// they were written (the primary key read backwards: no scan).
    async fn recent_dispatch_events(&self, limit: u32) -> StorageResult<Vec<DispatchEntry>>;
}

/// Leases that say which node serves what when Wayfare runs on more than one
/// machine.
#[async_trait]
pub trait Cluster: Send + Sync {
    /// Takes the lease of (`kind`, `key`) for `node` until `expires_at`, or
    /// renews it: true when `node` holds it afterwards, false when another
    /// node holds it past `now`. Times are the nodes' clocks (NTP-synced;
    /// the lease lasts far longer than their skew).
    async fn acquire_lease(
        &self,
        kind: &str,
        key: &str,
        node: &str,
        now: Millis,
        expires_at: Millis,
    ) -> StorageResult<bool>;
    /// Extends every lease `node` still holds at `now` to `expires_at`, in
    /// one statement; returns them (in no order). Lapsed ones stay lapsed.
    async fn renew_leases(&self, node: &str, now: Millis, expires_at: Millis) -> StorageResult<Vec<Lease>>;
    /// Leases of `kind` that lapsed by `now` (their node stopped renewing),
    /// oldest first, at most `limit`.
    async fn lapsed_leases(&self, kind: &str, now: Millis, limit: u32) -> StorageResult<Vec<Lease>>;
    async fn lease(&self, kind: &str, key: &str) -> StorageResult<Option<Lease>>;
    /// Gives up one lease, if `node` holds it.
    async fn release_lease(&self, kind: &str, key: &str, node: &str) -> StorageResult<()>;
    /// Lets every lease of `node` lapse now (a graceful stop hands over at
    /// once: the other nodes take them over at their next round).
    async fn release_node_leases(&self, node: &str) -> StorageResult<u64>;
    /// A dead node's burial, in one transaction: deletes the heartbeat lease
    /// (`heartbeat_kind`, `node`) if it lapsed by `now`, and then lets every
    /// lease `node` holds lapse, for the living to take over. `None` when
    /// the heartbeat is fresh or gone (another node buried it first), else
    /// how many leases were let lapse.
    async fn bury_node(&self, heartbeat_kind: &str, node: &str, now: Millis) -> StorageResult<Option<u64>>;
    /// From now on, a booking update through this handle commits only while
    /// `node` holds the booking's `booking` lease unexpired (or the booking
    /// has none: a finished one); otherwise it is refused as `Conflict`,
    /// like a lost compare-and-set. Cluster mode sets it once, at start, so
    /// a node declared dead while it was only paused cannot write over the
    /// node that took its bookings over. Later calls change nothing.
    fn fence_booking_writes(&self, node: &str);
}

/// The whole database as a portable archive (`wayfare export`, `wayfare
/// import wayfare`): every table of [`crate::archive::ARCHIVE_TABLES`], read
/// and written generically with the columns the database itself reports.
#[async_trait]
pub trait Archive: Send + Sync {
    /// The newest migration applied: an archive's schema version.
    async fn schema_version(&self) -> StorageResult<i64>;
    /// The archived tables, parents first, with their columns as this
    /// database has them (backend-local and generated columns left out).
    async fn archive_tables(&self) -> StorageResult<Vec<crate::archive::ArchiveTable>>;
    /// Sends every archived table and its rows down `out`, in batches of
    /// `batch_rows`, all read in one snapshot (a running server's writes
    /// meanwhile are not half in it). The channel is bounded: memory stays
    /// a few batches whatever the tables hold.
    async fn export_archive(
        &self,
        batch_rows: usize,
        out: tokio::sync::mpsc::Sender<crate::archive::ExportItem>,
    ) -> StorageResult<()>;
    /// Applies the migrations not applied yet (a database opened at an
    /// older archive's schema, once the archive is in).
    async fn apply_migrations(&self) -> StorageResult<()>;
    /// The archived tables that hold rows (an import wants none).
    async fn tables_with_rows(&self) -> StorageResult<Vec<String>>;
    /// Writes what `input` sends into this database in one transaction:
    /// refused (`Invalid`) when an archived table holds rows or a table or
    /// column does not match this database's; committed only when
    /// [`ImportItem::Commit`](crate::archive::ImportItem) arrives, rolled
    /// back otherwise. Marks the earnings roll-ups to be rebuilt (they are
    /// not archived): call [`Reports::prepare_earnings_rollup`] after.
    async fn import_archive(
        &self,
        input: tokio::sync::mpsc::Receiver<crate::archive::ImportItem>,
    ) -> StorageResult<crate::archive::ImportSummary>;
}
