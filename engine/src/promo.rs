//! Promo codes (spec §3, §5): whether one applies to an order, and the
//! discount it gives.

use crate::error::{DomainError, DomainResult, ErrorKey};
use crate::model::{AmountType, Millis, Promo, PromoDetails};
use crate::money;
use rust_decimal::Decimal;

/// The longest promo code we accept; codes are typed by riders.
pub const MAX_PROMO_NAME: usize = 40;

/// Checks a promo an admin adds or edits (spec §3 "Promo", §5): a code of
/// letters, digits, `-` or `_` (riders type it), a positive discount (a
/// percentage at most 100), a non-negative cap and minimum order (each amount
/// at most [`money::MAX_CATALOG_AMOUNT`]), and a
/// validity date. A new promo must still be valid at `now`; an edited one may
/// keep a past date (to end it early). Every amount is rounded to
/// `decimals`. Returns the promo with its name trimmed and upper-cased, so
/// codes match whatever case riders type.
pub fn validate(promo: &Promo, now: Millis, is_new: bool, decimals: u32) -> DomainResult<Promo> {
    let invalid = |field: &'static str| DomainError::on_field(ErrorKey::InvalidInput, field);
    let name = promo.promo_name.trim().to_uppercase();
    let name_ok = !name.is_empty()
        && name.chars().count() <= MAX_PROMO_NAME
        && name.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '_');
    if !name_ok {
        return Err(invalid("promo_name"));
    }
    let value = promo.promo_discount_value;
    let too_large = |amount: Decimal| amount > money::MAX_CATALOG_AMOUNT;
    if value <= Decimal::ZERO
        || too_large(value)
        || (promo.promo_discount_type == AmountType::Percentage && value > Decimal::ONE_HUNDRED)
    {
        return Err(invalid("promo_discount_value"));
    }
    if promo.max_promo_discount_value < Decimal::ZERO || too_large(promo.max_promo_discount_value) {
        return Err(invalid("max_promo_discount_value"));
    }
    if promo.min_order < Decimal::ZERO || too_large(promo.min_order) {
        return Err(invalid("min_order"));
    }
    if promo.promo_validity <= 0 || (is_new && promo.promo_validity <= now) {
        return Err(invalid("promo_validity"));
    }
    if promo.promo_description.chars().count() > 500 {
        return Err(invalid("promo_description"));
    }
    for amount in [value, promo.max_promo_discount_value, promo.min_order] {
        if money::round(amount, decimals) != amount {
            return Err(ErrorKey::InvalidAmount.into());
        }
    }
    Ok(Promo { promo_name: name, promo_description: promo.promo_description.trim().to_string(), ..promo.clone() })
}

/// Whether a rider may be shown this promo at `now` (spec §6: riders see the
/// promos they can use): still valid, not used up, not used by them.
pub fn usable(promo: &Promo, now: Millis, used_by_this_user: bool) -> bool {
    promo.promo_discount_value > Decimal::ZERO
        && now <= promo.promo_validity
        && !used_by_this_user
        && (promo.promo_usage_limit == 0 || promo.user_avail < promo.promo_usage_limit)
}

/// Checks that `promo` may be used by this user on an order of
/// `order_amount` at `now`, and returns what the booking keeps of it.
pub fn check(promo: &Promo, order_amount: Decimal, now: Millis, used_by_this_user: bool) -> DomainResult<PromoDetails> {
    if promo.promo_discount_value <= Decimal::ZERO {
        return Err(ErrorKey::PromoInvalid.into());
    }
    if now > promo.promo_validity {
        return Err(ErrorKey::PromoExpired.into());
    }
    if used_by_this_user || (promo.promo_usage_limit > 0 && promo.user_avail >= promo.promo_usage_limit) {
        return Err(ErrorKey::PromoLimitReached.into());
    }
    if order_amount < promo.min_order {
        return Err(ErrorKey::PromoMinOrder.into());
    }
    Ok(PromoDetails {
        promo_name: promo.promo_name.clone(),
        promo_discount_type: promo.promo_discount_type,
        promo_discount_value: promo.promo_discount_value,
        max_promo_discount_value: promo.max_promo_discount_value,
    })
}

