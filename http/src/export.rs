//! The panel's tables as files (spec §2: the bookings grid, the driver
//! earning table and the earnings report are exportable): one [`Table`] per
//! list, written as CSV or as an XLSX workbook, so both files always carry
//! the same columns and numbers as the JSON rows they come from.
//!
//! Headers are the JSON field names, so a file and the API read alike. Money
//! is written rounded to `settings.decimal` places: as text with exactly that
//! many places in CSV, as a number with a matching number format in XLSX.

use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use rust_xlsxwriter::{Format, Workbook, XlsxError};
use wayfare_engine::timefmt::local_datetime;
use wayfare_engine::{AppCategory, Booking, EarningsReportRow, EarningsRow, Millis, PaymentMode, money};

/// One cell of an exported table.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Text(String),
    Integer(i64),
    /// A measure such as a distance, written as it is.
    Number(f64),
    Money(Decimal),
}

/// Rows under named columns, with the places money is shown with.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The worksheet's name in XLSX (at most 31 characters).
    pub sheet: &'static str,
    pub headers: Vec<&'static str>,
    pub rows: Vec<Vec<Cell>>,
    pub decimals: u32,
}

/// The columns every earnings row has (spec §3 "Earnings rows").
const EARNINGS_HEADERS: [&str; 8] =
    ["year", "month", "monthsName", "driverName", "driverVehicleNo", "driverUId", "total_rides", "driverShare"];

/// The columns the report adds.
const REPORT_HEADERS: [&str; 7] =
    ["tripCost", "rideCost", "convenienceFee", "discountAmount", "customerPaid", "cancellationFee", "myEarning"];

fn earnings_cells(row: &EarningsRow) -> Vec<Cell> {
    vec![
        Cell::Integer(i64::from(row.year)),
        Cell::Integer(i64::from(row.month)),
        Cell::Text(row.monthsName.clone()),
        Cell::Text(row.driverName.clone()),
        Cell::Text(row.driverVehicleNo.clone()),
        Cell::Text(row.driverUId.to_string()),
        Cell::Integer(i64::from(row.total_rides)),
        Cell::Money(row.driverShare),
    ]
}

/// The driver earning table.
pub fn driver_earnings_table(rows: &[EarningsRow], decimals: u32) -> Table {
    Table {
        sheet: "Driver earnings",
        headers: EARNINGS_HEADERS.to_vec(),
        rows: rows.iter().map(earnings_cells).collect(),
        decimals,
    }
}

/// The earnings report.
pub fn earnings_report_table(rows: &[EarningsReportRow], decimals: u32) -> Table {
    Table {
        sheet: "Earnings report",
        headers: EARNINGS_HEADERS.iter().chain(REPORT_HEADERS.iter()).copied().collect(),
        rows: rows
            .iter()
            .map(|row| {
                let mut cells = earnings_cells(&row.earnings);
                cells.extend(
                    [
                        row.tripCost,
                        row.rideCost,
                        row.convenienceFee,
                        row.discountAmount,
                        row.customerPaid,
                        row.cancellationFee,
                        row.myEarning,
                    ]
                    .map(Cell::Money),
                );
                cells
            })
            .collect(),
        decimals,
    }
}

/// The bookings grid's columns (spec §2 "Bookings"), without contact data.
const BOOKING_HEADERS: [&str; 26] = [
    "id",
    "reference",
    "bookingDate",
    "tripdate",
    "customer_name",
    "driver_name",
    "vehicle_number",
    "carType",
    "pickupAddress",
    "dropAddress",
    // Where the trip really ended, when more than 200 m from the booked drop.
    "actualDropAddress",
    "status",
    "estimateDistance",
    "trip_cost",
    "convenience_fees",
    "driver_share",
    "discount_amount",
    "customer_paid",
    "payment_mode",
    "cashPaymentAmount",
    "cardPaymentAmount",
    "usedWalletMoney",
    "cancellationFee",
    "reason",
    "otp",
    // The living demo's traffic (issue #35), so a report can leave it out.
    "demo",
];

/// The delivery platform's columns (spec §2: only when the category is delivery).
const DELIVERY_HEADERS: [&str; 2] = ["pickup_image", "deliver_image"];

/// `2027-01-31 18:05`, local to the reporting zone; empty for no instant.
fn local_text(at: Millis, utc_offset_minutes: i32) -> String {
    local_datetime(at, utc_offset_minutes).map(|time| time.format("%Y-%m-%d %H:%M").to_string()).unwrap_or_default()
}

/// A place's address, or its coordinates when the maps named none.
fn place_text(place: &wayfare_engine::Place) -> String {
    if place.add.trim().is_empty() { format!("{:.5}, {:.5}", place.lat, place.lng) } else { place.add.clone() }
}

