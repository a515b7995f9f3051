//! Tolerant readers of the original product's records. Its database takes
//! whatever a client writes, so one field can be a number in one record and
//! the same number as text in the next (`driver_share` is written with
//! `toFixed`), a flag can be `"true"`, a list can come back as an object
//! (Firebase turns an array with holes into one keyed by index), and a date
//! can be milliseconds, seconds or a date's text. A [`Record`] reads one
//! record's fields in those shapes, remembers which fields it used, and hands
//! back the rest: the keys Wayfare has no place for, counted in the report
//! and kept beside the record.

use super::report::Report;
use crate::model::Millis;
use crate::money;
use rust_decimal::Decimal;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// Why a field's value could not be read.
pub(crate) type Unreadable = &'static str;

/// One record of the export: its path (`bookings/-Nabc`), its fields, and
/// which of them were read.
pub(crate) struct Record<'a> {
    pub path: String,
    fields: &'a Map<String, Value>,
    used: BTreeSet<&'a str>,
    /// Optional fields whose value could not be read: `(field, why)`.
    unreadable: Vec<(&'a str, Unreadable)>,
}

/// The record at `path`, when it is an object.
pub(crate) fn record<'a>(path: String, value: &'a Value) -> Option<Record<'a>> {
    value.as_object().map(|fields| Record::new(path, fields))
}

impl<'a> Record<'a> {
    pub fn new(path: String, fields: &'a Map<String, Value>) -> Self {
        Record { path, fields, used: BTreeSet::new(), unreadable: Vec::new() }
    }

    /// The path of one of this record's fields, for the report.
    pub fn field_path(&self, field: &str) -> String {
        format!("{}/{field}", self.path)
    }

    /// The field's value, marked used; `None` when absent or null.
    pub fn value(&mut self, field: &str) -> Option<&'a Value> {
        let (key, value) = self.fields.get_key_value(field)?;
        self.used.insert(key.as_str());
        (!value.is_null()).then_some(value)
    }

    /// The field's value without marking it used.
    pub fn peek(&self, field: &str) -> Option<&'a Value> {
        self.fields.get(field).filter(|value| !value.is_null())
    }

    /// A field in the shape of a Wayfare type; a value of another shape is
    /// kept aside.
    pub fn typed<T: serde::de::DeserializeOwned>(&mut self, field: &str) -> Option<T> {
        self.optional(field, |value| {
            serde_json::from_value(value.clone()).map(Some).map_err(|_| "not in Wayfare's shape")
        })
    }

    /// Reads an optional field with `read`; a value it cannot read counts as
    /// absent, stays among the unused fields and is noted in the report.
    fn optional<T>(&mut self, field: &str, read: impl FnOnce(&'a Value) -> Result<Option<T>, Unreadable>) -> Option<T> {
        let (key, value) = self.fields.get_key_value(field)?;
        if value.is_null() {
            self.used.insert(key.as_str());
            return None;
        }
        match read(value) {
            Ok(read) => {
                self.used.insert(key.as_str());
                read
            }
            Err(why) => {
                self.unreadable.push((key.as_str(), why));
                None
            }
        }
    }

    /// Text, trimmed; a number or flag as its text; blank is `None`.
    pub fn text(&mut self, field: &str) -> Option<String> {
        self.optional(field, text_of)
    }

    /// Text as written (a single space kept: the original writes `' '` for
    /// "none" in some fields, which callers turn into empty).
    pub fn text_or_empty(&mut self, field: &str) -> String {
        self.text(field).unwrap_or_default()
    }

    /// An amount: a number, or a number written as text.
    pub fn decimal(&mut self, field: &str) -> Option<Decimal> {
        self.optional(field, decimal_of)
    }

    /// An amount rounded to `decimals` places, zero when absent.
    pub fn money(&mut self, field: &str, decimals: u32) -> Decimal {
        self.decimal(field).map(|amount| money::round(amount, decimals)).unwrap_or_default()
    }

    pub fn float(&mut self, field: &str) -> Option<f64> {
        self.optional(field, float_of)
    }

    /// A whole number at least 0 (a fraction is rounded).
    pub fn count(&mut self, field: &str) -> Option<u64> {
        self.optional(field, count_of)
    }

    pub fn flag(&mut self, field: &str) -> Option<bool> {
        self.optional(field, flag_of)
    }

    /// An instant: milliseconds, seconds, or a date's text.
    pub fn millis(&mut self, field: &str) -> Option<Millis> {
        self.optional(field, millis_of)
    }

    pub fn object(&mut self, field: &str) -> Option<&'a Map<String, Value>> {
        self.optional(field, |value| value.as_object().map(Some).ok_or("not an object"))
    }

    /// A list, whether stored as an array or as an object keyed by index or
    /// push id (in key order); nulls left out.
    pub fn list(&mut self, field: &str) -> Vec<&'a Value> {
        self.optional(field, |value| {
            if value.is_array() || value.is_object() { Ok(Some(list_of(value))) } else { Err("not a list") }
        })
        .unwrap_or_default()
    }

    /// Marks fields used without reading them (derived values the original
    /// keeps beside the ones Wayfare reads, e.g. `pickupAddress`).
    pub fn skip(&mut self, fields: &[&str]) {
        for field in fields {
            if let Some((key, _)) = self.fields.get_key_value(*field) {
                self.used.insert(key.as_str());
            }
        }
    }

    /// The fields not read, as an object (kept beside the record); their
    /// names are counted under `node` in the report, and the unreadable ones
    /// noted with their path.
    pub fn finish(self, node: &str, report: &mut Report) -> Map<String, Value> {
        for (field, why) in &self.unreadable {
            report.adjust("unreadable_field_kept_aside", format!("{}/{field}: {why}", self.path));
        }
        let mut extra = Map::new();
        for (key, value) in self.fields {
            if self.used.contains(key.as_str()) {
                continue;
            }
            if !self.unreadable.iter().any(|(field, _)| *field == key.as_str()) {
                report.unknown_key(node, key);
            }
            extra.insert(key.clone(), value.clone());
        }
        extra
    }
}

