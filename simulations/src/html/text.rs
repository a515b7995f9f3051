//! The report's small pieces of text: escaping, code spans, run colours
//! and swatches, seconds, and SVG numbers.

use crate::format::number;
use std::fmt::{self, Write};

/// One colour per run, in the order of `Report::runs`, the same in every
/// plot and the table (Tableau 10: distinct, readable on white). Past ten
/// runs they repeat; the legends still name every run.
pub(super) const RUN_COLOURS: [&str; 10] =
    ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#9c755f", "#ff9da7", "#76b7b2", "#edc948", "#bab0ac"];

/// Text made safe for HTML, with `backticked` words set as code.
pub(super) fn with_code(text: &str) -> String {
    let mut html = String::with_capacity(text.len() + 16);
    for (index, part) in escape(text).split('`').enumerate() {
        if index % 2 == 1 {
            put!(html, "<code>{part}</code>");
        } else {
            html.push_str(part);
        }
    }
    html
}

/// A metric name that may wrap where a reader would break it (at a capital
/// or after an underscore) rather than anywhere in a narrow column.
pub(super) fn breakable(name: &str) -> String {
    let mut wrapped = String::with_capacity(name.len() + 16);
    for (index, character) in name.char_indices() {
        if index > 0 && character.is_ascii_uppercase() {
            wrapped.push_str("<wbr>");
        }
        wrapped.push(character);
        if character == '_' {
            wrapped.push_str("<wbr>");
        }
    }
    wrapped
}

pub(super) fn run_colour(index: usize) -> &'static str {
    RUN_COLOURS[index % RUN_COLOURS.len()]
}

pub(super) fn swatch(index: usize) -> String {
    format!("<span class=\"swatch\" style=\"background:{}\"></span>", run_colour(index))
}

/// Text from the report made safe inside HTML elements and quoted attributes.
pub(super) fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            other => escaped.push(other),
        }
    }
    escaped
}

/// A clock-style duration followed by its seconds, which are what
/// `report.json` holds.
pub(super) fn with_seconds(clock: String, seconds: f64) -> String {
    format!("{clock} <span class=\"unit\">({} s)</span>", number(seconds, 0))
}

pub(super) fn wall_seconds(seconds: f64) -> String {
    if !seconds.is_finite() {
        return "—".to_string();
    }
    format!("{} s", number(seconds, if seconds < 10.0 { 2 } else { 1 }))
}

/// An SVG coordinate to one decimal without a trailing `.0`: precise enough
/// on any screen, and it keeps thousands of cells small.
pub(super) struct U(pub(super) f64);

impl U {
    pub(super) fn percent(self) -> String {
        format!("{self}%")
    }
}

impl fmt::Display for U {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tenths = if self.0.is_finite() { (self.0 * 10.0).round() as i64 } else { 0 };
        let sign = if tenths < 0 { "-" } else { "" };
        let (whole, tenth) = (tenths.abs() / 10, tenths.abs() % 10);
        if tenth == 0 { write!(formatter, "{sign}{whole}") } else { write!(formatter, "{sign}{whole}.{tenth}") }
    }
}
