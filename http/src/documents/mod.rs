//! Printable documents (issue #37): a rider's receipt and a driver's weekly
//! statement, in the reader's language, as an HTML page (also the e-mail's
//! body) and as a PDF.
//!
//! The engine decides what a receipt or statement says
//! (`wayfare_engine::receipt`); [`content`] turns that into a [`Doc`], a
//! small neutral description (a title, headings, label/value pairs, amount
//! lines, tables) with every text already translated and every amount
//! formatted; [`html`] and [`pdf`] each render a [`Doc`], so the two formats
//! never disagree. [`mail`] sends a paid booking's receipt once.

pub mod content;
pub mod html;
pub mod mail;
pub mod pdf;

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

/// The HTTP answer of a document: the page, or the PDF as a download named
/// `file_stem.pdf`.
pub fn respond(doc: &Doc, format: DocFormat, file_stem: &str) -> axum::response::Response {
    use axum::http::header;
    use axum::response::IntoResponse;
    let file_stem: String = file_stem
        .chars()
        .map(|character| if character.is_ascii_alphanumeric() || character == '-' { character } else { '_' })
        .collect();
    match format {
        DocFormat::Html => (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8"), (header::CACHE_CONTROL, "private, no-store")],
            html::render(doc),
        )
            .into_response(),
        DocFormat::Pdf => (
            [
                (header::CONTENT_TYPE, "application/pdf".to_string()),
                (header::CONTENT_DISPOSITION, format!("attachment; filename=\"{file_stem}.pdf\"")),
                (header::CACHE_CONTROL, "private, no-store".to_string()),
            ],
            pdf::render(doc),
        )
            .into_response(),
    }
}

#[cfg(test)]
mod tests;
