use super::*;
use crate::i18n::Localizer;
use crate::messages::bundled_languages;
use rust_decimal_macros::dec;
use std::collections::HashMap;
use wayfare_engine::receipt::{LineKind, PaidWith, ReceiptLine, ReceiptPayment, ReceiptTax};
use wayfare_engine::{AppCategory, BookingId, BookingStatus};

fn localizer(locale: &str) -> Localizer {
    crate::i18n::LanguageSet::new(&bundled_languages(0)).localizer([locale])
}

fn receipt(pickup: &str, drop: &str) -> wayfare_engine::receipt::Receipt {
    let settings = wayfare_engine::Settings {
        CompanyName: "Wayfare Cabs".into(),
        CompanyAddress: "1 Harbor St".into(),
        taxNumber: "VAT-1".into(),
        ..Default::default()
    };
    wayfare_engine::receipt::Receipt {
        number: "ABCDEF".into(),
        booking: BookingId::from_u128(1),
        status: BookingStatus::Paid,
        appcat: AppCategory::Taxi,
        date: 1_700_000_000_000,
        trip_date: 1_700_000_000_000,
        rider_name: "Rider One".into(),
        rider_email: "rider@example.com".into(),
        driver_name: "Dana <Driver>".into(),
        vehicle_number: "MD 123".into(),
        car_type: "Economy".into(),
        pickup_address: pickup.into(),
        drop_address: drop.into(),
        ended_at_address: None,
        distance: 8.2,
        distance_unit: "km".into(),
        trip_seconds: 960,
        lines: vec![
            ReceiptLine { kind: LineKind::Fare, detail: None, amount: dec!(17) },
            ReceiptLine { kind: LineKind::ConvenienceFee, detail: None, amount: dec!(1.5) },
        ],
        total: dec!(18.5),
        tax: Some(ReceiptTax { name: "VAT".into(), rate: dec!(20), amount: dec!(3.08), included: true }),
        payments: vec![ReceiptPayment { method: PaidWith::Card, gateway: Some("stripe".into()), amount: dec!(18.5) }],
        owed: dec!(0),
        refunded: dec!(0),
        company: wayfare_engine::receipt::CompanyDetails::of(&settings),
        money: wayfare_engine::money::MoneyFormat::of(&settings),
    }
}

/// Reads a PDF's cross-reference table and checks every offset points at
/// its object; returns the objects' texts by number.
fn objects(pdf: &[u8]) -> HashMap<usize, String> {
    assert!(pdf.starts_with(b"%PDF-1."), "header");
    // One char per byte, so offsets in the text are offsets in the file.
    let text: String = pdf.iter().map(|byte| if byte.is_ascii() { char::from(*byte) } else { '.' }).collect();
    assert!(text.trim_end().ends_with("%%EOF"), "trailer");
    let startxref = text.rfind("startxref").expect("startxref");
    let xref_at: usize = text[startxref + 9..].split_whitespace().next().unwrap().parse().unwrap();
    assert!(text[xref_at..].starts_with("xref"), "startxref points at the table");
    let mut lines = text[xref_at..].lines().skip(1);
    let header: Vec<usize> = lines.next().unwrap().split_whitespace().map(|n| n.parse().unwrap()).collect();
    let (first, count) = (header[0], header[1]);
    let mut found = HashMap::new();
    for number in first..first + count {
        let entry = lines.next().unwrap();
        if !entry.ends_with("n") && !entry.trim_end().ends_with('n') {
            continue;
        }
        let offset: usize = entry[..10].parse().unwrap();
        let expected = format!("{number} 0 obj");
        assert!(text[offset..].starts_with(&expected), "object {number} at {offset}");
        let end = text[offset..].find("endobj").map(|end| offset + end).unwrap();
        found.insert(number, text[offset..end].to_string());
    }
    found
}

