//! A [`Doc`] as one self-contained HTML page: inline styles only (e-mail
//! readers drop style sheets and block remote files), printable on A4,
//! `dir="rtl"` for right-to-left languages. Every text is escaped.

use super::doc::{Block, Doc};
use std::fmt::Write;

pub fn escape(text: &str) -> String {
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

const CELL: &str = "padding:4px 6px;border-bottom:1px solid #e3e3e3;vertical-align:top";

pub fn render(doc: &Doc) -> String {
    let dir = if doc.rtl { "rtl" } else { "ltr" };
    let (start, end) = if doc.rtl { ("right", "left") } else { ("left", "right") };
    let mut page = String::new();
    let _ = write!(
        page,
        "<!DOCTYPE html><html lang=\"{lang}\" dir=\"{dir}\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{title}</title>\
         <style>@page{{size:A4;margin:16mm}}@media print{{body{{margin:0}}}}</style></head>\
         <body style=\"margin:0;padding:24px;background:#f5f5f5;font-family:'Noto Sans','Noto Sans Arabic',Arial,sans-serif;color:#1d1d1d\">\
         <div style=\"max-width:720px;margin:0 auto;background:#fff;padding:28px;text-align:{start}\">\
         <h1 style=\"font-size:22px;margin:0 0 12px\">{title}</h1>",
        lang = escape(&doc.locale),
        title = escape(&doc.title),
    );
    for block in &doc.blocks {
        match block {
            Block::Heading(text) => {
                let _ = write!(
                    page,
                    "<h2 style=\"font-size:15px;margin:20px 0 6px;padding-bottom:4px;border-bottom:1px solid #999\">{}</h2>",
                    escape(text)
                );
            }
            Block::Text(text) => {
                let _ = write!(page, "<p style=\"margin:4px 0\">{}</p>", escape(text));
            }
            Block::Small(text) => {
                let _ = write!(page, "<p style=\"margin:4px 0;font-size:12px;color:#555\">{}</p>", escape(text));
            }
            Block::Pairs(pairs) => {
                page.push_str("<table style=\"border-collapse:collapse;width:100%\">");
                for (label, value) in pairs {
                    let _ = write!(
                        page,
                        "<tr><th style=\"{CELL};text-align:{start};width:34%;font-weight:600\">{}</th><td style=\"{CELL}\"><bdi>{}</bdi></td></tr>",
                        escape(label),
                        escape(value)
                    );
                }
                page.push_str("</table>");
            }
            Block::Amounts { rows, total } => {
                page.push_str("<table style=\"border-collapse:collapse;width:100%\">");
                for (label, amount) in rows {
                    let _ = write!(
                        page,
                        "<tr><td style=\"{CELL}\">{}</td><td style=\"{CELL};text-align:{end};white-space:nowrap\"><bdi>{}</bdi></td></tr>",
                        escape(label),
                        escape(amount)
                    );
                }
                if let Some((label, amount)) = total {
                    let _ = write!(
                        page,
                        "<tr><th style=\"{CELL};text-align:{start};font-size:16px;border-top:2px solid #333\">{}</th><th style=\"{CELL};text-align:{end};font-size:16px;border-top:2px solid #333;white-space:nowrap\"><bdi>{}</bdi></th></tr>",
                        escape(label),
                        escape(amount)
                    );
                }
                page.push_str("</table>");
            }
            Block::Table { columns, rows, footer } => {
                page.push_str("<table style=\"border-collapse:collapse;width:100%;font-size:13px\"><thead><tr>");
                let align = |index: usize| if columns[index].numeric { end } else { start };
                for (index, column) in columns.iter().enumerate() {
                    let _ =
                        write!(page, "<th style=\"{CELL};text-align:{}\">{}</th>", align(index), escape(&column.title));
                }
                page.push_str("</tr></thead><tbody>");
                for (cells, tag) in rows.iter().map(|row| (row, "td")).chain(footer.iter().map(|row| (row, "th"))) {
                    page.push_str("<tr>");
                    for (index, cell) in cells.iter().enumerate().take(columns.len()) {
                        let _ = write!(
                            page,
                            "<{tag} style=\"{CELL};text-align:{}\"><bdi>{}</bdi></{tag}>",
                            align(index),
                            escape(cell)
                        );
                    }
                    page.push_str("</tr>");
                }
                page.push_str("</tbody></table>");
            }
        }
    }
    page.push_str("</div></body></html>");
    page
}
