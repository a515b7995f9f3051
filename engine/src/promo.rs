//! Promo codes (spec §3, §5): whether one applies to an order, and the
//! discount it gives.

use crate::error::{DomainResult, ErrorKey};
use crate::model::{AmountType, Millis, Promo, PromoDetails};
use crate::money;
use rust_decimal::Decimal;

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
        assert_eq!(check(&promo(AmountType::Flat, dec!(5), dec!(0)), dec!(20), 1_001, false).unwrap_err().key, ErrorKey::PromoExpired);
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
        assert_eq!(check(&promo(AmountType::Flat, dec!(5), dec!(0)), dec!(9.99), 500, false).unwrap_err().key, ErrorKey::PromoMinOrder);
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