pub(crate) fn text_of(value: &Value) -> Result<Option<String>, Unreadable> {
    match value {
        Value::String(text) => {
            let text = text.trim();
            Ok((!text.is_empty()).then(|| text.to_string()))
        }
        Value::Number(number) => Ok(Some(number.to_string())),
        Value::Bool(flag) => Ok(Some(flag.to_string())),
        Value::Null => Ok(None),
        _ => Err("not text"),
    }
}

pub(crate) fn decimal_of(value: &Value) -> Result<Option<Decimal>, Unreadable> {
    match value {
        // The number's shortest text, so 0.1 reads as 0.1 and not as its binary neighbour.
        Value::Number(number) => money::parse_amount(&number.to_string()).map(Some).ok_or("not an amount"),
        Value::String(text) if text.trim().is_empty() => Ok(None),
        Value::String(text) => money::parse_amount(text).map(Some).ok_or("not an amount"),
        Value::Null => Ok(None),
        _ => Err("not an amount"),
    }
}

pub(crate) fn float_of(value: &Value) -> Result<Option<f64>, Unreadable> {
    let number = match value {
        Value::Number(number) => number.as_f64(),
        Value::String(text) if text.trim().is_empty() => return Ok(None),
        Value::String(text) => text.trim().parse::<f64>().ok(),
        Value::Null => return Ok(None),
        _ => None,
    };
    number.filter(|number| number.is_finite()).map(Some).ok_or("not a number")
}

pub(crate) fn count_of(value: &Value) -> Result<Option<u64>, Unreadable> {
    // The original writes `false` for "none" (an otp when otp_secure is off).
    if value == &Value::Bool(false) {
        return Ok(None);
    }
    match float_of(value)? {
        Some(number) if (0.0..1e15).contains(&number) => Ok(Some(number.round() as u64)),
        Some(_) => Err("not a count"),
        None => Ok(None),
    }
}