fn check_pdf(pdf: &[u8]) -> Vec<String> {
    let objects = objects(pdf);
    let fonts: Vec<String> = objects
        .values()
        .filter(|object| object.contains("/Subtype /CIDFontType2"))
        .map(|object| {
            let start = object.find("/BaseFont /").unwrap() + 11;
            object[start..].split(['/', ' ', '\n', '>']).next().unwrap().to_string()
        })
        .collect();
    assert!(!fonts.is_empty(), "a CID font");
    let embedded = objects.values().filter(|object| object.contains("/FontFile2")).count();
    assert_eq!(embedded, fonts.len(), "every font embedded");
    let to_unicode =
        objects.values().filter(|object| object.contains("/Type0") && object.contains("/ToUnicode")).count();
    assert_eq!(to_unicode, fonts.len(), "every font maps to text");
    assert!(objects.values().any(|object| object.contains("/Type /Page") && object.contains("/MediaBox")));
    fonts
}

#[test]
fn an_english_receipt_pdf_is_well_formed_with_one_subset_latin_font_pair() {
    let doc = content::receipt_doc(&receipt("1 Light St, Baltimore", "Fort McHenry"), &localizer("en"), 0);
    assert!(!doc.rtl);
    let pdf = pdf::render(&doc);
    let mut fonts = check_pdf(&pdf);
    fonts.sort();
    assert_eq!(fonts, ["WFBOLD+NotoSans-Bold", "WFREGA+NotoSans-Regular"]);
    // Subset: far smaller than the two fonts (about 1 MB).
    assert!(pdf.len() < 60_000, "{} bytes", pdf.len());
}

#[test]
fn an_arabic_receipt_is_right_to_left_and_embeds_the_arabic_font() {
    let doc = content::receipt_doc(&receipt("شارع التحرير 12، القاهرة", "Fort McHenry"), &localizer("ar"), 0);
    assert!(doc.rtl);
    assert_eq!(doc.locale, "ar");
    let fonts = check_pdf(&pdf::render(&doc));
    assert!(fonts.iter().any(|font| font.ends_with("NotoSansArabic-Regular")), "{fonts:?}");
    let page = html::render(&doc);
    assert!(page.contains("dir=\"rtl\""));
    assert!(page.contains("lang=\"ar\""));
}

#[test]
fn an_arabic_address_is_shaped_with_joined_forms() {
    // "شارع": in isolation each letter has its own glyph; joined, the
    // shaper picks initial, medial and final forms, unlike the isolated ones.
    let joined = pdf::tests_support::glyphs("شارع");
    let isolated: Vec<u16> = "شارع".chars().flat_map(|c| pdf::tests_support::glyphs(&c.to_string())).collect();
    assert_eq!(joined.len(), 4);
    assert_ne!(joined.iter().rev().copied().collect::<Vec<_>>(), isolated);
}

#[test]
fn the_html_escapes_every_text_and_shows_the_tax_and_company() {
    let doc = content::receipt_doc(&receipt("<script>", "Fort McHenry"), &localizer("en"), 0);
    let page = html::render(&doc);
    assert!(page.contains("&lt;script&gt;"));
    assert!(!page.contains("<script>"));
    assert!(page.contains("Dana &lt;Driver&gt;"));
    assert!(page.contains("Of which VAT 20%"), "{page}");
    assert!(page.contains("$3.08"));
    assert!(page.contains("Wayfare Cabs"));
    assert!(page.contains("VAT-1"));
    assert!(page.contains("Card (stripe)"));
}

#[test]
fn rtl_locales_are_known() {
    assert!(is_rtl("ar") && is_rtl("ar-EG") && is_rtl("he"));
    assert!(!is_rtl("en") && !is_rtl("fr"));
}

#[test]
fn every_text_of_a_document_is_in_every_shipped_language() {
    for language in bundled_languages(0) {
        let messages = crate::messages::bundled(&language.langLocale).unwrap();
        for key in content::TEXT_KEYS {
            assert!(messages.get(key).is_some(), "{} has no text for {key}", language.langLocale);
        }
    }
}
