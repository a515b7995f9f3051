//! Search: the stored search text of bookings and users, the query syntax
//! (every word the start of some word of the text), its forms for each text
//! index (FTS5 on SQLite, `tsquery` on PostgreSQL, `LIKE` for a scan) and the
//! plans a search page can take.

use wayfare_engine::{Booking, User};

/// At most this many words of a search are used; more only slow the query.
const MAX_SEARCH_WORDS: usize = 8;

/// The words of a text as search sees them: runs of letters and digits,
/// lowercased. Everything else separates words.
pub(crate) fn search_words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|character: char| !character.is_alphanumeric()).filter(|word| !word.is_empty()).map(str::to_lowercase)
}

/// The stored search text: the words of every part, separated by single
/// spaces. Both the full-text indexes and the scan fallback read this, so
/// they agree on what a word is.
pub(crate) fn search_document<'a>(parts: impl IntoIterator<Item = &'a str>) -> String {
    let mut document = String::new();
    for part in parts {
        for word in search_words(part) {
            if !document.is_empty() {
                document.push(' ');
            }
            document.push_str(&word);
        }
    }
    document
}

/// What a booking is found by: reference, customer and driver names, pickup
/// and drop addresses.
pub(crate) fn booking_search_text(booking: &Booking) -> String {
    search_document([
        booking.reference.as_str(),
        booking.customer_name.as_str(),
        booking.driver_name.as_str(),
        booking.pickupAddress.as_str(),
        booking.dropAddress.as_str(),
    ])
}

/// What a user is found by: names, e-mail, mobile (also as one run of digits,
/// so "4105550101" finds "+1 410-555-0101").
pub(crate) fn user_search_text(user: &User) -> String {
    let mobile_digits: String = user.mobile.chars().filter(char::is_ascii_digit).collect();
    search_document([
        user.firstName.as_str(),
        user.lastName.as_str(),
        user.email.as_str(),
        user.mobile.as_str(),
        mobile_digits.as_str(),
    ])
}

/// A parsed search: every word must be the start of some word of the
/// record's search text (case-insensitive, in any order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SearchQuery {
    pub words: Vec<String>,
}

impl SearchQuery {
    /// `None` for a search with no words, which filters nothing.
    pub fn parse(text: &str) -> Option<SearchQuery> {
        let words: Vec<String> = search_words(text).take(MAX_SEARCH_WORDS).collect();
        if words.is_empty() { None } else { Some(SearchQuery { words }) }
    }

    /// SQLite FTS5, exactly this search: `"smi"* AND "baltimore"*`. Words
    /// hold only letters and digits, so the quoting cannot be escaped.
    pub fn fts5(&self) -> String {
        self.fts5_with(|word| format!("\"{word}\"*"))
    }

    /// An FTS5 query matching a subset of this search, cheap to count: short
    /// words as prefixes (served by the prefix indexes), longer ones as whole
    /// words. A prefix query on a longer word merges the lists of every word
    /// it starts before returning anything, which is slow for common words.
    pub fn fts5_subset(&self) -> String {
        self.fts5_with(|word| {
            if word.chars().count() <= FTS5_PREFIX_INDEX_CHARS { format!("\"{word}\"*") } else { format!("\"{word}\"") }
        })
    }

    /// FTS5 for some of the words, each as a prefix.
    pub fn fts5_of<'a>(words: impl IntoIterator<Item = &'a String>) -> String {
        words.into_iter().map(|word| format!("\"{word}\"*")).collect::<Vec<_>>().join(" AND ")
    }

    fn fts5_with(&self, term: impl Fn(&str) -> String) -> String {
        self.words.iter().map(|word| term(word)).collect::<Vec<_>>().join(" AND ")
    }

    /// PostgreSQL `to_tsquery('simple', …)`: `smi:* & bal:*`.
    pub fn tsquery(&self) -> String {
        self.words.iter().map(|word| format!("{word}:*")).collect::<Vec<_>>().join(" & ")
    }

    /// `LIKE` patterns over `' ' || search_text`, one per word: a word start.
    pub fn like_patterns(&self) -> impl Iterator<Item = String> + '_ {
        self.words.iter().map(|word| format!("% {word}%"))
    }
}

/// The longest prefix the FTS5 tables keep an index for (`prefix = '1 2 3'`).
const FTS5_PREFIX_INDEX_CHARS: usize = 3;

/// A word the FTS5 prefix indexes serve directly.
pub(crate) fn is_short_word(word: &str) -> bool {
    word.chars().count() <= FTS5_PREFIX_INDEX_CHARS
}

/// The end of the range of words that start with `word` (exclusive): no
/// word continues with a character above U+10FFFF, and UTF-8 sorts as code
/// points do.
pub(crate) fn prefix_range_end(word: &str) -> String {
    format!("{word}\u{10FFFF}")
}

/// The tables that have a search text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SearchTable {
    /// Aliased `b` in queries.
    Bookings,
    /// Aliased `u` in queries.
    Users,
}

impl SearchTable {
    /// The table with its alias.
    pub fn from(self) -> &'static str {
        match self {
            SearchTable::Bookings => "bookings b",
            SearchTable::Users => "users u",
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            SearchTable::Bookings => "b.id",
            SearchTable::Users => "u.id",
        }
    }

    pub fn search_text(self) -> &'static str {
        match self {
            SearchTable::Bookings => "b.search_text",
            SearchTable::Users => "u.search_text",
        }
    }
}

/// How one page of a search is found, on a backend whose planner cannot
/// estimate text matches (SQLite; PostgreSQL's planner chooses for itself
/// and always gets `Index`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SearchPlan {
    /// Few matches: read the matches of `text` (the rare words) from the text
    /// index, then sort them; `verify` re-tests every word, when `text` does
    /// not hold them all.
    Index { text: String, verify: bool },
    /// Many matches: walk the sort order and test each row's words.
    Scan,
    /// Every word is common but together they may not be: walk at most
    /// [`SEARCH_SCAN_CAP`] rows of the sort order, and if that does not fill
    /// the page, use the text index.
    ScanThenIndex,
}

/// Below this many matches the index plan wins; at or above it, a walk of the
/// sort order fills a page within a few thousand rows.
pub(crate) const SEARCH_INDEX_LIMIT: i64 = 3_000;
/// Rows an uncertain search walks before it turns to the text index.
pub(crate) const SEARCH_SCAN_CAP: i64 = 5_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_text_is_lowercase_words_separated_by_single_spaces() {
        assert_eq!(
            search_document(["ABCDEF", "  O'Brien, Jr.", "1600 N. Charles St"]),
            "abcdef o brien jr 1600 n charles st"
        );
    }

    #[test]
    fn a_search_becomes_word_prefixes_for_each_backend() {
        let query = SearchQuery::parse("  Smi, baltimore! ").unwrap();
        assert_eq!(query.fts5(), "\"smi\"* AND \"baltimore\"*");
        assert_eq!(query.fts5_subset(), "\"smi\"* AND \"baltimore\"");
        assert_eq!(SearchQuery::fts5_of(&query.words[1..]), "\"baltimore\"*");
        assert!(prefix_range_end("smi").as_str() > "smith" && prefix_range_end("smi").as_str() < "smj");
        assert_eq!(query.tsquery(), "smi:* & baltimore:*");
        assert_eq!(query.like_patterns().collect::<Vec<_>>(), ["% smi%", "% baltimore%"]);
        assert_eq!(SearchQuery::parse(" ,.; "), None);
    }
}
