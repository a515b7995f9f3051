//! Row wrapper types (`#[derive(sqlx::FromRow)]`), so the domain types carry
//! no sqlx: each reads a row and turns it into the engine's type, taking the
//! fields that have their own writers from their columns. Also the column
//! lists the queries select them with.

use super::money::from_micros;
use crate::error::{StorageError, StorageResult};
use crate::types::{PaymentOrder, PaymentRecord, PaymentStatus, Session};
use sqlx::types::Json;
use uuid::Uuid;
use wayfare_engine::sos::{SosAlert, SosRaiser};
use wayfare_engine::{Booking, BookingId, ChatMessage, LatLng, Promo, SosId, User, UserId, WithdrawRequest};

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
    pub description: Option<String>,
}

impl WalletRow {
    pub(crate) fn into_record(self) -> StorageResult<crate::types::WalletRecord> {
        Ok(crate::types::WalletRecord {
            entry: wayfare_engine::WalletEntry {
                entry_type: super::columns::parse_entry_type(&self.entry_type)?,
                amount: from_micros(self.amount_micros),
                date: self.date,
                txRef: self.tx_ref,
                description: self.description,
            },
            idempotency_key: self.idempotency_key,
        })
    }
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
    pub description: Option<String>,
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
pub(crate) struct OAuthAttemptRow {
    pub id: Uuid,
    pub provider: String,
    pub state_hash: String,
    pub code_verifier: String,
    pub nonce: String,
    pub redirect_uri: String,
    pub return_to: String,
    pub created_at: i64,
    pub expires_at: i64,
}

impl OAuthAttemptRow {
    pub fn into_attempt(self) -> crate::types::OAuthAttempt {
        crate::types::OAuthAttempt {
            id: self.id,
            provider: self.provider,
            state_hash: self.state_hash,
            code_verifier: self.code_verifier,
            nonce: self.nonce,
            redirect_uri: self.redirect_uri,
            return_to: self.return_to,
            created_at: self.created_at,
            expires_at: self.expires_at,
        }
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

/// The columns of a refund, in the order [`RefundRow`] reads them.
pub(crate) const REFUND_COLUMNS: &str = "id, payment_id, booking_id, user_id, amount_micros, currency, destination,
    reason, status, gateway_ref, idempotency_key, made_by, created_at";

#[derive(sqlx::FromRow)]
pub(crate) struct RefundRow {
    pub id: Uuid,
    pub payment_id: Option<Uuid>,
    pub booking_id: Uuid,
    pub user_id: Uuid,
    pub amount_micros: i64,
    pub currency: String,
    pub destination: String,
    pub reason: String,
    pub status: String,
    pub gateway_ref: Option<String>,
    pub idempotency_key: String,
    pub made_by: Uuid,
    pub created_at: i64,
}

impl RefundRow {
    pub(crate) fn into_refund(self) -> StorageResult<wayfare_engine::refund::Refund> {
        use wayfare_engine::refund::{Refund, RefundDestination, RefundStatus};
        let destination = RefundDestination::parse(&self.destination)
            .ok_or_else(|| StorageError::Corrupt(format!("refund {} goes to {}", self.id, self.destination)))?;
        let status = RefundStatus::parse(&self.status)
            .ok_or_else(|| StorageError::Corrupt(format!("refund {} has status {}", self.id, self.status)))?;
        Ok(Refund {
            id: wayfare_engine::RefundId(self.id),
            payment: self.payment_id,
            booking: wayfare_engine::BookingId(self.booking_id),
            user: UserId(self.user_id),
            amount: from_micros(self.amount_micros),
            currency: self.currency,
            destination,
            reason: self.reason,
            status,
            gateway_ref: self.gateway_ref,
            idempotency_key: self.idempotency_key,
            made_by: UserId(self.made_by),
            created_at: self.created_at,
        })
    }
}
