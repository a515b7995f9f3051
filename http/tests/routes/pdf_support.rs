//! The text of the PDFs the server writes (`http/src/documents/pdf.rs`), as
//! a reader's "copy text" gets it: each page's content stream inflated, each
//! glyph it shows (`Tj`) turned back into text through its font's ToUnicode
//! map, one line per text object (`BT … ET`).

use std::collections::HashMap;

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}

/// The numbers following each `key` in `text`, e.g. `/Contents 12 0 R` → 12.
fn references(text: &[u8], key: &str) -> Vec<usize> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = find(rest, key.as_bytes()) {
        rest = &rest[at + key.len()..];
        let digits: String = rest
            .iter()
            .skip_while(|byte| **byte == b' ')
            .take_while(|byte| byte.is_ascii_digit())
            .map(|b| *b as char)
            .collect();
        if let Ok(number) = digits.parse() {
            found.push(number);
        }
    }
    found
}

/// Object `number`, from `N 0 obj` to `endobj`.
fn object(pdf: &[u8], number: usize) -> &[u8] {
    let header = format!("{number} 0 obj");
    let mut from = 0;
    loop {
        let at = from + find(&pdf[from..], header.as_bytes()).unwrap_or_else(|| panic!("no object {number}"));
        // Not the tail of a longer number (`12 0 obj` inside `112 0 obj`).
        if at == 0 || !pdf[at - 1].is_ascii_digit() {
            let end = at + find(&pdf[at..], b"endobj").expect("endobj");
            return &pdf[at..end];
        }
        from = at + 1;
    }
}

/// The bytes of an object's stream, `/Length` long.
fn stream(object: &[u8]) -> &[u8] {
    let length = references(object, "/Length")[0];
    let start = find(object, b"stream").expect("a stream") + b"stream".len();
    let start = start + if object[start] == b'\r' { 2 } else { 1 };
    &object[start..start + length]
}

/// A ToUnicode map: glyph → text (`<gggg> <uuuu…>` pairs, UTF-16BE).
fn to_unicode(cmap: &[u8]) -> HashMap<u16, String> {
    let text = String::from_utf8_lossy(cmap);
    let mut map = HashMap::new();
    for line in text.lines() {
        let parts: Vec<&str> = line.split(['<', '>']).filter(|part| !part.trim().is_empty()).collect();
        let [glyph, unicode] = parts[..] else { continue };
        let (Ok(glyph), true) = (u16::from_str_radix(glyph, 16), unicode.len() % 4 == 0) else { continue };
        let units: Vec<u16> =
            (0..unicode.len()).step_by(4).filter_map(|at| u16::from_str_radix(&unicode[at..at + 4], 16).ok()).collect();
        map.insert(glyph, String::from_utf16_lossy(&units));
    }
    map
}

enum Token {
    Name(String),
    Bytes(Vec<u8>),
    Word(String),
}

fn tokens(content: &[u8]) -> Vec<Token> {
    let mut found = Vec::new();
    let mut at = 0;
    let delimiter = |byte: u8| byte.is_ascii_whitespace() || b"()<>[]/".contains(&byte);
    while at < content.len() {
        match content[at] {
            byte if byte.is_ascii_whitespace() => at += 1,
            b'(' => {
                let (mut bytes, mut depth) = (Vec::new(), 1);
                at += 1;
                while depth > 0 {
                    let byte = content[at];
                    at += 1;
                    match byte {
                        b'\\' => {
                            let escaped = content[at];
                            at += 1;
                            match escaped {
                                b'n' => bytes.push(b'\n'),
                                b'r' => bytes.push(b'\r'),
                                b't' => bytes.push(b'\t'),
                                b'b' => bytes.push(0x08),
                                b'f' => bytes.push(0x0c),
                                b'0'..=b'7' => {
                                    let mut value = u32::from(escaped - b'0');
                                    for _ in 0..2 {
                                        if content[at].is_ascii_digit() && content[at] < b'8' {
                                            value = value * 8 + u32::from(content[at] - b'0');
                                            at += 1;
                                        }
                                    }
                                    bytes.push(value as u8);
                                }
                                other => bytes.push(other),
                            }
                        }
                        b'(' => {
                            depth += 1;
                            bytes.push(byte);
                        }
                        b')' => {
                            depth -= 1;
                            if depth > 0 {
                                bytes.push(byte);
                            }
                        }
                        other => bytes.push(other),
                    }
                }
                found.push(Token::Bytes(bytes));
            }
            b'<' => {
                let end = at + find(&content[at..], b">").expect("the end of a hex string");
                let hex: String = content[at + 1..end]
                    .iter()
                    .filter(|byte| !byte.is_ascii_whitespace())
                    .map(|b| *b as char)
                    .collect();
                let bytes =
                    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
                found.push(Token::Bytes(bytes));
                at = end + 1;
            }
            b'/' => {
                let end = (at + 1..content.len()).find(|&i| delimiter(content[i])).unwrap_or(content.len());
                found.push(Token::Name(String::from_utf8_lossy(&content[at + 1..end]).into_owned()));
                at = end;
            }
            _ => {
                let end = (at + 1..content.len()).find(|&i| delimiter(content[i])).unwrap_or(content.len());
                found.push(Token::Word(String::from_utf8_lossy(&content[at..end]).into_owned()));
                at = end.max(at + 1);
            }
        }
    }
    found
}

/// The document's text, a line per text object.
pub fn pdf_text(pdf: &[u8]) -> String {
    assert!(pdf.starts_with(b"%PDF-1."), "a PDF");
    let mut text = String::new();
    for page in references(pdf, "/Contents") {
        let page_object = {
            // The page that names this content stream, for its fonts.
            let key = format!("/Contents {page} 0 R");
            let at = find(pdf, key.as_bytes()).unwrap();
            let start = pdf[..at].windows(3).rposition(|window| window == b"obj").unwrap();
            let end = at + find(&pdf[at..], b"endobj").unwrap();
            &pdf[start..end]
        };
        let mut fonts: HashMap<String, HashMap<u16, String>> = HashMap::new();
        for index in 0..4 {
            let Some(&font) = references(page_object, &format!("/F{index}")).first() else { continue };
            let cmap = references(object(pdf, font), "/ToUnicode")[0];
            fonts.insert(format!("F{index}"), to_unicode(stream(object(pdf, cmap))));
        }
        let content = miniz_oxide::inflate::decompress_to_vec_zlib(stream(object(pdf, page))).expect("a Flate stream");
        let mut font = String::new();
        let mut last_name = String::new();
        let mut last_bytes = Vec::new();
        for token in tokens(&content) {
            match token {
                Token::Name(name) => last_name = name,
                Token::Bytes(bytes) => last_bytes = bytes,
                Token::Word(word) => match word.as_str() {
                    "Tf" => font = last_name.clone(),
                    "Tj" => {
                        let map = &fonts[&font];
                        for pair in last_bytes.chunks(2) {
                            let glyph = u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]);
                            text.push_str(map.get(&glyph).map_or("", String::as_str));
                        }
                    }
                    "ET" => text.push('\n'),
                    _ => {}
                },
            }
        }
    }
    text
}
