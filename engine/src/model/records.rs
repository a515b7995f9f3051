use super::{AmountType, BookingStatus, Millis, Role};
use crate::ids::{BookingId, LanguageId, NotificationId, PromoId, UserId, WithdrawId};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Credit or debit. The spec's second reading calls a debit for a withdraw
/// `Withdraw`; it stays a debit of the ledger with its own type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum WalletEntryType {
    Credit,
    Debit,
    Withdraw,
}

impl WalletEntryType {
    /// +1 for money in, -1 for money out.
    pub fn sign(self) -> Decimal {
        match self {
            WalletEntryType::Credit => Decimal::ONE,
            WalletEntryType::Debit | WalletEntryType::Withdraw => Decimal::NEGATIVE_ONE,
        }
    }
}

/// One wallet history entry (spec §3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[allow(non_snake_case)]
pub struct WalletEntry {
    #[serde(rename = "type")]
    pub entry_type: WalletEntryType,
    pub amount: Decimal,
    pub date: Millis,
    pub txRef: String,
    /// Why an admin moved the money (a refund, a debit, an adjustment);
    /// absent on the entries bookings and payments make.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// txRef of an admin top-up (spec §3).
pub const TX_REF_ADMIN_CREDIT: &str = "AdminCredit";
/// txRef of an admin's debit of a wallet (issue #37).
pub const TX_REF_ADMIN_DEBIT: &str = "AdminDebit";
/// txRef of an admin's adjustment of a wallet to a given balance (issue #37).
pub const TX_REF_ADMIN_ADJUST: &str = "AdminAdjust";

/// A stored position of a booking's driver (spec §3).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TrackingPoint {
    pub at: Millis,
    pub status: BookingStatus,
    pub lat: f64,
    pub lng: f64,
}

/// A chat message on a booking (spec §3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[allow(non_snake_case)]
pub struct ChatMessage {
    pub message: String,
    pub from: UserId,
    #[serde(rename = "type")]
    pub message_type: String,
    /// MM:DD:YYYY.
    pub msgDate: String,
    /// HH:MM.
    pub msgTime: String,
    /// The sender's role.
    pub source: Role,
    /// Assigned when read.
    #[serde(default)]
    pub smsId: Option<String>,
    #[serde(default)]
    pub createdAt: Millis,
}

/// A promo code (spec §3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[allow(non_snake_case)]
pub struct Promo {
    pub id: PromoId,
    pub promo_name: String,
    #[serde(default)]
    pub promo_description: String,
    pub promo_discount_type: AmountType,
    pub promo_discount_value: Decimal,
    /// Cap of a percentage discount; zero means no cap.
    #[serde(default)]
    pub max_promo_discount_value: Decimal,
    #[serde(default)]
    pub min_order: Decimal,
    /// Last moment the promo may be used.
    pub promo_validity: Millis,
    /// Users that may use it; zero means no limit.
    #[serde(default)]
    pub promo_usage_limit: u32,
    /// Users who used it (read-only).
    #[serde(default)]
    pub user_avail: u32,
    #[serde(default)]
    pub createdAt: Millis,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum DeviceTarget {
    All,
    #[serde(rename = "ANDROID")]
    Android,
    #[serde(rename = "IOS")]
    Ios,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum UserTarget {
    All,
    #[serde(rename = "rider")]
    Rider,
    #[serde(rename = "driver")]
    Driver,
}

/// A broadcast push notification (spec §3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[allow(non_snake_case)]
pub struct Notification {
    pub id: NotificationId,
    pub devicetype: DeviceTarget,
    pub usertype: UserTarget,
    pub title: String,
    pub body: String,
    #[serde(default)]
    pub createdAt: Millis,
}

/// A request to pay out wallet money (spec §3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[allow(non_snake_case)]
pub struct WithdrawRequest {
    pub id: WithdrawId,
    pub uid: UserId,
    pub name: String,
    pub amount: Decimal,
    pub date: Millis,
    #[serde(default)]
    pub bankName: String,
    #[serde(default)]
    pub bankCode: String,
    #[serde(default)]
    pub bankAccount: String,
    pub processed: bool,
    #[serde(default)]
    pub procesDate: Option<Millis>,
}

/// A cancellation reason as the UI lists it: the text and its index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CancellationReason {
    pub label: String,
    pub value: usize,
}

impl CancellationReason {
    /// The stored simple list of strings, as label/value pairs.
    pub fn from_list(reasons: &[String]) -> Vec<CancellationReason> {
        reasons
            .iter()
            .enumerate()
            .map(|(index, label)| CancellationReason { label: label.clone(), value: index })
            .collect()
    }
}

/// A language and its dictionary (spec §3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[allow(non_snake_case)]
pub struct Language {
    pub id: LanguageId,
    pub langName: String,
    pub langLocale: String,
    pub dateLocale: String,
    pub default: bool,
    pub keyValuePairs: BTreeMap<String, String>,
    #[serde(default)]
    pub createdAt: Millis,
}

/// A payment gateway shown to riders (spec §3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PaymentProvider {
    pub name: String,
    pub link: String,
}

