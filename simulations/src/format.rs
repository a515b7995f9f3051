//! Figures as a reader sees them, in plain text: the report's table and its
//! conclusion print every number through here, so a figure the conclusion
//! quotes reads exactly as it does in the table.

/// What a metric measures, which decides how it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Count,
    /// A share from 0 to 1, shown as a percentage.
    Share,
    /// Already a percentage.
    Percent,
    /// Seconds, shown as m:ss.
    Wait,
    /// Seconds, shown as h:mm:ss.
    Span,
    Metres,
    /// Metres, shown in kilometres.
    Kilometres,
    Decimal,
    /// An amount in the run's currency.
    Money,
}

/// `value` in `unit`, as the table shows it (without its markup).
pub fn metric(value: f64, unit: Unit, currency: &Currency) -> String {
    if !value.is_finite() {
        return "—".to_string();
    }
    match unit {
        Unit::Count => count(value.round().max(0.0) as u64),
        Unit::Share => percent(value * 100.0),
        Unit::Percent => percent(value),
        Unit::Wait => format!("{} ({} s)", minutes_seconds(value), number(value, 0)),
        Unit::Span => format!("{} ({} s)", hours_minutes_seconds(value), number(value, 0)),
        Unit::Metres => format!("{} m", number(value, 0)),
        Unit::Kilometres => format!("{} km", number(value / 1000.0, 1)),
        Unit::Decimal => number(value, 2),
        Unit::Money => money(value, currency),
    }
}

/// The range from `low` to `high` in `unit`: `1:12–1:14 (72–74 s)`.
pub fn range(low: f64, high: f64, unit: Unit, currency: &Currency) -> String {
    match unit {
        Unit::Wait => {
            format!("{}–{} ({}–{} s)", minutes_seconds(low), minutes_seconds(high), number(low, 0), number(high, 0))
        }
        Unit::Span => format!(
            "{}–{} ({}–{} s)",
            hours_minutes_seconds(low),
            hours_minutes_seconds(high),
            number(low, 0),
            number(high, 0)
        ),
        // Counts over seeds have fractional means and bounds: one decimal.
        Unit::Count => format!("{}–{}", number(low, 1), number(high, 1)),
        _ => format!("{}–{}", metric(low, unit, currency), metric(high, unit, currency)),
    }
}

pub fn count(value: u64) -> String {
    group_thousands(&value.to_string())
}

/// `value` with `decimals` places and thousands separated by commas.
pub fn number(value: f64, decimals: usize) -> String {
    if !value.is_finite() {
        return "—".to_string();
    }
    let digits = format!("{:.*}", decimals, value.abs());
    let (whole, fraction) =
        digits.split_once('.').map_or((digits.as_str(), None), |(whole, fraction)| (whole, Some(fraction)));
    let is_zero = digits.chars().all(|character| character == '0' || character == '.');
    let sign = if value < 0.0 && !is_zero { "-" } else { "" };
    match fraction {
        Some(fraction) => format!("{sign}{}.{fraction}", group_thousands(whole)),
        None => format!("{sign}{}", group_thousands(whole)),
    }
}

fn group_thousands(digits: &str) -> String {
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

/// The most decimals a percentage gets to tell itself from 0 or 100.
const PERCENT_MAX_DECIMALS: usize = 4;

/// A percentage with one decimal, or as many more (up to four) as it takes
/// not to read 100 when it is less, or 0 when it is more: 2,499 of 2,500 is
/// `99.96 %`, never `100.0 %`.
pub fn percent(value: f64) -> String {
    if !value.is_finite() {
        return "—".to_string();
    }
    for decimals in 1..=PERCENT_MAX_DECIMALS {
        let scale = 10f64.powi(decimals as i32);
        let rounded = (value * scale).round() / scale;
        let hides_a_shortfall = value < 100.0 && rounded >= 100.0;
        let hides_a_remainder = value > 0.0 && rounded <= 0.0;
        if !hides_a_shortfall && !hides_a_remainder {
            return format!("{} %", number(value, decimals));
        }
    }
    let floor = 10f64.powi(-(PERCENT_MAX_DECIMALS as i32));
    if value < 100.0 && value > 50.0 {
        format!(">{} %", number(100.0 - floor, PERCENT_MAX_DECIMALS))
    } else {
        format!("<{} %", number(floor, PERCENT_MAX_DECIMALS))
    }
}

/// An amount with its currency's symbol, where the settings put it, and its
/// decimal places: `$878.68`, `878.68 €`.
pub fn money(value: f64, currency: &Currency) -> String {
    if !value.is_finite() {
        return "—".to_string();
    }
    // Half away from zero, as the engine rounds money (`money::round`).
    let scale = 10f64.powi(currency.decimals as i32);
    let amount = number((value.abs() * scale).round() / scale, currency.decimals as usize);
    let negative = value < 0.0 && amount.chars().any(|digit| digit.is_ascii_digit() && digit != '0');
    let sign = if negative { "-" } else { "" };
    if currency.symbol_after {
        format!("{sign}{amount} {}", currency.symbol)
    } else {
        format!("{sign}{}{amount}", currency.symbol)
    }
}

pub fn minutes_seconds(seconds: f64) -> String {
    if !seconds.is_finite() {
        return "—".to_string();
    }
    let whole = seconds.max(0.0).round() as u64;
    format!("{}:{:02}", whole / 60, whole % 60)
}

pub fn hours_minutes_seconds(seconds: f64) -> String {
    if !seconds.is_finite() {
        return "—".to_string();
    }
    let whole = seconds.max(0.0).round() as u64;
    format!("{}:{:02}:{:02}", whole / 3600, whole % 3600 / 60, whole % 60)
}

/// A list as a sentence says it: `a`, `a and b`, `a, b and c`.
pub fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The platform's currency as its settings give it (`code`, `symbol`,
/// `swipe_symbol`, `decimal`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Currency {
    pub code: String,
    pub symbol: String,
    /// The symbol goes after the amount.
    pub symbol_after: bool,
    pub decimals: u32,
}