pub(crate) fn flag_of(value: &Value) -> Result<Option<bool>, Unreadable> {
    match value {
        Value::Bool(flag) => Ok(Some(*flag)),
        Value::Number(number) => match number.as_f64() {
            Some(0.0) => Ok(Some(false)),
            Some(1.0) => Ok(Some(true)),
            _ => Err("not true or false"),
        },
        Value::String(text) => match text.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "1" => Ok(Some(true)),
            "false" | "no" | "0" => Ok(Some(false)),
            "" => Ok(None),
            _ => Err("not true or false"),
        },
        Value::Null => Ok(None),
        _ => Err("not true or false"),
    }
}

/// Milliseconds since the epoch from a number or a date's text. A number
/// between 10^9 and 10^11 is taken as seconds (milliseconds that small are
/// in 1970; seconds that large are past the year 5000).
pub(crate) fn millis_of(value: &Value) -> Result<Option<Millis>, Unreadable> {
    match value {
        Value::Number(_) => Ok(Some(scale_seconds(float_of(value)?.ok_or("not a time")?))),
        Value::String(text) => {
            let text = text.trim();
            if text.is_empty() {
                return Ok(None);
            }
            if let Ok(number) = text.parse::<f64>() {
                return if number.is_finite() { Ok(Some(scale_seconds(number))) } else { Err("not a time") };
            }
            parse_date_text(text).map(Some).ok_or("not a time")
        }
        Value::Null => Ok(None),
        _ => Err("not a time"),
    }
}

fn scale_seconds(number: f64) -> Millis {
    if (1e9..1e11).contains(&number.abs()) { (number * 1000.0).round() as Millis } else { number.round() as Millis }
}

/// A date as text: RFC 3339 (`2024-03-01T10:00:00Z`), a bare date
/// (`2024-03-01`, midnight UTC), a local date and time without zone (taken
/// as UTC), or what JavaScript's `Date.toString()` writes
/// (`Fri Mar 01 2024 10:00:00 GMT+0530 (India Standard Time)`).
pub(crate) fn parse_date_text(text: &str) -> Option<Millis> {
    use chrono::{DateTime, NaiveDate, NaiveDateTime};
    if let Ok(instant) = DateTime::parse_from_rfc3339(text) {
        return Some(instant.timestamp_millis());
    }
    for format in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S"] {
        if let Ok(local) = NaiveDateTime::parse_from_str(text, format) {
            return Some(local.and_utc().timestamp_millis());
        }
    }
    if let Ok(date) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        return date.and_hms_opt(0, 0, 0).map(|midnight| midnight.and_utc().timestamp_millis());
    }
    // JavaScript's Date.toString(): drop the zone's name in brackets.
    let javascript = text.split(" (").next().unwrap_or(text);
    DateTime::parse_from_str(javascript, "%a %b %d %Y %H:%M:%S GMT%z").ok().map(|instant| instant.timestamp_millis())
}

/// A list stored as an array or as an object: an object's entries in key
/// order, numeric keys by number (Firebase writes `{"0": …, "2": …}` for an
/// array with a hole). Nulls are left out.
pub(crate) fn list_of(value: &Value) -> Vec<&Value> {
    match value {
        Value::Array(items) => items.iter().filter(|item| !item.is_null()).collect(),
        Value::Object(entries) => {
            let mut keyed: Vec<(&String, &Value)> = entries.iter().filter(|(_, item)| !item.is_null()).collect();
            keyed.sort_by(|(one, _), (other, _)| match (one.parse::<u64>(), other.parse::<u64>()) {
                (Ok(one), Ok(other)) => one.cmp(&other),
                _ => one.cmp(other),
            });
            keyed.into_iter().map(|(_, item)| item).collect()
        }
        _ => Vec::new(),
    }
}