/// The gateway names of spec §3.
pub const PAYMENT_PROVIDER_NAMES: [&str; 15] = [
    "paypal",
    "braintree",
    "stripe",
    "paytm",
    "payulatam",
    "flutterwave",
    "paystack",
    "securepay",
    "payfast",
    "liqpay",
    "culqi",
    "mercadopago",
    "squareup",
    "wipay",
    "test",
];

/// A fare estimate and the route behind it (spec §3 "Estimate").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[allow(non_snake_case)]
pub struct Estimate {
    pub estimateFare: Decimal,
    pub convenience_fees: Decimal,
    pub driver_share: Decimal,
    pub distance_in_km: f64,
    pub time_in_secs: u64,
    pub polylinePoints: String,
}

/// Per driver per month earnings (spec §3 "Earnings rows").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[allow(non_snake_case)]
pub struct EarningsRow {
    pub year: i32,
    pub month: u32,
    pub monthsName: String,
    pub driverShare: Decimal,
    pub total_rides: u32,
    pub driverName: String,
    pub driverVehicleNo: String,
    pub driverUId: UserId,
}

/// An earnings report row: the earnings row plus the platform's side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[allow(non_snake_case)]
pub struct EarningsReportRow {
    #[serde(flatten)]
    pub earnings: EarningsRow,
    pub discountAmount: Decimal,
    pub customerPaid: Decimal,
    pub convenienceFee: Decimal,
    pub tripCost: Decimal,
    pub cancellationFee: Decimal,
    pub myEarning: Decimal,
    pub rideCost: Decimal,
}

/// A booking as the earnings sums need it; storage can fill these from SQL.
#[derive(Debug, Clone, PartialEq)]
pub struct EarningsInput {
    pub booking: BookingId,
    pub status: BookingStatus,
    pub tripdate: Millis,
    pub driver: UserId,
    pub driver_name: String,
    pub vehicle_number: String,
    pub trip_cost: Decimal,
    pub driver_share: Decimal,
    pub convenience_fees: Decimal,
    pub discount_amount: Decimal,
    pub customer_paid: Decimal,
    pub cancellation_fee: Decimal,
}

/// The dashboard's gross earning cards (spec §2 "Dashboard"): Σ `trip_cost`
/// of the rides the panel counts (spec §9) whose trip date falls on the
/// platform's local today, in its local month, and ever, each rounded to
/// `settings.decimal`, with how many rides each sum holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[allow(non_snake_case)]
pub struct DashboardEarnings {
    pub today: Decimal,
    pub thisMonth: Decimal,
    pub total: Decimal,
    pub rides: DashboardRides,
}

/// The rides behind each of the dashboard's sums.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[allow(non_snake_case)]
pub struct DashboardRides {
    pub today: u64,
    pub thisMonth: u64,
    pub total: u64,
}