/// The bookings grid's rows, as the panel's export.
pub fn bookings_table(bookings: &[Booking], appcat: AppCategory, decimals: u32, utc_offset_minutes: i32) -> Table {
    let delivery = appcat == AppCategory::Delivery;
    let mut headers = BOOKING_HEADERS.to_vec();
    if delivery {
        headers.extend(DELIVERY_HEADERS);
    }
    let rows = bookings
        .iter()
        .map(|booking| {
            let mut cells = vec![
                Cell::Text(booking.id.to_string()),
                Cell::Text(booking.reference.clone()),
                Cell::Text(local_text(booking.bookingDate, utc_offset_minutes)),
                Cell::Text(local_text(booking.tripdate, utc_offset_minutes)),
                Cell::Text(booking.customer_name.clone()),
                Cell::Text(booking.driver_name.clone()),
                Cell::Text(booking.vehicle_number.clone()),
                Cell::Text(booking.carType.clone()),
                Cell::Text(booking.pickupAddress.clone()),
                Cell::Text(booking.dropAddress.clone()),
                Cell::Text(booking.ended_elsewhere().map(place_text).unwrap_or_default()),
                Cell::Text(booking.status.as_str().to_string()),
                Cell::Number(booking.estimateDistance),
                Cell::Money(booking.trip_cost),
                Cell::Money(booking.convenience_fees),
                Cell::Money(booking.driver_share),
                Cell::Money(booking.discount_amount),
                Cell::Money(booking.customer_paid),
                Cell::Text(match booking.payment_mode {
                    Some(PaymentMode::Cash) => "cash".to_string(),
                    Some(PaymentMode::Wallet) => "wallet".to_string(),
                    Some(PaymentMode::Card) => "card".to_string(),
                    None => String::new(),
                }),
                Cell::Money(booking.cashPaymentAmount),
                Cell::Money(booking.cardPaymentAmount),
                Cell::Money(booking.usedWalletMoney),
                Cell::Money(booking.cancellationFee),
                Cell::Text(booking.reason.clone()),
                Cell::Text(booking.otp.0.map(|code| code.to_string()).unwrap_or_default()),
                Cell::Text(booking.demo.to_string()),
            ];
            if delivery {
                cells.push(Cell::Text(booking.pickup_image.clone().unwrap_or_default()));
                cells.push(Cell::Text(booking.deliver_image.clone().unwrap_or_default()));
            }
            cells
        })
        .collect();
    Table { sheet: "Bookings", headers, rows, decimals }
}

/// Money with exactly `decimals` places: `12.50` at 2, `13` at 0.
pub fn money_text(amount: Decimal, decimals: u32) -> String {
    format!("{:.*}", decimals as usize, money::round(amount, decimals))
}

/// RFC 4180 CSV: a header line, CRLF line ends, fields with a comma, quote or
/// line break quoted. UTF-8 with a byte-order mark, so spreadsheet programs
/// read non-Latin names (Arabic is a shipped language) correctly.
///
/// A text cell that a spreadsheet would run as a formula (starting with `=`,
/// `+`, `-`, `@`, tab or carriage return) gets a leading `'`: names come from
/// users, and an export must not carry a formula into the admin's spreadsheet.
pub fn to_csv(table: &Table) -> String {
    let mut out = String::from("\u{feff}");
    let headers: Vec<String> = table.headers.iter().map(|header| csv_field(header)).collect();
    out.push_str(&headers.join(","));
    out.push_str("\r\n");
    for row in &table.rows {
        let fields: Vec<String> = row
            .iter()
            .map(|cell| match cell {
                Cell::Text(text) => csv_field(&defuse_formula(text)),
                Cell::Integer(number) => number.to_string(),
                Cell::Number(number) => number.to_string(),
                Cell::Money(amount) => money_text(*amount, table.decimals),
            })
            .collect();
        out.push_str(&fields.join(","));
        out.push_str("\r\n");
    }
    out
}

fn defuse_formula(text: &str) -> String {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{text}") } else { text.to_string() }
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) { format!("\"{}\"", text.replace('"', "\"\"")) } else { text.to_string() }
}