/// The discount on `amount`: a flat value or a percentage capped by
/// `max_promo_discount_value` (when above 0), never more than the amount,
/// rounded to `decimals`.
pub fn discount(details: &PromoDetails, amount: Decimal, decimals: u32) -> Decimal {
    let amount = amount.max(Decimal::ZERO);
    let raw = match details.promo_discount_type {
        AmountType::Flat => details.promo_discount_value,
        AmountType::Percentage => {
            let share = amount * details.promo_discount_value / Decimal::ONE_HUNDRED;
            if details.max_promo_discount_value > Decimal::ZERO {
                share.min(details.max_promo_discount_value)
            } else {
                share
            }
        }
    };
    money::round(raw.max(Decimal::ZERO).min(amount), decimals)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::PromoId;
    use proptest::prelude::*;
    use rust_decimal_macros::dec;

    fn promo(kind: AmountType, value: Decimal, max: Decimal) -> Promo {
        Promo {
            id: PromoId::from_u128(1),
            promo_name: "WELCOME".into(),
            promo_description: String::new(),
            promo_discount_type: kind,
            promo_discount_value: value,
            max_promo_discount_value: max,
            min_order: dec!(10),
            promo_validity: 1_000,
            promo_usage_limit: 2,
            user_avail: 0,
            createdAt: 0,
        }
    }

    #[test]
    fn flat_promo_takes_its_value_off() {
        let details = check(&promo(AmountType::Flat, dec!(5), dec!(0)), dec!(20), 500, false).unwrap();
        assert_eq!(discount(&details, dec!(20), 2), dec!(5));
    }

    #[test]
    fn percentage_promo_is_capped_by_the_maximum() {
        // spec §3: max_promo_discount_value
        let details = check(&promo(AmountType::Percentage, dec!(50), dec!(6)), dec!(20), 500, false).unwrap();
        assert_eq!(discount(&details, dec!(20), 2), dec!(6));
        let uncapped = check(&promo(AmountType::Percentage, dec!(15), dec!(0)), dec!(20), 500, false).unwrap();
        assert_eq!(discount(&uncapped, dec!(20.10), 2), dec!(3.02));
    }

    #[test]
    fn a_discount_never_exceeds_the_order() {
        let details = check(&promo(AmountType::Flat, dec!(50), dec!(0)), dec!(20), 500, false).unwrap();
        assert_eq!(discount(&details, dec!(20), 2), dec!(20));
    }

    #[test]
    fn an_expired_promo_is_refused() {
        assert_eq!(
            check(&promo(AmountType::Flat, dec!(5), dec!(0)), dec!(20), 1_001, false).unwrap_err().key,
            ErrorKey::PromoExpired
        );
    }

    #[test]
    fn a_promo_used_up_is_refused() {
        let mut used_up = promo(AmountType::Flat, dec!(5), dec!(0));
        used_up.user_avail = 2;
        assert_eq!(check(&used_up, dec!(20), 500, false).unwrap_err().key, ErrorKey::PromoLimitReached);
        let fresh = promo(AmountType::Flat, dec!(5), dec!(0));
        assert_eq!(check(&fresh, dec!(20), 500, true).unwrap_err().key, ErrorKey::PromoLimitReached);
        let mut unlimited = promo(AmountType::Flat, dec!(5), dec!(0));
        unlimited.promo_usage_limit = 0;
        unlimited.user_avail = 1_000;
        assert!(check(&unlimited, dec!(20), 500, false).is_ok());
    }

    #[test]
    fn an_order_below_the_minimum_is_refused() {
        assert_eq!(
            check(&promo(AmountType::Flat, dec!(5), dec!(0)), dec!(9.99), 500, false).unwrap_err().key,
            ErrorKey::PromoMinOrder
        );
    }

    #[test]
    fn a_new_promo_is_validated_field_by_field() {
        let good = promo(AmountType::Percentage, dec!(15), dec!(5));
        let checked = validate(&Promo { promo_name: " welcome-10 ".into(), ..good.clone() }, 500, true, 2).unwrap();
        assert_eq!(checked.promo_name, "WELCOME-10");
        let field = |changed: Promo, is_new: bool| validate(&changed, 500, is_new, 2).unwrap_err().field;
        assert_eq!(field(Promo { promo_name: "  ".into(), ..good.clone() }, true), Some("promo_name"));
        assert_eq!(field(Promo { promo_name: "TWO WORDS".into(), ..good.clone() }, true), Some("promo_name"));
        assert_eq!(field(Promo { promo_discount_value: dec!(0), ..good.clone() }, true), Some("promo_discount_value"));
        assert_eq!(
            field(Promo { promo_discount_value: dec!(100.5), ..good.clone() }, true),
            Some("promo_discount_value")
        );
        assert_eq!(
            field(Promo { max_promo_discount_value: dec!(-1), ..good.clone() }, true),
            Some("max_promo_discount_value")
        );
        assert_eq!(field(Promo { min_order: dec!(-1), ..good.clone() }, true), Some("min_order"));
        assert_eq!(field(Promo { promo_validity: 400, ..good.clone() }, true), Some("promo_validity"));
        // An edit may end a promo early; a flat promo may exceed 100.
        assert!(validate(&Promo { promo_validity: 400, ..good.clone() }, 500, false, 2).is_ok());
        let flat = Promo { promo_discount_type: AmountType::Flat, promo_discount_value: dec!(150), ..good.clone() };
        assert!(validate(&flat, 500, true, 2).is_ok());
        let fractional = Promo { promo_discount_value: dec!(1.005), ..good };
        assert_eq!(validate(&fractional, 500, true, 2).unwrap_err().key, ErrorKey::InvalidAmount);
    }

    #[test]
    fn riders_see_only_promos_they_can_still_use() {
        let fresh = promo(AmountType::Flat, dec!(5), dec!(0));
        assert!(usable(&fresh, 500, false));
        assert!(!usable(&fresh, 1_001, false), "expired");
        assert!(!usable(&fresh, 500, true), "already used by this rider");
        assert!(!usable(&Promo { user_avail: 2, ..fresh.clone() }, 500, false), "used up");
        assert!(usable(&Promo { user_avail: 2, promo_usage_limit: 0, ..fresh }, 500, false), "no limit");
    }

    proptest! {
        #[test]
        fn discount_stays_between_zero_and_the_amount(value in 0i64..20_000, max in 0i64..5_000, amount in 0i64..100_000, percentage in any::<bool>()) {
            let details = PromoDetails {
                promo_name: "P".into(),
                promo_discount_type: if percentage { AmountType::Percentage } else { AmountType::Flat },
                promo_discount_value: Decimal::new(value, 2),
                max_promo_discount_value: Decimal::new(max, 2),
            };
            let amount = Decimal::new(amount, 2);
            let off = discount(&details, amount, 2);
            prop_assert!(off >= Decimal::ZERO && off <= amount);
            prop_assert!(money::is_rounded(off, 2));
        }
    }
}
