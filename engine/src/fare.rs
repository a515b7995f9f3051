//! Fares (spec §5 "Fare", §9): the base formula, parcel and option amounts,
//! the minimum fare, the convenience fee and the driver's share.

use crate::model::{AmountType, CarType, KM_PER_MILE, PricedChoice, Settings};
use crate::money;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// A fare broken down as the booking stores it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fare {
    /// Distance in the platform's unit (km, or miles with `convert_to_mile`).
    pub distance: f64,
    /// The formula before the minimum fare, unrounded.
    pub computed: Decimal,
    /// max(computed, min_fare), rounded: what the driver's share is.
    pub total: Decimal,
    pub convenience_fees: Decimal,
    /// total + convenience fee: the trip cost the rider is quoted.
    pub grand_total: Decimal,
}

impl Fare {
    /// The driver earns the trip cost less the platform's convenience fee.
    pub fn driver_share(&self) -> Decimal {
        self.grand_total - self.convenience_fees
    }
}

/// Kilometres in the platform's distance unit.
pub fn distance_in_unit(distance_km: f64, settings: &Settings) -> f64 {
    let distance = if distance_km.is_finite() { distance_km.max(0.0) } else { 0.0 };
    if settings.convert_to_mile { distance / KM_PER_MILE } else { distance }
}

fn decimal_of(value: f64) -> Decimal {
    // Six places is a millimetre or a millisecond: plenty, and keeps the
    // products well inside Decimal's range.
    money::from_f64(value).map(|amount| money::round(amount, 6)).unwrap_or_default()
}

/// The fare of a trip of `distance_km` taking `time_secs` in `car`.
///
/// rate_per_unit_distance × distance + rate_per_hour × hours, plus base_fare
/// when above 0, plus the chosen parcel type and option; then at least
/// min_fare; then the flat or percentage convenience fee; all rounded to
/// `settings.decimal`.
pub fn compute(
    car: &CarType,
    distance_km: f64,
    time_secs: u64,
    parcel_type: Option<&PricedChoice>,
    option: Option<&PricedChoice>,
    settings: &Settings,
) -> Fare {
    let distance = distance_in_unit(distance_km, settings);
    let hours = Decimal::from(time_secs) / Decimal::from(3600);
    let mut computed = car.rate_per_unit_distance * decimal_of(distance) + car.rate_per_hour * hours;
    if car.base_fare > Decimal::ZERO {
        computed += car.base_fare;
    }
    for choice in [parcel_type, option].into_iter().flatten() {
        computed += choice.amount;
    }
    let total = money::round_to(computed.max(car.min_fare), settings);
    let convenience_fees = money::round_to(convenience_fee(car, total), settings);
    Fare { distance, computed, total, convenience_fees, grand_total: total + convenience_fees }
}

/// A fare's parts, as the estimate shows them to the rider: each rounded to
/// `settings.decimal`, and `payable` what they add up to less the promo.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Breakdown {
    pub base: Decimal,
    pub distance: Decimal,
    pub time: Decimal,
    pub parcel: Decimal,
    pub option: Decimal,
    /// What the minimum fare adds on top of the formula.
    pub minimum_top_up: Decimal,
    pub convenience_fees: Decimal,
    pub promo: Decimal,
    pub payable: Decimal,
}

/// The parts of [`compute`]'s fare. Rounding each part may leave a cent
/// between their sum and the fare; it goes to the distance line, so the
/// lines always add up to what the rider pays.
pub fn breakdown(
    car: &CarType,
    fare: &Fare,
    time_secs: u64,
    parcel_type: Option<&PricedChoice>,
    option: Option<&PricedChoice>,
    discount: Decimal,
    settings: &Settings,
) -> Breakdown {
    let round = |amount: Decimal| money::round_to(amount, settings);
    let base = round(car.base_fare.max(Decimal::ZERO));
    let time = round(car.rate_per_hour * Decimal::from(time_secs) / Decimal::from(3600));
    let parcel = round(parcel_type.map(|choice| choice.amount).unwrap_or_default());
    let option = round(option.map(|choice| choice.amount).unwrap_or_default());
    let minimum_top_up = round((car.min_fare - fare.computed).max(Decimal::ZERO));
    // The rest of the total is the distance line (its own rounding included).
    let distance = fare.total - base - time - parcel - option - minimum_top_up;
    let promo = round(discount);
    Breakdown {
        base,
        distance,
        time,
        parcel,
        option,
        minimum_top_up,
        convenience_fees: fare.convenience_fees,
        promo,
        payable: fare.grand_total - promo,
    }
}

