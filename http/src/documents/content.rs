//! What a receipt and a statement say, as a [`Doc`] in the reader's
//! language: labels from the language files (`receipt_*`, `statement_*`),
//! amounts in the platform's currency format, dates as `YYYY-MM-DD HH:MM` in
//! the reporting offset.

use super::doc::{Block, Column, Doc, is_rtl};
use crate::i18n::Localizer;
use rust_decimal::Decimal;
use wayfare_engine::receipt::{CompanyDetails, LineKind, PaidWith, Receipt, WeeklyStatement};
use wayfare_engine::timefmt;

/// Every text key a receipt, a statement or their e-mail uses: each shipped
/// language has them all (`crate::messages` tests).
pub const TEXT_KEYS: [&str; 58] = [
    "receipt_title",
    "receipt_number",
    "receipt_date",
    "receipt_rider",
    "receipt_driver",
    "receipt_vehicle",
    "receipt_pickup",
    "receipt_drop",
    "receipt_ended_at",
    "receipt_distance",
    "receipt_duration",
    "receipt_minutes",
    "receipt_fare",
    "receipt_line_fare",
    "receipt_line_parcel",
    "receipt_line_option",
    "receipt_line_convenience_fee",
    "receipt_line_discount",
    "receipt_line_cancellation_fee",
    "receipt_total",
    "receipt_tax_included",
    "receipt_tax_default_name",
    "receipt_tax_number",
    "receipt_payment",
    "receipt_paid_cash",
    "receipt_paid_card",
    "receipt_paid_wallet",
    "receipt_owed",
    "receipt_refunded",
    "receipt_issued_by",
    "receipt_company",
    "receipt_thanks",
    "receipt_mail_subject",
    "receipt_mail_body",
    "statement_title",
    "statement_week",
    "statement_period",
    "statement_trips",
    "statement_no_trips",
    "statement_col_date",
    "statement_col_reference",
    "statement_col_fare",
    "statement_col_share",
    "statement_col_fee",
    "statement_col_cash",
    "statement_col_card_wallet",
    "statement_summary",
    "statement_rides",
    "statement_trip_cost",
    "statement_convenience_fees",
    "statement_discounts",
    "statement_driver_share",
    "statement_cancellation_fees",
    "statement_earnings",
    "statement_cash_collected",
    "statement_card_wallet",
    "statement_platform_owes",
    "statement_driver_owes",
];

/// The operator's details as fine print, one line each.
fn company_blocks(company: &CompanyDetails, texts: &Localizer) -> Vec<Block> {
    let mut pairs = vec![(texts.text("receipt_company"), company.name.clone())];
    for value in [&company.address, &company.phone, &company.email, &company.website] {
        if !value.is_empty() {
            pairs.push((String::new(), value.clone()));
        }
    }
    if !company.tax_number.is_empty() {
        pairs.push((texts.text("receipt_tax_number"), company.tax_number.clone()));
    }
    vec![Block::Pairs(pairs)]
}

fn minutes(seconds: u64, texts: &Localizer) -> String {
    let minutes = seconds.div_ceil(60);
    format!("{minutes} {}", texts.text("receipt_minutes"))
}

fn rate_text(rate: Decimal) -> String {
    rate.normalize().to_string()
}

/// A receipt in the reader's language.
pub fn receipt_doc(receipt: &Receipt, texts: &Localizer, utc_offset_minutes: i32) -> Doc {
    let money = |amount: Decimal| receipt.money.format(amount);
    let title = format!("{} {}", texts.text("receipt_title"), receipt.number);
    let mut trip = vec![
        (texts.text("receipt_number"), receipt.number.clone()),
        (texts.text("receipt_date"), timefmt::date_string(receipt.date, utc_offset_minutes)),
        (texts.text("receipt_rider"), receipt.rider_name.clone()),
    ];
    if !receipt.driver_name.is_empty() {
        trip.push((texts.text("receipt_driver"), receipt.driver_name.clone()));
    }
    let vehicle = [receipt.car_type.as_str(), receipt.vehicle_number.as_str()]
        .into_iter()
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" · ");
    if !vehicle.is_empty() {
        trip.push((texts.text("receipt_vehicle"), vehicle));
    }
    trip.push((texts.text("receipt_pickup"), receipt.pickup_address.clone()));
    trip.push((texts.text("receipt_drop"), receipt.drop_address.clone()));
    if let Some(ended) = &receipt.ended_at_address {
        trip.push((texts.text("receipt_ended_at"), ended.clone()));
    }
    if receipt.distance > 0.0 {
        trip.push((texts.text("receipt_distance"), format!("{:.1} {}", receipt.distance, receipt.distance_unit)));
    }
    if receipt.trip_seconds > 0 {
        trip.push((texts.text("receipt_duration"), minutes(receipt.trip_seconds, texts)));
    }
    let rows = receipt
        .lines
        .iter()
        .map(|line| {
            let label = texts.text(line.kind.label_key());
            let label = match &line.detail {
                Some(detail) if !detail.is_empty() && line.kind != LineKind::Fare => format!("{label}: {detail}"),
                _ => label,
            };
            (label, money(line.amount))
        })
        .collect();
    let mut blocks = vec![
        Block::Pairs(trip),
        Block::Heading(texts.text("receipt_fare")),
        Block::Amounts { rows, total: Some((texts.text("receipt_total"), money(receipt.total))) },
    ];
    if let Some(tax) = &receipt.tax {
        let name = if tax.name.is_empty() { texts.text("receipt_tax_default_name") } else { tax.name.clone() };
        let label = texts.text("receipt_tax_included").replace("{name}", &name).replace("{rate}", &rate_text(tax.rate));
        blocks.push(Block::Amounts { rows: vec![(label, money(tax.amount))], total: None });
    }
    let mut paid: Vec<(String, String)> = receipt
        .payments
        .iter()
        .map(|part| {
            let label = match part.method {
                PaidWith::Cash => texts.text("receipt_paid_cash"),
                PaidWith::Wallet => texts.text("receipt_paid_wallet"),
                PaidWith::Card => match &part.gateway {
                    Some(gateway) => format!("{} ({gateway})", texts.text("receipt_paid_card")),
                    None => texts.text("receipt_paid_card"),
                },
            };
            (label, money(part.amount))
        })
        .collect();
    if receipt.owed > Decimal::ZERO {
        paid.push((texts.text("receipt_owed"), money(receipt.owed)));
    }
    if receipt.refunded > Decimal::ZERO {
        paid.push((texts.text("receipt_refunded"), money(receipt.refunded)));
    }
    if !paid.is_empty() {
        blocks.push(Block::Heading(texts.text("receipt_payment")));
        blocks.push(Block::Amounts { rows: paid, total: None });
    }
    blocks.push(Block::Heading(texts.text("receipt_issued_by")));
    blocks.extend(company_blocks(&receipt.company, texts));
    blocks.push(Block::Small(texts.text("receipt_thanks")));
    Doc { title, locale: texts.locale().to_string(), rtl: is_rtl(texts.locale()), blocks }
}

