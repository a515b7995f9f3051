//! Money as storage keeps it: an integer count of millionths, so sums in SQL
//! are exact and an amount that cannot be stored exactly is refused.

use crate::error::{StorageError, StorageResult};
use rust_decimal::Decimal;

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
}
