//! Calendar helpers of spec §7 ("minutes passed, date string") and the chat
//! stamps of spec §3/§9: `msgDate` as `MM:DD:YYYY` and `msgTime` as `HH:MM`,
//! both zero-padded, plus the month a booking belongs to for earnings.
//!
//! The engine reads no clock and holds no time-zone database: every function
//! takes the instant (`Millis`) and a fixed UTC offset in minutes east of UTC
//! (`+60` for CET, `-300` for EST; the opposite sign of JavaScript's
//! `getTimezoneOffset()`). The caller resolves the zone, the user's own or the
//! platform's, to the offset in force and passes it in. Reports take one
//! offset for the whole report, so a booking within an hour of midnight on a
//! daylight-saving change may fall in the neighbouring day; the storage layer
//! applies the same fixed offset in SQL, so both sides agree.
//!
//! Nothing here panics. An offset outside
//! [`MIN_UTC_OFFSET_MINUTES`]..=[`MAX_UTC_OFFSET_MINUTES`], or an instant whose
//! local year falls outside [`MIN_YEAR`]..=[`MAX_YEAR`], yields
//! [`local_datetime`]'s `invalid_input` error, or a visibly invalid fallback
//! from the formatting functions (dashes, month 0, `"Unknown"`).

use crate::error::{DomainError, DomainResult, ErrorKey};
use crate::model::{MINUTE_MS, Millis};
use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, Timelike};

/// Earliest local year we format: `YYYY` has no room for a sign.
pub const MIN_YEAR: i32 = 1;
/// Latest local year we format: `YYYY` has four digits.
pub const MAX_YEAR: i32 = 9999;

/// Most westerly offset in use (UTC-12:00).
pub const MIN_UTC_OFFSET_MINUTES: i32 = -12 * 60;
/// Most easterly offset in use (UTC+14:00).
pub const MAX_UTC_OFFSET_MINUTES: i32 = 14 * 60;

/// `chat_date` of an instant it cannot place.
pub const INVALID_CHAT_DATE: &str = "--:--:----";
/// `chat_time` of an instant it cannot place.
pub const INVALID_CHAT_TIME: &str = "--:--";
/// `date_string` of an instant it cannot place.
pub const INVALID_DATE_STRING: &str = "---------- --:--";
/// `month_name` of a month outside 1..=12.
pub const UNKNOWN_MONTH_NAME: &str = "Unknown";
/// `year_month` of an instant it cannot place: month 0 marks it, and it sorts
/// after every real month in a newest-first report.
pub const UNKNOWN_YEAR_MONTH: (i32, u32) = (0, 0);

const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Checks an offset a user or setting supplies, before it is stored.
pub fn validate_utc_offset(utc_offset_minutes: i32) -> DomainResult<i32> {
    if (MIN_UTC_OFFSET_MINUTES..=MAX_UTC_OFFSET_MINUTES).contains(&utc_offset_minutes) {
        Ok(utc_offset_minutes)
    } else {
        Err(DomainError::on_field(ErrorKey::InvalidInput, "utc_offset_minutes"))
    }
}

/// The wall-clock time at `at` with the offset applied, or `invalid_input` when
/// the offset is out of range or the local year falls outside
/// [`MIN_YEAR`]..=[`MAX_YEAR`]. Milliseconds are floored, so `-1` is
/// 1969-12-31 23:59:59.999 UTC (SQL must floor too, not truncate toward zero).
pub fn local_datetime(at: Millis, utc_offset_minutes: i32) -> DomainResult<NaiveDateTime> {
    let offset_minutes = validate_utc_offset(utc_offset_minutes)?;
    let out_of_range = || DomainError::on_field(ErrorKey::InvalidInput, "at");
    let shifted = at.checked_add(i64::from(offset_minutes) * MINUTE_MS).ok_or_else(out_of_range)?;
    // Shifting the instant and reading it as UTC gives the local wall clock.
    let local = DateTime::from_timestamp_millis(shifted).ok_or_else(out_of_range)?.naive_utc();
    if (MIN_YEAR..=MAX_YEAR).contains(&local.year()) { Ok(local) } else { Err(out_of_range()) }
}

