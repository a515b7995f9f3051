//! Receipts and driver statements (issue #37): what a rider's receipt says
//! about one paid booking, and what a driver's weekly statement sums, built
//! from stored bookings and the settings. Rendering (HTML, PDF, language) and
//! delivery are the http crate's; this module only decides the content and
//! the numbers, and who may read them.
//!
//! The rules:
//! - A receipt exists for a PAID or COMPLETE booking, and for a CANCELLED one
//!   whose rider was charged a cancellation fee (then the fee is its only
//!   line). Any other status is `status_not_allowed`.
//! - The fare lines add up to `trip_cost`: the ride (the fare less parcel,
//!   option and fee), the parcel type and option of a delivery, the
//!   convenience fee. The discount is subtracted; the total is
//!   `trip_cost − discount_amount`, what the rider was asked to pay.
//! - Taxes are display only: with `taxRate` above 0 the total is taken to
//!   include the tax and the receipt shows its part,
//!   `total × rate / (100 + rate)`, rounded once. The fare rules charge no tax.
//! - How it was paid: the cash, card (with its gateway) and wallet parts the
//!   booking records, each shown when above 0.

mod statement;

pub use statement::{
    IsoWeek, StatementTotals, StatementTrip, WeeklyStatement, statement_access, statement_weeks, weekly_statement,
};

use crate::error::{DomainResult, ErrorKey};
use crate::ids::BookingId;
use crate::model::{AppCategory, Booking, BookingStatus, Millis, PaymentMode, Settings};
use crate::money::{self, MoneyFormat};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// The operator's details printed on receipts and statements.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CompanyDetails {
    /// The company name, or the app's name when none is set.
    pub name: String,
    pub address: String,
    pub website: String,
    pub email: String,
    pub phone: String,
    /// The company's tax number, when set.
    pub tax_number: String,
}

impl CompanyDetails {
    pub fn of(settings: &Settings) -> CompanyDetails {
        let name = if settings.CompanyName.trim().is_empty() { &settings.appName } else { &settings.CompanyName };
        CompanyDetails {
            name: name.trim().to_string(),
            address: settings.CompanyAddress.trim().to_string(),
            website: settings.CompanyWebsite.trim().to_string(),
            email: settings.contact_email.trim().to_string(),
            phone: settings.CompanyPhone.trim().to_string(),
            tax_number: settings.taxNumber.trim().to_string(),
        }
    }
}

/// What a line of the fare breakdown is; the renderer names it in the
/// receipt's language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    /// The ride itself: distance, time, base and any minimum fare top-up.
    Fare,
    /// A delivery's parcel type; `detail` is its description.
    ParcelType,
    /// A delivery's option; `detail` is its description.
    Option,
    ConvenienceFee,
    /// The promo discount (negative); `detail` is the promo's name.
    Discount,
    /// What a cancelled booking cost its rider.
    CancellationFee,
}

impl LineKind {
    /// The translation key of the line's label.
    pub fn label_key(self) -> &'static str {
        match self {
            LineKind::Fare => "receipt_line_fare",
            LineKind::ParcelType => "receipt_line_parcel",
            LineKind::Option => "receipt_line_option",
            LineKind::ConvenienceFee => "receipt_line_convenience_fee",
            LineKind::Discount => "receipt_line_discount",
            LineKind::CancellationFee => "receipt_line_cancellation_fee",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReceiptLine {
    pub kind: LineKind,
    /// A parcel type's or option's description, a promo's name.
    pub detail: Option<String>,
    pub amount: Decimal,
}

/// The tax part of a total (display only, see the module's rules).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReceiptTax {
    /// e.g. `VAT`; the renderer says "Tax" when blank.
    pub name: String,
    /// Percent.
    pub rate: Decimal,
    /// The part of the total that is tax.
    pub amount: Decimal,
    /// Always true: prices include the tax.
    pub included: bool,
}

/// How a part of the total was paid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum PaidWith {
    Cash,
    Card,
    Wallet,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReceiptPayment {
    pub method: PaidWith,
    /// The card's gateway, e.g. `stripe`.
    pub gateway: Option<String>,
    pub amount: Decimal,
}

/// A rider's receipt for one booking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Receipt {
    /// The booking's reference.
    pub number: String,
    pub booking: BookingId,
    pub status: BookingStatus,
    pub appcat: AppCategory,
    /// When the trip ended (or was cancelled); the trip date when unknown.
    pub date: Millis,
    pub trip_date: Millis,
    pub rider_name: String,
    pub rider_email: String,
    pub driver_name: String,
    pub vehicle_number: String,
    pub car_type: String,
    pub pickup_address: String,
    pub drop_address: String,
    /// Where the trip really ended, when far from the booked drop.
    pub ended_at_address: Option<String>,
    /// In `distance_unit`.
    pub distance: f64,
    /// `km` or `mi` (`convert_to_mile`).
    pub distance_unit: String,
    /// Seconds.
    pub trip_seconds: u64,
    pub lines: Vec<ReceiptLine>,
    pub total: Decimal,
    pub tax: Option<ReceiptTax>,
    pub payments: Vec<ReceiptPayment>,
    /// A cancellation fee the rider's wallet could not cover: still owed.
    pub owed: Decimal,
    /// Given back to the rider's wallet by an admin.
    pub refunded: Decimal,
    pub company: CompanyDetails,
    pub money: MoneyFormat,
}

/// True when the booking has a receipt (see the module's rules).
pub fn has_receipt(booking: &Booking) -> bool {
    booking.status.is_paid() || is_charged_cancellation(booking)
}

fn is_charged_cancellation(booking: &Booking) -> bool {
    booking.status == BookingStatus::Cancelled && booking.cancellationFee > Decimal::ZERO
}