/// Flat amount, or a percentage of the total (spec §5).
pub fn convenience_fee(car: &CarType, total: Decimal) -> Decimal {
    match car.convenience_fee_type {
        AmountType::Flat => car.convenience_fees,
        AmountType::Percentage => total * car.convenience_fees / Decimal::ONE_HUNDRED,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::CarTypeId;
    use proptest::prelude::*;
    use rust_decimal_macros::dec;

    fn car(fee_type: AmountType, fees: Decimal) -> CarType {
        CarType {
            id: CarTypeId::from_u128(1),
            name: "Economy".into(),
            image: String::new(),
            base_fare: dec!(2.5),
            rate_per_unit_distance: dec!(1.2),
            rate_per_hour: dec!(18),
            min_fare: dec!(7),
            convenience_fees: fees,
            convenience_fee_type: fee_type,
            extra_info: String::new(),
            createdAt: 0,
            parcelTypes: vec![],
            options: vec![],
            cancelSlab: vec![],
            optionRequired: false,
        }
    }

    #[test]
    fn base_formula_adds_distance_time_and_base_fare() {
        // spec §5 Fare: 1.2 × 10 km + 18 × 0.5 h + 2.5 = 23.5; flat fee 1.5
        let fare = compute(&car(AmountType::Flat, dec!(1.5)), 10.0, 1800, None, None, &Settings::default());
        assert_eq!(fare.total, dec!(23.50));
        assert_eq!(fare.convenience_fees, dec!(1.5));
        assert_eq!(fare.grand_total, dec!(25.00));
        assert_eq!(fare.driver_share(), dec!(23.50));
    }

    #[test]
    fn a_short_trip_pays_the_minimum_fare() {
        // spec §5: total = max(computed, min_fare)
        let fare = compute(&car(AmountType::Flat, dec!(1)), 0.5, 60, None, None, &Settings::default());
        assert_eq!(fare.total, dec!(7));
        assert_eq!(fare.grand_total, dec!(8));
    }

    #[test]
    fn percentage_fee_is_a_share_of_the_total() {
        // spec §5: fee = percentage of that total
        let fare = compute(&car(AmountType::Percentage, dec!(10)), 10.0, 1800, None, None, &Settings::default());
        assert_eq!(fare.convenience_fees, dec!(2.35));
        assert_eq!(fare.grand_total, dec!(25.85));
    }

    #[test]
    fn parcel_type_and_option_amounts_are_added() {
        // spec §5: add the selected parcel type amount and option amount
        let parcel = PricedChoice { description: "Box".into(), amount: dec!(3) };
        let option = PricedChoice { description: "Fragile".into(), amount: dec!(1.25) };
        let fare =
            compute(&car(AmountType::Flat, dec!(0)), 10.0, 1800, Some(&parcel), Some(&option), &Settings::default());
        assert_eq!(fare.total, dec!(27.75));
    }

    #[test]
    fn the_breakdown_shows_each_part_and_adds_up_to_what_is_paid() {
        let parcel = PricedChoice { description: "Box".into(), amount: dec!(3) };
        let car = car(AmountType::Flat, dec!(1.5));
        let settings = Settings::default();
        let fare = compute(&car, 10.0, 1800, Some(&parcel), None, &settings);
        let parts = breakdown(&car, &fare, 1800, Some(&parcel), None, dec!(2), &settings);
        assert_eq!(
            (parts.base, parts.distance, parts.time, parts.parcel, parts.option, parts.minimum_top_up),
            (dec!(2.5), dec!(12), dec!(9), dec!(3), dec!(0), dec!(0))
        );
        assert_eq!(parts.convenience_fees, dec!(1.5));
        assert_eq!(parts.promo, dec!(2));
        assert_eq!(parts.payable, fare.grand_total - dec!(2));
        let sum = parts.base
            + parts.distance
            + parts.time
            + parts.parcel
            + parts.option
            + parts.minimum_top_up
            + parts.convenience_fees
            - parts.promo;
        assert_eq!(sum, parts.payable);
    }

    #[test]
    fn the_breakdown_of_a_short_trip_names_the_minimum_fare_top_up() {
        let car = car(AmountType::Flat, dec!(1));
        let settings = Settings::default();
        let fare = compute(&car, 0.5, 60, None, None, &settings);
        let parts = breakdown(&car, &fare, 60, None, None, Decimal::ZERO, &settings);
        // 2.5 + 0.6 + 0.3 = 3.4, topped up to 7.
        assert_eq!(parts.minimum_top_up, dec!(3.6));
        assert_eq!(parts.base + parts.distance + parts.time + parts.minimum_top_up, dec!(7));
        assert_eq!(parts.payable, dec!(8));
    }

    #[test]
    fn base_fare_of_zero_or_less_is_not_added() {
        let mut free_base = car(AmountType::Flat, dec!(0));
        free_base.base_fare = dec!(-4);
        free_base.min_fare = dec!(0);
        let fare = compute(&free_base, 10.0, 0, None, None, &Settings::default());
        assert_eq!(fare.total, dec!(12.00));
    }

    #[test]
    fn miles_divide_the_distance_by_1_609344() {
        // spec §5, §9: distance divided by 1.609344 when convert_to_mile
        let settings = Settings { convert_to_mile: true, ..Settings::default() };
        let mut per_unit = car(AmountType::Flat, dec!(0));
        per_unit.base_fare = dec!(0);
        per_unit.rate_per_hour = dec!(0);
        per_unit.min_fare = dec!(0);
        let fare = compute(&per_unit, 16.09344, 0, None, None, &settings);
        assert!((fare.distance - 10.0).abs() < 1e-9);
        assert_eq!(fare.total, dec!(12.00));
    }

    #[test]
    fn amounts_round_to_the_decimal_setting() {
        let settings = Settings { decimal: 0, ..Settings::default() };
        let fare = compute(&car(AmountType::Percentage, dec!(10)), 10.0, 1800, None, None, &settings);
        assert_eq!(fare.total, dec!(24));
        assert_eq!(fare.convenience_fees, dec!(2));
        assert_eq!(fare.grand_total, dec!(26));
    }

    #[test]
    fn nonsense_distances_count_as_zero() {
        let fare = compute(&car(AmountType::Flat, dec!(0)), f64::NAN, 0, None, None, &Settings::default());
        assert_eq!(fare.total, dec!(7));
        let fare = compute(&car(AmountType::Flat, dec!(0)), -5.0, 0, None, None, &Settings::default());
        assert_eq!(fare.total, dec!(7));
    }

    proptest! {
        #[test]
        fn fare_is_never_below_min_fare_and_always_rounded(
            distance in 0.0f64..500.0,
            secs in 0u64..36_000,
            base_cents in 0i64..2_000,
            rate_cents in 0i64..1_000,
            hour_cents in 0i64..10_000,
            min_cents in 0i64..5_000,
            fee_cents in 0i64..3_000,
            percentage in any::<bool>(),
            decimal in 0u32..4,
            miles in any::<bool>(),
        ) {
            // spec §5: fare never below min_fare; §9: rounded to settings.decimal
            let mut car_type = car(if percentage { AmountType::Percentage } else { AmountType::Flat }, Decimal::new(fee_cents, 2));
            car_type.base_fare = Decimal::new(base_cents, 2);
            car_type.rate_per_unit_distance = Decimal::new(rate_cents, 2);
            car_type.rate_per_hour = Decimal::new(hour_cents, 2);
            car_type.min_fare = Decimal::new(min_cents, 2);
            let settings = Settings { decimal, convert_to_mile: miles, ..Settings::default() };
            let fare = compute(&car_type, distance, secs, None, None, &settings);
            prop_assert!(fare.total >= money::round(car_type.min_fare, decimal));
            prop_assert!(fare.grand_total >= fare.total);
            prop_assert!(money::is_rounded(fare.total, decimal));
            prop_assert!(money::is_rounded(fare.convenience_fees, decimal));
            prop_assert!(money::is_rounded(fare.grand_total, decimal));
            prop_assert_eq!(fare.driver_share() + fare.convenience_fees, fare.grand_total);
        }
    }
}
