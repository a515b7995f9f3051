use super::{Millis, PricedChoice};
use crate::ids::CarTypeId;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// Flat amount or percentage, for convenience fees and promos.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum AmountType {
    #[default]
    Flat,
    Percentage,
}

/// A step of the cancellation fee: once `minsDelayed` minutes have passed since
/// the driver accepted, cancelling costs `amount`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[allow(non_snake_case)]
pub struct CancelSlab {
    pub minsDelayed: u32,
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 1000000))]
    pub amount: Decimal,
}

/// A car type with its rates (spec §3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[allow(non_snake_case)]
pub struct CarType {
    pub id: CarTypeId,
    pub name: String,
    #[serde(default)]
    pub image: String,
    pub base_fare: Decimal,
    pub rate_per_unit_distance: Decimal,
    pub rate_per_hour: Decimal,
    pub min_fare: Decimal,
    pub convenience_fees: Decimal,
    #[serde(default)]
    pub convenience_fee_type: AmountType,
    #[serde(default)]
    pub extra_info: String,
    #[serde(default)]
    pub createdAt: Millis,
    #[serde(default)]
    pub parcelTypes: Vec<PricedChoice>,
    #[serde(default)]
    pub options: Vec<PricedChoice>,
    #[serde(default)]
    pub cancelSlab: Vec<CancelSlab>,
    /// Delivery: a booking must choose one of `options` (issue #34: options
    /// are optional unless the operator makes them required).
    #[serde(default)]
    pub optionRequired: bool,
}
