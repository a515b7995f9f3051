//! The neutral description of a printable document that both renderers read.

/// Languages written right to left (the layout mirrors for them).
const RTL_LANGUAGES: [&str; 5] = ["ar", "he", "fa", "ur", "yi"];

/// True when a locale such as `ar` or `ar-EG` is written right to left.
pub fn is_rtl(locale: &str) -> bool {
    let primary = locale.split(['-', '_']).next().unwrap_or_default().to_ascii_lowercase();
    RTL_LANGUAGES.contains(&primary.as_str())
}

/// A document, every text final.
#[derive(Debug, Clone, PartialEq)]
pub struct Doc {
    pub title: String,
    /// The locale of the texts, for `lang` in HTML.
    pub locale: String,
    pub rtl: bool,
    pub blocks: Vec<Block>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Heading(String),
    Text(String),
    /// Fine print: the operator's details, the tax note.
    Small(String),
    /// Label and value, one pair a line.
    Pairs(Vec<(String, String)>),
    /// Amount lines (label, amount) and the total under a rule.
    Amounts {
        rows: Vec<(String, String)>,
        total: Option<(String, String)>,
    },
    Table {
        columns: Vec<Column>,
        rows: Vec<Vec<String>>,
        footer: Vec<Vec<String>>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub title: String,
    /// Right-aligned (left in a right-to-left document).
    pub numeric: bool,
}

/// The formats a document route answers in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DocFormat {
    #[default]
    Html,
    Pdf,
}