/// `msgDate` of a chat message: `MM:DD:YYYY`, zero-padded (spec §3, §9), or
/// [`INVALID_CHAT_DATE`].
pub fn chat_date(at: Millis, utc_offset_minutes: i32) -> String {
    match local_datetime(at, utc_offset_minutes) {
        Ok(local) => format!("{:02}:{:02}:{:04}", local.month(), local.day(), local.year()),
        Err(_) => INVALID_CHAT_DATE.to_string(),
    }
}

/// `msgTime` of a chat message: `HH:MM` on a 24-hour clock, zero-padded
/// (spec §3, §9), or [`INVALID_CHAT_TIME`].
pub fn chat_time(at: Millis, utc_offset_minutes: i32) -> String {
    match local_datetime(at, utc_offset_minutes) {
        Ok(local) => format!("{:02}:{:02}", local.hour(), local.minute()),
        Err(_) => INVALID_CHAT_TIME.to_string(),
    }
}

/// The "date string" helper of spec §7: `YYYY-MM-DD HH:MM`, which sorts as
/// text and reads the same in every language, or [`INVALID_DATE_STRING`].
pub fn date_string(at: Millis, utc_offset_minutes: i32) -> String {
    match local_datetime(at, utc_offset_minutes) {
        Ok(local) => local.format("%Y-%m-%d %H:%M").to_string(),
        Err(_) => INVALID_DATE_STRING.to_string(),
    }
}

/// Whole minutes from `from` to `now`, rounded down (spec §7 "minutes
/// passed"). A `from` in the future (clock skew between devices) gives 0, never
/// a negative count, so slab and timeout rules never see negative delays.
pub fn minutes_passed(from: Millis, now: Millis) -> i64 {
    now.saturating_sub(from).max(0) / MINUTE_MS
}

/// English month name, 1 = January; [`UNKNOWN_MONTH_NAME`] outside 1..=12.
pub fn month_name(month: u32) -> &'static str {
    month.checked_sub(1).and_then(|index| MONTH_NAMES.get(index as usize)).copied().unwrap_or(UNKNOWN_MONTH_NAME)
}

/// Local year and month (1..=12) of an instant, or [`UNKNOWN_YEAR_MONTH`].
pub fn year_month(at: Millis, utc_offset_minutes: i32) -> (i32, u32) {
    match local_datetime(at, utc_offset_minutes) {
        Ok(local) => (local.year(), local.month()),
        Err(_) => UNKNOWN_YEAR_MONTH,
    }
}

/// The local calendar date of an instant, or `None` when it cannot be placed
/// (see [`local_datetime`]).
pub fn local_date(at: Millis, utc_offset_minutes: i32) -> Option<NaiveDate> {
    local_datetime(at, utc_offset_minutes).ok().map(|local| local.date())
}

/// The instant a local date starts at (its midnight in the offset).
pub(crate) fn start_of(date: NaiveDate, utc_offset_minutes: i32) -> Option<Millis> {
    let midnight = date.and_hms_opt(0, 0, 0)?.and_utc().timestamp_millis();
    midnight.checked_sub(i64::from(utc_offset_minutes) * MINUTE_MS)
}

/// The instants `[start, end)` of the local day holding `at`, or `None`.
pub fn local_day_span(at: Millis, utc_offset_minutes: i32) -> Option<(Millis, Millis)> {
    let date = local_date(at, utc_offset_minutes)?;
    Some((start_of(date, utc_offset_minutes)?, start_of(date.succ_opt()?, utc_offset_minutes)?))
}

