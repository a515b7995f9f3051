//! Keyset cursors and sort keys: what a page's cursor carries (the last
//! row's sort value and id), how it is written and read back, and how a list
//! compares and orders by it.

use super::columns::status_text;
use super::money::to_micros;
use crate::error::{StorageError, StorageResult};
use crate::types::{BookingSort, SortOrder};
use uuid::Uuid;
use wayfare_engine::Booking;

/// A keyset cursor: the sort value and id of the last row of a page, as 48
/// hex digits. Clients treat it as opaque.
pub(crate) fn encode_cursor(sort_value: i64, id: Uuid) -> String {
    let mut bytes = [0u8; 24];
    bytes[..8].copy_from_slice(&sort_value.to_be_bytes());
    bytes[8..].copy_from_slice(id.as_bytes());
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

pub(crate) fn decode_cursor(cursor: &str) -> StorageResult<(i64, Uuid)> {
    let invalid = || StorageError::Invalid("cursor");
    if cursor.len() != 48 || !cursor.is_ascii() {
        return Err(invalid());
    }
    let mut bytes = [0u8; 24];
    for (index, byte) in bytes.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&cursor[index * 2..index * 2 + 2], 16).map_err(|_| invalid())?;
    }
    let sort_value = i64::from_be_bytes(bytes[..8].try_into().map_err(|_| invalid())?);
    let id = Uuid::from_slice(&bytes[8..]).map_err(|_| invalid())?;
    Ok((sort_value, id))
}

/// A sort key's value: the cursor carries it, the keyset compares with it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SortValue {
    Int(i64),
    Text(String),
}

/// Whether a list's sort column holds numbers or text (its cursors differ).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SortKind {
    Int,
    Text,
}

/// The column a booking list is ordered by, and its kind.
pub(crate) fn booking_sort_column(sort: BookingSort) -> (&'static str, SortKind) {
    match sort {
        BookingSort::Tripdate => ("b.tripdate", SortKind::Int),
        BookingSort::BookingDate => ("b.booking_date", SortKind::Int),
        BookingSort::Reference => ("b.reference", SortKind::Text),
        BookingSort::Status => ("b.status", SortKind::Text),
        BookingSort::CustomerName => ("b.customer_name", SortKind::Text),
        BookingSort::DriverName => ("b.driver_name", SortKind::Text),
        BookingSort::CarType => ("b.car_type", SortKind::Text),
        BookingSort::TripCost => ("b.trip_cost_micros", SortKind::Int),
    }
}

/// The sort column's value on a booking, as the row stores it.
pub(crate) fn booking_sort_value(booking: &Booking, sort: BookingSort) -> SortValue {
    match sort {
        BookingSort::Tripdate => SortValue::Int(booking.tripdate),
        BookingSort::BookingDate => SortValue::Int(booking.bookingDate),
        BookingSort::Reference => SortValue::Text(booking.reference.clone()),
        BookingSort::Status => SortValue::Text(status_text(booking.status).to_string()),
        BookingSort::CustomerName => SortValue::Text(booking.customer_name.clone()),
        BookingSort::DriverName => SortValue::Text(booking.driver_name.clone()),
        BookingSort::CarType => SortValue::Text(booking.carType.clone()),
        // A stored booking's amounts fit (they were written as micros).
        BookingSort::TripCost => SortValue::Int(to_micros(booking.trip_cost, "trip_cost").unwrap_or_default()),
    }
}

/// A cursor for either kind: a number's is [`encode_cursor`]'s 48 hex
/// digits; a text's is `t`, the id's 32 hex digits, then the text's UTF-8
/// bytes in hex, so the two never parse as each other.
pub(crate) fn encode_sort_cursor(value: &SortValue, id: Uuid) -> String {
    match value {
        SortValue::Int(number) => encode_cursor(*number, id),
        SortValue::Text(text) => {
            let mut cursor = String::with_capacity(33 + text.len() * 2);
            cursor.push('t');
            for byte in id.as_bytes().iter().chain(text.as_bytes()) {
                cursor.push_str(&format!("{byte:02x}"));
            }
            cursor
        }
    }
}

/// Reads a cursor of the list's kind; one of the other kind is invalid.
pub(crate) fn decode_sort_cursor(cursor: &str, kind: SortKind) -> StorageResult<(SortValue, Uuid)> {
    let invalid = || StorageError::Invalid("cursor");
    match kind {
        SortKind::Int => decode_cursor(cursor).map(|(number, id)| (SortValue::Int(number), id)),
        SortKind::Text => {
            let hex = cursor.strip_prefix('t').ok_or_else(invalid)?;
            if hex.len() < 32 || hex.len() % 2 != 0 || !hex.is_ascii() {
                return Err(invalid());
            }
            let bytes = (0..hex.len() / 2)
                .map(|index| u8::from_str_radix(&hex[index * 2..index * 2 + 2], 16))
                .collect::<Result<Vec<u8>, _>>()
                .map_err(|_| invalid())?;
            let id = Uuid::from_slice(&bytes[..16]).map_err(|_| invalid())?;
            let text = String::from_utf8(bytes[16..].to_vec()).map_err(|_| invalid())?;
            Ok((SortValue::Text(text), id))
        }
    }
}

/// `(<", ">")` keyset comparison and the ORDER BY direction.
pub(crate) fn order_fragments(order: SortOrder) -> (&'static str, &'static str) {
    match order {
        SortOrder::Desc => (" < ", " DESC"),
        SortOrder::Asc => (" > ", " ASC"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_refuse_garbage() {
        let id = Uuid::from_u128(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef);
        for value in [0, -1, i64::MIN, i64::MAX, 1_767_225_600_000] {
            assert_eq!(decode_cursor(&encode_cursor(value, id)).unwrap(), (value, id));
        }
        assert!(decode_cursor("nope").is_err());
        assert!(decode_cursor(&"zz".repeat(24)).is_err());
    }
}