/// An XLSX workbook of one worksheet: bold, frozen headers; text as strings
/// (never formulas), counts and money as numbers, money shown with
/// `decimals` places.
pub fn to_xlsx(table: &Table) -> Result<Vec<u8>, XlsxError> {
    let mut workbook = Workbook::new();
    let bold = Format::new().set_bold();
    let money_format = if table.decimals == 0 {
        Format::new().set_num_format("0")
    } else {
        Format::new().set_num_format(format!("0.{}", "0".repeat(table.decimals as usize)))
    };
    let sheet = workbook.add_worksheet();
    sheet.set_name(table.sheet)?;
    for (column, header) in (0u16..).zip(&table.headers) {
        sheet.write_string_with_format(0, column, *header, &bold)?;
    }
    for (row_number, row) in (1u32..).zip(&table.rows) {
        for (column, cell) in (0u16..).zip(row) {
            match cell {
                Cell::Text(text) => sheet.write_string(row_number, column, text.as_str())?,
                Cell::Integer(number) => sheet.write_number(row_number, column, *number as f64)?,
                Cell::Number(number) => sheet.write_number(row_number, column, *number)?,
                Cell::Money(amount) => {
                    let rounded = money::round(*amount, table.decimals).to_f64().unwrap_or_default();
                    sheet.write_number_with_format(row_number, column, rounded, &money_format)?
                }
            };
        }
    }
    sheet.set_freeze_panes(1, 0)?;
    sheet.autofit();
    workbook.save_to_buffer()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;
    use wayfare_engine::UserId;

    fn row(name: &str) -> EarningsRow {
        EarningsRow {
            year: 2027,
            month: 1,
            monthsName: "January".into(),
            driverShare: dec!(12.5),
            total_rides: 3,
            driverName: name.into(),
            driverVehicleNo: "MD-1".into(),
            driverUId: UserId::from_u128(1),
        }
    }

    #[test]
    fn the_bookings_export_shows_where_a_trip_ended_only_when_it_is_elsewhere() {
        let mut booking: Booking = serde_json::from_value(serde_json::json!({
            "id": UserId::from_u128(50), "reference": "ABCDEF", "appcat": "taxi", "carType": "Economy",
            "customer": UserId::from_u128(1),
            "pickup": {"lat": 39.28, "lng": -76.6, "add": "A"},
            "drop": {"lat": 39.2806, "lng": -76.5686, "add": "The Can Company, 2400 Boston St"},
            "pickupAddress": "A", "dropAddress": "The Can Company, 2400 Boston St", "estimate": 10.0,
            "estimateDistance": 2.0, "estimateTime": 300, "status": "COMPLETE", "bookLater": false, "tripdate": 0,
            "bookingDate": 0, "trip_cost": 10.0, "convenience_fees": 1.0, "driver_share": 9.0, "payableAmount": 10.0
        }))
        .unwrap();
        let ended = |booking: &Booking| {
            let table = bookings_table(std::slice::from_ref(booking), AppCategory::Taxi, 2, 0);
            let column = table.headers.iter().position(|header| *header == "actualDropAddress").unwrap();
            let drop = table.headers.iter().position(|header| *header == "dropAddress").unwrap();
            match (&table.rows[0][drop], &table.rows[0][column]) {
                (Cell::Text(drop), Cell::Text(ended)) => (drop.clone(), ended.clone()),
                _ => panic!("text cells"),
            }
        };
        // 50 m away: the booked drop only.
        booking.actualDrop = Some(wayfare_engine::Place { lat: 39.28105, lng: -76.5686, add: "2401 Boston St".into() });
        assert_eq!(ended(&booking), ("The Can Company, 2400 Boston St".to_string(), String::new()));
        // 400 m away: both, the real one by its coordinates when it has no address.
        booking.actualDrop = Some(wayfare_engine::Place { lat: 39.2842, lng: -76.5686, add: String::new() });
        assert_eq!(ended(&booking), ("The Can Company, 2400 Boston St".to_string(), "39.28420, -76.56860".to_string()));
        // The living demo's traffic is told apart in its own column.
        let demo = |booking: &Booking| {
            let table = bookings_table(std::slice::from_ref(booking), AppCategory::Taxi, 2, 0);
            let column = table.headers.iter().position(|header| *header == "demo").unwrap();
            table.rows[0][column].clone()
        };
        assert!(matches!(demo(&booking), Cell::Text(text) if text == "false"));
        booking.demo = true;
        assert!(matches!(demo(&booking), Cell::Text(text) if text == "true"));
    }

    #[test]
    fn money_has_exactly_the_set_places() {
        assert_eq!(money_text(dec!(12.5), 2), "12.50");
        assert_eq!(money_text(dec!(12.505), 2), "12.51");
        assert_eq!(money_text(dec!(-3), 2), "-3.00");
        assert_eq!(money_text(dec!(12.5), 0), "13");
        assert_eq!(money_text(dec!(0), 3), "0.000");
    }

    #[test]
    fn csv_quotes_what_needs_quoting_and_defuses_formulas() {
        let table = driver_earnings_table(&[row("Smith, \"Jo\""), row("=HYPERLINK(\"x\")"), row("-1+1")], 2);
        let csv = to_csv(&table);
        let lines: Vec<&str> = csv.trim_start_matches('\u{feff}').split("\r\n").collect();
        assert_eq!(lines[0], "year,month,monthsName,driverName,driverVehicleNo,driverUId,total_rides,driverShare");
        assert_eq!(lines[1], format!("2027,1,January,\"Smith, \"\"Jo\"\"\",MD-1,{},3,12.50", UserId::from_u128(1)));
        assert!(lines[2].contains(",\"'=HYPERLINK(\"\"x\"\")\","), "{}", lines[2]);
        assert!(lines[3].contains(",'-1+1,"), "{}", lines[3]);
        assert_eq!(lines.len(), 5, "a CRLF after every row");
        assert_eq!(lines[4], "");
        assert!(csv.starts_with('\u{feff}'));
    }

    #[test]
    fn an_xlsx_workbook_is_a_zip_with_a_worksheet() {
        let bytes = to_xlsx(&driver_earnings_table(&[row("Asha")], 2)).unwrap();
        assert_eq!(&bytes[..4], b"PK\x03\x04");
        let text = String::from_utf8_lossy(&bytes);
        for part in ["[Content_Types].xml", "xl/workbook.xml", "xl/worksheets/sheet1.xml"] {
            assert!(text.contains(part), "{part}");
        }
    }
}