/// The receipt of a booking; `status_not_allowed` when it has none yet.
pub fn receipt(booking: &Booking, settings: &Settings) -> DomainResult<Receipt> {
    if !has_receipt(booking) {
        return Err(ErrorKey::StatusNotAllowed.into());
    }
    let round = |amount: Decimal| money::round_to(amount, settings);
    let cancelled = is_charged_cancellation(booking);
    let mut lines = Vec::new();
    let total;
    let mut payments = Vec::new();
    if cancelled {
        let fee = round(booking.cancellationFee);
        lines.push(ReceiptLine { kind: LineKind::CancellationFee, detail: None, amount: fee });
        total = fee;
        let from_wallet = round(booking.cancellationFee - booking.cancellationFeeOwed).max(Decimal::ZERO);
        if from_wallet > Decimal::ZERO {
            payments.push(ReceiptPayment { method: PaidWith::Wallet, gateway: None, amount: from_wallet });
        }
    } else {
        let parcel = booking.parcelTypeSelected.as_ref();
        let option = booking.optionSelected.as_ref();
        let parcel_amount = round(parcel.map(|choice| choice.amount).unwrap_or_default());
        let option_amount = round(option.map(|choice| choice.amount).unwrap_or_default());
        let fee = round(booking.convenience_fees);
        let trip_cost = round(booking.trip_cost);
        // The ride is what is left, so the lines always add up to the trip cost.
        let ride = trip_cost - fee - parcel_amount - option_amount;
        lines.push(ReceiptLine { kind: LineKind::Fare, detail: None, amount: ride });
        if let Some(choice) = parcel {
            lines.push(ReceiptLine {
                kind: LineKind::ParcelType,
                detail: Some(choice.description.clone()),
                amount: parcel_amount,
            });
        }
        if let Some(choice) = option {
            lines.push(ReceiptLine {
                kind: LineKind::Option,
                detail: Some(choice.description.clone()),
                amount: option_amount,
            });
        }
        if fee > Decimal::ZERO {
            lines.push(ReceiptLine { kind: LineKind::ConvenienceFee, detail: None, amount: fee });
        }
        let discount = round(booking.discount_amount);
        if discount > Decimal::ZERO {
            let promo = booking.promo_details.as_ref().map(|promo| promo.promo_name.clone());
            lines.push(ReceiptLine { kind: LineKind::Discount, detail: promo, amount: -discount });
        }
        total = trip_cost - discount;
        payments = payment_parts(booking, settings);
    }
    Ok(Receipt {
        number: booking.reference.clone(),
        booking: booking.id,
        status: booking.status,
        appcat: booking.appcat,
        date: booking.endTime.or(booking.trip_end_time).unwrap_or(booking.tripdate),
        trip_date: booking.tripdate,
        rider_name: booking.customer_name.clone(),
        rider_email: booking.customer_email.clone(),
        driver_name: booking.driver_name.clone(),
        vehicle_number: booking.vehicle_number.clone(),
        car_type: booking.carType.clone(),
        pickup_address: booking.pickupAddress.clone(),
        drop_address: booking.dropAddress.clone(),
        ended_at_address: booking.ended_elsewhere().map(|place| place.add.clone()).filter(|add| !add.is_empty()),
        distance: if cancelled { 0.0 } else { booking.distance },
        distance_unit: if settings.convert_to_mile { "mi" } else { "km" }.to_string(),
        trip_seconds: if cancelled { 0 } else { booking.total_trip_time },
        lines,
        total,
        tax: tax_of(total, settings),
        payments,
        owed: if cancelled { round(booking.cancellationFeeOwed) } else { Decimal::ZERO },
        refunded: round(booking.refunded),
        company: CompanyDetails::of(settings),
        money: MoneyFormat::of(settings),
    })
}

/// The tax included in `total`, when a rate is set.
pub fn tax_of(total: Decimal, settings: &Settings) -> Option<ReceiptTax> {
    if settings.taxRate <= Decimal::ZERO {
        return None;
    }
    let rate = settings.taxRate;
    let amount = money::round_to(total * rate / (Decimal::ONE_HUNDRED + rate), settings);
    Some(ReceiptTax { name: settings.taxName.trim().to_string(), rate, amount, included: true })
}

/// The cash, card and wallet parts of a paid booking, each when above 0.
/// A booking from before the parts were recorded shows what the rider paid
/// under its payment mode.
fn payment_parts(booking: &Booking, settings: &Settings) -> Vec<ReceiptPayment> {
    let round = |amount: Decimal| money::round_to(amount, settings);
    let mut parts = Vec::new();
    let card_gateway = booking.gateway.clone().filter(|gateway| !gateway.is_empty());
    for (method, amount) in [
        (PaidWith::Card, booking.cardPaymentAmount),
        (PaidWith::Wallet, booking.usedWalletMoney),
        (PaidWith::Cash, booking.cashPaymentAmount),
    ] {
        let amount = round(amount);
        if amount > Decimal::ZERO {
            let gateway = if method == PaidWith::Card { card_gateway.clone() } else { None };
            parts.push(ReceiptPayment { method, gateway, amount });
        }
    }
    if parts.is_empty() && booking.customer_paid > Decimal::ZERO {
        let method = match booking.payment_mode {
            Some(PaymentMode::Card) => PaidWith::Card,
            Some(PaymentMode::Wallet) => PaidWith::Wallet,
            Some(PaymentMode::Cash) | None => PaidWith::Cash,
        };
        let gateway = if method == PaidWith::Card { card_gateway } else { None };
        parts.push(ReceiptPayment { method, gateway, amount: round(booking.customer_paid) });
    }
    parts
}

#[cfg(test)]
mod tests;
