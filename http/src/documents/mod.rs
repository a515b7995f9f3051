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
mod doc;
pub mod html;
pub mod mail;
pub mod pdf;

pub use doc::*;

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
