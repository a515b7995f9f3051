//! What an import reads into and hands back: the options, what Wayfare
//! already holds, the mapped records, and the references the mappers share
//! while they read one export.

use super::report::Report;
use crate::booking::ParcelImage;
use crate::ids::{BookingId, CarTypeId, PromoId, UserId};
use crate::model::{
    Booking, CarType, ChatMessage, Language, Millis, Notification, Promo, Role, Settings, TrackingPoint, User,
    WalletEntry, WithdrawRequest,
};
use crate::sos::SosAlert;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use uuid::Uuid;

/// The source name records are kept under (`imported_records.source`).
pub const SOURCE: &str = "exicube";

/// How an import runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// The import's time: imported active bookings' timers count from it.
    pub now: Millis,
}

/// What Wayfare already holds that an import must fit into: records with the
/// same unique value (an e-mail, a car type's name) are the same record.
#[derive(Debug, Clone, Default)]
pub struct Existing {
    /// The settings row; the original's settings are laid over it.
    pub settings: Option<Settings>,
    /// Users by e-mail (lower case), mobile (as `normalise_phone` writes it)
    /// and referral code.
    pub users_by_email: HashMap<String, UserId>,
    pub users_by_mobile: HashMap<String, UserId>,
    pub users_by_referral: HashMap<String, UserId>,
    pub car_types: Vec<(CarTypeId, String)>,
    pub promos: Vec<(PromoId, String)>,
    /// Languages already there (or the ones Wayfare ships): a language of
    /// the same locale is updated, its dictionary completed.
    pub languages: Vec<Language>,
}

/// A payment gateway's settings from `payment_settings/{name}`, by the
/// original's field names (the server checks them against its gateways and
/// seals the secrets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatewayImport {
    pub name: String,
    pub active: bool,
    pub testing: bool,
    /// Non-empty values, numbers as text.
    pub fields: BTreeMap<String, String>,
}

/// A chat message with its id (the same on every import).
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedChat {
    pub id: Uuid,
    pub booking: BookingId,
    pub message: ChatMessage,
    /// Messages of finished bookings come over read.
    pub read_at: Option<Millis>,
}

/// A tracking point of a booking.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImportedPoint {
    pub booking: BookingId,
    pub point: TrackingPoint,
}

/// The original key of a record and what Wayfare had no field for, kept
/// beside the record it became (`entity`), or alone when Wayfare has no such
/// entity (a complaint).
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedRecord {
    pub node: String,
    pub key: String,
    pub entity: Option<Uuid>,
    pub extra: Map<String, Value>,
}

/// Everything an export becomes, in the order it must be written (users
/// before the bookings and ledger entries that point at them).
#[derive(Debug, Clone, Default)]
pub struct Mapped {
    pub settings: Option<Settings>,
    pub cancel_reasons: Option<Vec<String>>,
    pub car_types: Vec<CarType>,
    pub promos: Vec<Promo>,
    /// Who used which promo (by promo name), from the bookings.
    pub promo_uses: Vec<(String, UserId)>,
    pub notifications: Vec<Notification>,
    pub languages: Vec<Language>,
    pub gateways: Vec<GatewayImport>,
    pub users: Vec<User>,
    pub bookings: Vec<Booking>,
    pub tracking: Vec<ImportedPoint>,
    pub chats: Vec<ImportedChat>,
    pub sos: Vec<SosAlert>,
    pub withdraws: Vec<WithdrawRequest>,
    /// `walletHistory` as ledger entries, and one opening entry per wallet
    /// whose history does not add up to its balance.
    pub ledger: Vec<LedgerLine>,
    pub files: Vec<StorageFile>,
    pub records: Vec<ImportedRecord>,
    pub report: Report,
}

/// A user as the other nodes refer to it.
#[derive(Debug, Clone)]
pub(crate) struct UserRef {
    pub id: UserId,
    pub role: Role,
    pub referral: String,
}

/// A booking as the other nodes refer to it.
#[derive(Debug, Clone)]
pub(crate) struct BookingRef {
    pub id: BookingId,
    pub reference: String,
    pub customer: UserId,
    pub driver: Option<UserId>,
    pub fleetadmin: Option<UserId>,
    pub customer_name: String,
    pub driver_name: String,
    pub pickup: crate::model::LatLng,
    /// COMPLETE or CANCELLED.
    pub finished: bool,
}

/// What the mappers share while they read one export.
pub(crate) struct Context<'a> {
    pub root: &'a Map<String, Value>,
    pub options: Options,
    pub existing: &'a Existing,
    /// `settings.decimal` of the mapped settings.
    pub decimals: u32,
    pub settings: Settings,
    pub users: HashMap<String, UserRef>,
    pub bookings: HashMap<String, BookingRef>,
    /// Original promo name or code to the Wayfare promo name.
    pub promo_names: HashMap<String, String>,
}

impl<'a> Context<'a> {
    /// A node of the export (borrowed from the export, not the context).
    pub fn node(&self, name: &str) -> Option<&'a Value> {
        self.root.get(name).filter(|value| !value.is_null())
    }

    pub fn user(&self, key: &str) -> Option<&UserRef> {
        self.users.get(key)
    }
}

/// One ledger entry to write: the entry as the wallet history shows it, its
/// id and the idempotency key that makes writing it twice change nothing.
#[derive(Debug, Clone, PartialEq)]
pub struct LedgerLine {
    pub id: Uuid,
    pub user: UserId,
    pub entry: WalletEntry,
    pub idempotency_key: String,
}

impl LedgerLine {
    pub fn signed_amount(&self) -> rust_decimal::Decimal {
        self.entry.entry_type.sign() * self.entry.amount
    }
}

/// Which record field a file fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileTarget {
    ProfileImage(UserId),
    License(UserId),
    CarTypeImage(CarTypeId),
    ParcelPhoto(BookingId, ParcelImage),
}

impl FileTarget {
    /// Who owns the file (its uploader in Wayfare's terms).
    pub fn owner(&self) -> Option<UserId> {
        match self {
            FileTarget::ProfileImage(user) | FileTarget::License(user) => Some(*user),
            FileTarget::CarTypeImage(_) | FileTarget::ParcelPhoto(..) => None,
        }
    }

    /// The folder of Wayfare's file store it goes in, as uploads do
    /// (`http/src/routes/files.rs`).
    pub fn folder(&self) -> String {
        match self {
            FileTarget::ProfileImage(user) => format!("users/{user}/profileImage"),
            FileTarget::License(user) => format!("users/{user}/license"),
            FileTarget::CarTypeImage(car_type) => format!("cartypes/{car_type}"),
            FileTarget::ParcelPhoto(booking, slot) => format!("bookings/{booking}/{}", slot.as_str()),
        }
    }
}

/// A file of the original's Storage and the field it fills.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageFile {
    /// Its path in the bucket, e.g. `users/8xZ…/profileImage`.
    pub path: String,
    pub target: FileTarget,
}

impl StorageFile {
    /// The Wayfare file id of this file: the same on every import.
    pub fn file_id(&self) -> Uuid {
        super::ids::original_id("storage", &self.path)
    }
}