/// The instants `[start, end)` of the local month holding `at`, or `None`.
pub fn local_month_span(at: Millis, utc_offset_minutes: i32) -> Option<(Millis, Millis)> {
    let date = local_date(at, utc_offset_minutes)?;
    let first = date.with_day(1)?;
    let next = if first.month() == 12 {
        NaiveDate::from_ymd_opt(first.year() + 1, 1, 1)?
    } else {
        NaiveDate::from_ymd_opt(first.year(), first.month() + 1, 1)?
    };
    Some((start_of(first, utc_offset_minutes)?, start_of(next, utc_offset_minutes)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Milliseconds of a UTC wall-clock time, for readable tests.
    fn utc(year: i32, month: u32, day: u32, hour: u32, minute: u32) -> Millis {
        NaiveDate::from_ymd_opt(year, month, day)
            .and_then(|date| date.and_hms_opt(hour, minute, 0))
            .expect("valid test date")
            .and_utc()
            .timestamp_millis()
    }

    #[test]
    fn chat_date_and_time_are_zero_padded() {
        // spec §9: chat time HH:MM, date MM:DD:YYYY zero-padded
        let at = utc(2026, 3, 5, 7, 4);
        assert_eq!(chat_date(at, 0), "03:05:2026");
        assert_eq!(chat_time(at, 0), "07:04");
    }

    #[test]
    fn chat_time_uses_a_24_hour_clock() {
        // spec §3: msgTime HH:MM
        assert_eq!(chat_time(utc(2026, 12, 31, 23, 59), 0), "23:59");
        assert_eq!(chat_time(utc(2026, 1, 1, 0, 0), 0), "00:00");
    }

    #[test]
    fn the_offset_moves_the_chat_stamp_into_the_local_day() {
        // spec §3: the stamp is the sender's wall clock, not UTC
        let at = utc(2026, 3, 5, 23, 30);
        assert_eq!(chat_date(at, 60), "03:06:2026");
        assert_eq!(chat_time(at, 60), "00:30");
        assert_eq!(chat_date(at, -300), "03:05:2026");
        assert_eq!(chat_time(at, -300), "18:30");
        assert_eq!(chat_time(at, 330), "05:00");
    }

    #[test]
    fn date_string_reads_year_month_day_hour_minute() {
        // spec §7: date string helper
        assert_eq!(date_string(utc(2026, 3, 5, 7, 4), 0), "2026-03-05 07:04");
        assert_eq!(date_string(utc(2026, 3, 5, 7, 4), -480), "2026-03-04 23:04");
    }

    #[test]
    fn negative_millis_are_floored_to_the_previous_minute() {
        // One millisecond before the epoch is still 1969.
        assert_eq!(date_string(-1, 0), "1969-12-31 23:59");
        assert_eq!(year_month(-1, 0), (1969, 12));
    }

    #[test]
    fn minutes_passed_counts_whole_minutes() {
        // spec §7: minutes passed
        let start = utc(2026, 3, 5, 7, 4);
        assert_eq!(minutes_passed(start, start), 0);
        assert_eq!(minutes_passed(start, start + 59_999), 0);
        assert_eq!(minutes_passed(start, start + 60_000), 1);
        assert_eq!(minutes_passed(start, start + 90 * 60_000 + 1), 90);
    }

    #[test]
    fn minutes_passed_is_never_negative() {
        // A timestamp from a device whose clock runs ahead must not yield -1.
        assert_eq!(minutes_passed(1_000_000, 0), 0);
        assert_eq!(minutes_passed(Millis::MAX, Millis::MIN), 0);
        assert_eq!(minutes_passed(Millis::MIN, Millis::MAX), Millis::MAX / MINUTE_MS);
    }

    #[test]
    fn month_names_are_english_from_january() {
        // spec §3: monthsName of earnings rows
        assert_eq!(month_name(1), "January");
        assert_eq!(month_name(3), "March");
        assert_eq!(month_name(12), "December");
        assert_eq!(month_name(0), UNKNOWN_MONTH_NAME);
        assert_eq!(month_name(13), UNKNOWN_MONTH_NAME);
    }

    #[test]
    fn year_month_follows_the_offset_across_a_month_boundary() {
        // spec §3: earnings grouped by month of tripdate, in local time
        let last_evening_of_march = utc(2026, 3, 31, 22, 30);
        assert_eq!(year_month(last_evening_of_march, 0), (2026, 3));
        assert_eq!(year_month(last_evening_of_march, 120), (2026, 4));
        let new_year_utc = utc(2027, 1, 1, 2, 0);
        assert_eq!(year_month(new_year_utc, 0), (2027, 1));
        assert_eq!(year_month(new_year_utc, -180), (2026, 12));
    }

    #[test]
    fn out_of_range_instants_give_the_documented_fallbacks() {
        for at in [Millis::MIN, Millis::MAX, utc(10_000, 1, 1, 0, 0), utc(0, 12, 31, 23, 0)] {
            assert_eq!(chat_date(at, 0), INVALID_CHAT_DATE);
            assert_eq!(chat_time(at, 0), INVALID_CHAT_TIME);
            assert_eq!(date_string(at, 0), INVALID_DATE_STRING);
            assert_eq!(year_month(at, 0), UNKNOWN_YEAR_MONTH);
            assert_eq!(local_datetime(at, 0).unwrap_err().key, ErrorKey::InvalidInput);
        }
        // The offset can push the last representable minute over the edge.
        let last_minute = utc(9999, 12, 31, 23, 59);
        assert_eq!(chat_date(last_minute, 0), "12:31:9999");
        assert_eq!(chat_date(last_minute, 1), INVALID_CHAT_DATE);
    }

    #[test]
    fn out_of_range_offsets_are_refused_not_wrapped() {
        let at = utc(2026, 3, 5, 7, 4);
        assert_eq!(validate_utc_offset(MAX_UTC_OFFSET_MINUTES), Ok(MAX_UTC_OFFSET_MINUTES));
        assert_eq!(validate_utc_offset(MIN_UTC_OFFSET_MINUTES), Ok(MIN_UTC_OFFSET_MINUTES));
        let error = validate_utc_offset(3600).unwrap_err();
        assert_eq!((error.key, error.field), (ErrorKey::InvalidInput, Some("utc_offset_minutes")));
        assert_eq!(chat_time(at, MAX_UTC_OFFSET_MINUTES + 1), INVALID_CHAT_TIME);
        assert_eq!(year_month(at, i32::MIN), UNKNOWN_YEAR_MONTH);
    }

    #[test]
    fn a_local_day_and_month_start_at_local_midnight() {
        // 2026-03-01 03:00 UTC is still February 28th in UTC−5.
        let at = utc(2026, 3, 1, 3, 0);
        assert_eq!(local_date(at, -300), NaiveDate::from_ymd_opt(2026, 2, 28));
        assert_eq!(local_day_span(at, -300), Some((utc(2026, 2, 28, 5, 0), utc(2026, 3, 1, 5, 0))));
        assert_eq!(local_month_span(at, -300), Some((utc(2026, 2, 1, 5, 0), utc(2026, 3, 1, 5, 0))));
        assert_eq!(local_day_span(at, 0), Some((utc(2026, 3, 1, 0, 0), utc(2026, 3, 2, 0, 0))));
        // December rolls into the next year.
        assert_eq!(
            local_month_span(utc(2026, 12, 31, 23, 59), 60),
            Some((utc(2026, 12, 31, 23, 0), utc(2027, 1, 31, 23, 0)))
        );
        assert_eq!(
            local_month_span(utc(2026, 12, 31, 22, 59), 60),
            Some((utc(2026, 11, 30, 23, 0), utc(2026, 12, 31, 23, 0)))
        );
        assert_eq!(local_month_span(utc(2026, 12, 31, 23, 0), 60).map(|span| span.0), Some(utc(2026, 12, 31, 23, 0)));
        // An instant no calendar places, or an offset out of range, has no day.
        assert_eq!(local_day_span(i64::MAX, 0), None);
        assert_eq!(local_date(at, 3600), None);
    }

    proptest! {
        #[test]
        fn formatting_never_panics_and_keeps_its_width(
            at in prop_oneof![any::<i64>(), -62_000_000_000_000i64..253_402_400_000_000],
            offset in prop_oneof![any::<i32>(), MIN_UTC_OFFSET_MINUTES..=MAX_UTC_OFFSET_MINUTES],
        ) {
            // spec §9: fixed-width, zero-padded stamps whatever the input
            prop_assert_eq!(chat_date(at, offset).len(), 10);
            prop_assert_eq!(chat_time(at, offset).len(), 5);
            prop_assert_eq!(date_string(at, offset).len(), 16);
            let (_, month) = year_month(at, offset);
            prop_assert!(month <= 12);
        }
    }
}