/// The children of a node keyed by id (`users/{uid}`), in key order; a node
/// stored as an array (ids 0, 1, …) keyed by index.
pub(crate) fn children(value: &Value) -> Vec<(String, &Value)> {
    match value {
        Value::Object(entries) => entries.iter().map(|(key, child)| (key.clone(), child)).collect(),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .filter(|(_, item)| !item.is_null())
            .map(|(index, item)| (index.to_string(), item))
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;
    use serde_json::json;

    #[test]
    fn amounts_read_from_numbers_and_from_text() {
        assert_eq!(decimal_of(&json!(12.5)), Ok(Some(dec!(12.5))));
        assert_eq!(decimal_of(&json!("12.50")), Ok(Some(dec!(12.50))));
        assert_eq!(decimal_of(&json!(0.1)), Ok(Some(dec!(0.1))), "no binary noise");
        assert_eq!(decimal_of(&json!(" ")), Ok(None));
        assert_eq!(decimal_of(&json!("12,5")), Err("not an amount"));
        assert_eq!(decimal_of(&json!([1])), Err("not an amount"));
    }

    #[test]
    fn flags_read_from_booleans_text_and_zero_or_one() {
        for (value, flag) in
            [(json!(true), true), (json!("false"), false), (json!("Yes"), true), (json!(0), false), (json!(1), true)]
        {
            assert_eq!(flag_of(&value), Ok(Some(flag)), "{value}");
        }
        assert!(flag_of(&json!("maybe")).is_err());
        assert!(flag_of(&json!(2)).is_err());
    }

    #[test]
    fn instants_read_from_milliseconds_seconds_and_dates() {
        assert_eq!(millis_of(&json!(1_700_000_000_000_i64)), Ok(Some(1_700_000_000_000)));
        assert_eq!(millis_of(&json!("1700000000000")), Ok(Some(1_700_000_000_000)));
        assert_eq!(millis_of(&json!(1_700_000_000)), Ok(Some(1_700_000_000_000)), "seconds");
        assert_eq!(millis_of(&json!("2023-11-14T22:13:20Z")), Ok(Some(1_700_000_000_000)));
        assert_eq!(millis_of(&json!("2023-11-14")), Ok(Some(1_699_920_000_000)));
        assert_eq!(
            millis_of(&json!("Wed Nov 15 2023 03:43:20 GMT+0530 (India Standard Time)")),
            Ok(Some(1_700_000_000_000))
        );
        assert_eq!(millis_of(&json!("yesterday")), Err("not a time"));
        assert_eq!(millis_of(&json!(0)), Ok(Some(0)));
    }

    #[test]
    fn lists_read_from_arrays_and_from_objects_with_holes() {
        let array = json!([{"a": 1}, null, {"a": 2}]);
        assert_eq!(list_of(&array), vec![&json!({"a": 1}), &json!({"a": 2})]);
        let with_hole = json!({"10": "ten", "2": "two", "0": "zero"});
        assert_eq!(list_of(&with_hole), vec![&json!("zero"), &json!("two"), &json!("ten")]);
    }

    #[test]
    fn a_record_hands_back_what_it_did_not_read_and_counts_it() {
        let value = json!({"name": "Economy", "base_fare": "10", "pos": 1, "min_fare": "ten"});
        let mut record = record("cartypes/type1".into(), &value).unwrap();
        assert_eq!(record.text("name").as_deref(), Some("Economy"));
        assert_eq!(record.decimal("base_fare"), Some(dec!(10)));
        assert_eq!(record.decimal("min_fare"), None, "unreadable counts as absent");
        let mut report = Report::default();
        let extra = record.finish("cartypes", &mut report);
        assert_eq!(extra, json!({"pos": 1, "min_fare": "ten"}).as_object().unwrap().clone());
        assert_eq!(report.unknown_keys["cartypes"]["pos"], 1);
        assert!(!report.unknown_keys["cartypes"].contains_key("min_fare"), "a known field, only unreadable");
        let noted = &report.adjustments["unreadable_field_kept_aside"];
        assert_eq!(noted.count, 1);
        assert_eq!(noted.examples, ["cartypes/type1/min_fare: not an amount"]);
    }
}
