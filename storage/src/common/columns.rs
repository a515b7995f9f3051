//! The typed columns copied out of each document when it is written (status,
//! amounts in micro-units, search text, …), the text forms of enums stored in
//! columns, and the one edit storage makes inside a document itself: adding a
//! rating.

use super::money::to_micros;
use super::search::{booking_search_text, user_search_text};
use crate::error::{StorageError, StorageResult};
use rust_decimal::Decimal;
use uuid::Uuid;
use wayfare_engine::{Booking, BookingStatus, Ratings, Role, User, UserId, UserPlatform, WalletEntryType, money};

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

/// Adds a rating and recomputes the average to one decimal, half away from
/// zero (spec §9 "Rating average: 1 decimal").
pub(crate) fn add_rating(ratings: &mut Ratings, customer: UserId, rating: u8) {
    ratings.details.push(wayfare_engine::RatingDetail { user: customer, rate: rating });
    let total: u64 = ratings.details.iter().map(|detail| u64::from(detail.rate)).sum();
    let count = ratings.details.len() as u64;
    ratings.userrating = money::round(Decimal::from(total) / Decimal::from(count), 1);
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

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
}