impl Currency {
    pub fn of(settings: &wayfare_engine::Settings) -> Currency {
        Currency {
            code: settings.code.clone(),
            symbol: settings.symbol.clone(),
            symbol_after: settings.swipe_symbol,
            decimals: settings.decimal.min(wayfare_engine::money::MAX_DECIMALS),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dollars() -> Currency {
        Currency { code: "USD".into(), symbol: "$".into(), symbol_after: false, decimals: 2 }
    }

    #[test]
    fn numbers_group_thousands_and_keep_their_sign() {
        assert_eq!(number(1_234_567.891, 2), "1,234,567.89");
        assert_eq!(number(-1234.0, 0), "-1,234");
        assert_eq!(number(-0.001, 1), "0.0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1000), "1,000");
    }

    #[test]
    fn a_percentage_short_of_100_never_reads_100() {
        assert_eq!(percent(100.0 * 2_499.0 / 2_500.0), "99.96 %");
        assert_eq!(percent(100.0 * 99_998.0 / 100_000.0), "99.998 %");
        assert_eq!(percent(99.999_99), ">99.9999 %");
        assert_eq!(percent(100.0), "100.0 %");
        assert_eq!(percent(93.0), "93.0 %");
        assert_eq!(percent(90.74), "90.7 %");
    }

    #[test]
    fn a_percentage_above_0_never_reads_0() {
        assert_eq!(percent(100.0 / 2_500.0), "0.04 %");
        assert_eq!(percent(0.000_01), "<0.0001 %");
        assert_eq!(percent(0.0), "0.0 %");
        assert_eq!(metric(1.0 / 2_500.0, Unit::Share, &dollars()), "0.04 %");
    }

    #[test]
    fn money_carries_its_currency_where_the_settings_put_it() {
        assert_eq!(money(878.684, &dollars()), "$878.68");
        assert_eq!(money(-5.0, &dollars()), "-$5.00");
        assert_eq!(money(-0.001, &dollars()), "$0.00");
        let euros = Currency { code: "EUR".into(), symbol: "€".into(), symbol_after: true, decimals: 2 };
        assert_eq!(money(1_234.5, &euros), "1,234.50 €");
        let yen = Currency { code: "JPY".into(), symbol: "¥".into(), symbol_after: false, decimals: 0 };
        assert_eq!(metric(1_234.5, Unit::Money, &yen), "¥1,235");
    }

    #[test]
    fn durations_read_as_clocks_with_their_seconds() {
        assert_eq!(minutes_seconds(245.4), "4:05");
        assert_eq!(minutes_seconds(3_725.0), "62:05");
        assert_eq!(hours_minutes_seconds(63_000.0), "17:30:00");
        assert_eq!(metric(72.92, Unit::Wait, &dollars()), "1:13 (73 s)");
        assert_eq!(range(72.2, 73.6, Unit::Wait, &dollars()), "1:12–1:14 (72–74 s)");
    }

    #[test]
    fn ranges_of_counts_keep_a_decimal() {
        assert_eq!(range(2_498.6, 2_500.0, Unit::Count, &dollars()), "2,498.6–2,500.0");
        assert_eq!(range(0.904, 0.911, Unit::Share, &dollars()), "90.4 %–91.1 %");
    }

    #[test]
    fn lists_read_as_a_sentence() {
        let names = |names: &[&str]| names.iter().map(|name| name.to_string()).collect::<Vec<_>>();
        assert_eq!(and_list(&names(&["waves"])), "waves");
        assert_eq!(and_list(&names(&["waves", "nearest"])), "waves and nearest");
        assert_eq!(and_list(&names(&["broadcast", "waves", "nearest"])), "broadcast, waves and nearest");
    }
}