/// A weekly statement in the reader's language.
pub fn statement_doc(statement: &WeeklyStatement, texts: &Localizer) -> Doc {
    let money = |amount: Decimal| statement.money.format(amount);
    let offset = statement.utc_offset_minutes;
    let title = format!("{} {}", texts.text("statement_title"), statement.week);
    let last_instant = statement.until - 1;
    let period = format!(
        "{} – {}",
        timefmt::date_string(statement.from, offset).get(..10).unwrap_or_default(),
        timefmt::date_string(last_instant, offset).get(..10).unwrap_or_default()
    );
    let mut about = vec![
        (texts.text("statement_week"), statement.week.clone()),
        (texts.text("statement_period"), period),
        (texts.text("receipt_driver"), statement.driver_name.clone()),
    ];
    if !statement.vehicle_number.is_empty() {
        about.push((texts.text("receipt_vehicle"), statement.vehicle_number.clone()));
    }
    let mut blocks = vec![Block::Pairs(about), Block::Heading(texts.text("statement_trips"))];
    if statement.trips.is_empty() {
        blocks.push(Block::Text(texts.text("statement_no_trips")));
    } else {
        let column = |key: &str, numeric: bool| Column { title: texts.text(key), numeric };
        let columns = vec![
            column("statement_col_date", false),
            column("statement_col_reference", false),
            column("statement_col_fare", true),
            column("statement_col_share", true),
            column("statement_col_fee", true),
            column("statement_col_cash", true),
            column("statement_col_card_wallet", true),
        ];
        let rows = statement
            .trips
            .iter()
            .map(|trip| {
                let reference = if trip.cancellation_fee > Decimal::ZERO {
                    format!(
                        "{} ({}: {})",
                        trip.reference,
                        texts.text("receipt_line_cancellation_fee"),
                        money(trip.cancellation_fee)
                    )
                } else {
                    trip.reference.clone()
                };
                vec![
                    timefmt::date_string(trip.tripdate, offset),
                    reference,
                    money(trip.trip_cost),
                    money(trip.driver_share),
                    money(trip.convenience_fees),
                    money(trip.cash_collected),
                    money(trip.card_paid + trip.wallet_paid),
                ]
            })
            .collect();
        let totals = &statement.totals;
        let footer = vec![vec![
            texts.text("receipt_total"),
            totals.rides.to_string(),
            money(totals.trip_cost),
            money(totals.driver_share),
            money(totals.convenience_fees),
            money(totals.cash_collected),
            money(totals.card_paid + totals.wallet_paid),
        ]];
        blocks.push(Block::Table { columns, rows, footer });
    }
    let totals = &statement.totals;
    let (balance_label, balance) = if totals.balance < Decimal::ZERO {
        (texts.text("statement_driver_owes"), -totals.balance)
    } else {
        (texts.text("statement_platform_owes"), totals.balance)
    };
    blocks.push(Block::Heading(texts.text("statement_summary")));
    blocks.push(Block::Amounts {
        rows: vec![
            (texts.text("statement_rides"), totals.rides.to_string()),
            (texts.text("statement_trip_cost"), money(totals.trip_cost)),
            (texts.text("statement_convenience_fees"), money(totals.convenience_fees)),
            (texts.text("statement_discounts"), money(totals.discount_amount)),
            (texts.text("statement_driver_share"), money(totals.driver_share)),
            (texts.text("statement_cancellation_fees"), money(totals.cancellation_fee)),
            (texts.text("statement_earnings"), money(totals.earnings)),
            (texts.text("statement_cash_collected"), money(totals.cash_collected)),
            (texts.text("statement_card_wallet"), money(totals.card_paid + totals.wallet_paid)),
        ],
        total: Some((balance_label, money(balance))),
    });
    blocks.push(Block::Heading(texts.text("receipt_issued_by")));
    blocks.extend(company_blocks(&statement.company, texts));
    Doc { title, locale: texts.locale().to_string(), rtl: is_rtl(texts.locale()), blocks }
}
