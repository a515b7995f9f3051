//! Money: rounding to `settings.decimal`, formatting with the currency
//! symbol before or after the amount (spec §9), and reading an amount typed
//! as text.

use crate::model::Settings;
use rust_decimal::{Decimal, RoundingStrategy};
use std::str::FromStr;

/// The most decimal places we keep, whatever the setting says.
pub const MAX_DECIMALS: u32 = 8;

/// Ours: the largest price, fee, discount or minimum order an admin may set
/// on a car type or a promo: a million in the platform's currency (the most
/// one wallet move may carry, `wallet::MAX_WALLET_MOVE`). Fares built from
/// such rates, even over a continent-long trip, stay far inside what the
/// fare arithmetic and storage (micro-units in 64 bits, ±9.2 × 10^12) keep
/// exactly; without a bound an admin's typo made them overflow.
pub const MAX_CATALOG_AMOUNT: Decimal = Decimal::from_parts(1_000_000, 0, 0, false, 0);

/// Rounds half away from zero, as the original's `toFixed` did for money.
pub fn round(amount: Decimal, decimals: u32) -> Decimal {
    amount.round_dp_with_strategy(decimals.min(MAX_DECIMALS), RoundingStrategy::MidpointAwayFromZero)
}

/// Rounds to the platform's decimal places.
pub fn round_to(amount: Decimal, settings: &Settings) -> Decimal {
    round(amount, settings.decimal)
}

/// True when the amount has no more places than the setting allows.
pub fn is_rounded(amount: Decimal, decimals: u32) -> bool {
    amount.normalize().scale() <= decimals.min(MAX_DECIMALS)
}

/// `$12.50` or `12.50 $` (with `swipe_symbol`), always with the set number of
/// places, so an absent cancellation fee shows as `0.00` (spec §9).
pub fn format_currency(amount: Decimal, settings: &Settings) -> String {
    let places = settings.decimal.min(MAX_DECIMALS) as usize;
    let rounded = round(amount, settings.decimal);
    let number = format!("{rounded:.places$}");
    if settings.swipe_symbol { format!("{number} {}", settings.symbol) } else { format!("{}{number}", settings.symbol) }
}

/// How amounts are written, taken from the settings so a document built
/// once (a receipt, a statement) formats without them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MoneyFormat {
    /// Currency code, e.g. USD.
    pub code: String,
    pub symbol: String,
    /// The symbol goes after the amount.
    pub swipe_symbol: bool,
    pub decimal: u32,
}

impl MoneyFormat {
    pub fn of(settings: &Settings) -> MoneyFormat {
        MoneyFormat {
            code: settings.code.clone(),
            symbol: settings.symbol.clone(),
            swipe_symbol: settings.swipe_symbol,
            decimal: settings.decimal,
        }
    }

    /// As [`format_currency`], but a negative amount (a discount on a receipt)
    /// keeps its sign before the symbol: `-$2.00`.
    pub fn format(&self, amount: Decimal) -> String {
        let places = self.decimal.min(MAX_DECIMALS) as usize;
        let rounded = round(amount, self.decimal);
        let sign = if rounded.is_sign_negative() && !rounded.is_zero() { "-" } else { "" };
        let number = format!("{:.places$}", rounded.abs());
        if self.swipe_symbol {
            format!("{sign}{number} {}", self.symbol)
        } else {
            format!("{sign}{}{number}", self.symbol)
        }
    }
}

/// Converts a JSON float to money, refusing NaN and infinities.
pub fn from_f64(value: f64) -> Option<Decimal> {
    if value.is_finite() { Decimal::from_f64_retain(value).map(|amount| amount.normalize()) } else { None }
}

/// Parses an amount typed as text: a plain decimal such as `12`, `12.5` or
/// `.5`, or a number in exponent form as JSON may print it. `None` for
/// anything else (blank, `12,5`, `NaN`, out of range).
pub fn parse_amount(text: &str) -> Option<Decimal> {
    let text = text.trim();
    if text.is_empty()
        || !text.bytes().all(|byte| byte.is_ascii_digit() || matches!(byte, b'.' | b'-' | b'+' | b'e' | b'E'))
    {
        return None;
    }
    if text.bytes().any(|byte| matches!(byte, b'e' | b'E')) {
        Decimal::from_scientific(text).ok()
    } else {
        Decimal::from_str(text).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rust_decimal_macros::dec;

    fn settings(decimal: u32, swipe_symbol: bool) -> Settings {
        Settings { decimal, swipe_symbol, symbol: "$".into(), ..Settings::default() }
    }

    #[test]
    fn rounding_is_half_away_from_zero_to_the_set_places() {
        // spec §9: amounts rounded to settings.decimal
        assert_eq!(round(dec!(2.345), 2), dec!(2.35));
        assert_eq!(round(dec!(2.344), 2), dec!(2.34));
        assert_eq!(round(dec!(-2.345), 2), dec!(-2.35));
        assert_eq!(round(dec!(7.5), 0), dec!(8));
    }

    #[test]
    fn symbol_goes_before_unless_swipe_symbol() {
        // spec §9: currency symbol before or after by swipe_symbol
        assert_eq!(format_currency(dec!(12.5), &settings(2, false)), "$12.50");
        assert_eq!(format_currency(dec!(12.5), &settings(2, true)), "12.50 $");
    }

    #[test]
    fn an_absent_fee_shows_as_zero_with_the_decimal_setting() {
        // spec §9: cancellation fee shows as 0 with the decimal setting when absent
        assert_eq!(format_currency(Decimal::ZERO, &settings(3, false)), "$0.000");
        assert_eq!(format_currency(Decimal::ZERO, &settings(0, false)), "$0");
    }

    #[test]
    fn a_negative_amount_keeps_its_sign_before_the_symbol() {
        assert_eq!(MoneyFormat::of(&settings(2, false)).format(dec!(-2)), "-$2.00");
        assert_eq!(MoneyFormat::of(&settings(2, true)).format(dec!(-2)), "-2.00 $");
        assert_eq!(MoneyFormat::of(&settings(2, false)).format(dec!(-0.001)), "$0.00");
    }

    #[test]
    fn is_rounded_checks_places() {
        assert!(is_rounded(dec!(1.20), 1));
        assert!(!is_rounded(dec!(1.23), 1));
    }

    #[test]
    fn floats_that_are_not_numbers_are_refused() {
        assert_eq!(from_f64(f64::NAN), None);
        assert_eq!(from_f64(1.5), Some(dec!(1.5)));
    }

    #[test]
    fn amounts_parse_as_decimals() {
        // spec §5 Wallet: admin credit amounts are parsed as decimals
        assert_eq!(parse_amount(" 12.50 "), Some(dec!(12.50)));
        assert_eq!(parse_amount(".5"), Some(dec!(0.5)));
        assert_eq!(parse_amount("1e2"), Some(dec!(100)));
        for text in ["", " ", "12,5", "NaN", "ten", "1e", "--1", "1e99999", "0x10"] {
            assert_eq!(parse_amount(text), None, "{text:?}");
        }
    }

    proptest! {
        #[test]
        fn parse_amount_never_panics(text in any::<String>()) {
            let _ = parse_amount(&text);
        }
    }
}
