//! A [`Doc`] as a PDF, written with pure-Rust crates and fonts built into
//! the binary (nothing is read from the system):
//!
//! - each line of text is split into bidi runs in visual order
//!   (`unicode-bidi`), each run into pieces by the font that has their
//!   glyphs (Noto Sans Arabic for Arabic, else Noto Sans), and each piece is
//!   shaped by `rustybuzz` (Arabic joining, ligatures, marks);
//! - the fonts go in as CID-keyed TrueType (Type0 / CIDFontType2,
//!   Identity-H) subset by `subsetter` to the glyphs used, with a ToUnicode
//!   map so the text can be searched and copied;
//! - pages are A4; a right-to-left document mirrors its layout.

use super::doc::{Block, Doc};
use pdf_writer::types::{CidFontType, FontFlags, SystemInfo};
use pdf_writer::{Content, Filter, Finish, Name, Pdf, Rect, Ref, Str};
use rustybuzz::{Direction, Face, UnicodeBuffer};
use std::collections::BTreeMap;
use std::sync::OnceLock;
use unicode_bidi::{BidiInfo, Level};

const PAGE_WIDTH: f32 = 595.0;
const PAGE_HEIGHT: f32 = 842.0;
const MARGIN: f32 = 48.0;
const BODY_SIZE: f32 = 10.0;
const LINE_GAP: f32 = 1.45;

/// The fonts, in the order of [`FontId`].
static FONT_DATA: [&[u8]; 4] = [
    include_bytes!("../../assets/fonts/NotoSans-Regular.ttf"),
    include_bytes!("../../assets/fonts/NotoSans-Bold.ttf"),
    include_bytes!("../../assets/fonts/NotoSansArabic-Regular.ttf"),
    include_bytes!("../../assets/fonts/NotoSansArabic-Bold.ttf"),
];
const FONT_NAMES: [&str; 4] = ["NotoSans-Regular", "NotoSans-Bold", "NotoSansArabic-Regular", "NotoSansArabic-Bold"];

fn faces() -> &'static [Face<'static>; 4] {
    static FACES: OnceLock<[Face<'static>; 4]> = OnceLock::new();
    FACES.get_or_init(|| FONT_DATA.map(|data| Face::from_slice(data, 0).expect("the built-in fonts parse")))
}

/// An index into [`FONT_DATA`].
type FontId = usize;

fn font_for(character: char, bold: bool, prefer_arabic: bool) -> FontId {
    let faces = faces();
    let (latin, arabic) = if bold { (1, 3) } else { (0, 2) };
    let has = |font: FontId| faces[font].glyph_index(character).is_some();
    if is_arabic(character) || (prefer_arabic && has(arabic)) {
        if has(arabic) { arabic } else { latin }
    } else if has(latin) || !has(arabic) {
        latin
    } else {
        arabic
    }
}

fn is_arabic(character: char) -> bool {
    matches!(character as u32, 0x0600..=0x06FF | 0x0750..=0x077F | 0x08A0..=0x08FF | 0xFB50..=0xFDFF | 0xFE70..=0xFEFF)
}

/// A glyph placed on a line, in points from the line's start.
#[derive(Debug, Clone)]
struct PlacedGlyph {
    font: FontId,
    glyph: u16,
    x: f32,
    y: f32,
    /// The text the glyph stands for (empty for the 2nd+ glyph of a cluster).
    text: String,
}

/// A line of text shaped in visual order.
#[derive(Debug, Clone, Default)]
struct ShapedLine {
    glyphs: Vec<PlacedGlyph>,
    width: f32,
}

/// Shapes one line: bidi runs in visual order, each split by font, each
/// piece shaped. `rtl` is the paragraph's base direction; `None` takes it
/// from the first strong character (a value such as an address or a name,
/// as `<bdi>` does in the page).
fn shape_line(text: &str, size: f32, bold: bool, rtl: Option<bool>) -> ShapedLine {
    let mut line = ShapedLine::default();
    if text.is_empty() {
        return line;
    }
    let base = rtl.map(|rtl| if rtl { Level::rtl() } else { Level::ltr() });
    let bidi = BidiInfo::new(text, base);
    for paragraph in &bidi.paragraphs {
        let (levels, runs) = bidi.visual_runs(paragraph, paragraph.range.clone());
        for run in runs {
            let run_rtl = levels[run.start].is_rtl();
            let mut pieces: Vec<(FontId, std::ops::Range<usize>)> = Vec::new();
            for (offset, character) in text[run.clone()].char_indices() {
                let font = font_for(character, bold, run_rtl);
                let start = run.start + offset;
                let end = start + character.len_utf8();
                match pieces.last_mut() {
                    Some((last_font, range)) if *last_font == font => range.end = end,
                    _ => pieces.push((font, start..end)),
                }
            }
            if run_rtl {
                pieces.reverse();
            }
            for (font, range) in pieces {
                shape_piece(&mut line, &text[range], font, size, run_rtl);
            }
        }
    }
    line
}

fn shape_piece(line: &mut ShapedLine, piece: &str, font: FontId, size: f32, rtl: bool) {
    let face = &faces()[font];
    let scale = size / face.units_per_em() as f32;
    let mut buffer = UnicodeBuffer::new();
    buffer.push_str(piece);
    buffer.guess_segment_properties();
    buffer.set_direction(if rtl { Direction::RightToLeft } else { Direction::LeftToRight });
    let shaped = rustybuzz::shape(face, &[], buffer);
    // Cluster starts in logical order, to find each cluster's text.
    let mut starts: Vec<usize> = shaped.glyph_infos().iter().map(|info| info.cluster as usize).collect();
    starts.sort_unstable();
    starts.dedup();
    let mut seen_clusters = std::collections::HashSet::new();
    for (info, position) in shaped.glyph_infos().iter().zip(shaped.glyph_positions()) {
        let cluster = info.cluster as usize;
        let end = starts.iter().find(|start| **start > cluster).copied().unwrap_or(piece.len());
        // A right-to-left glyph's text is given reversed: readers reverse
        // right-to-left lines when they extract them, ligatures included.
        let text = match seen_clusters.insert(cluster) {
            true if rtl => piece[cluster..end].chars().rev().collect(),
            true => piece[cluster..end].to_string(),
            false => String::new(),
        };
        line.glyphs.push(PlacedGlyph {
            font,
            glyph: info.glyph_id as u16,
            x: line.width + position.x_offset as f32 * scale,
            y: position.y_offset as f32 * scale,
            text,
        });
        line.width += position.x_advance as f32 * scale;
    }
}

/// Splits text into lines no wider than `width`, at spaces (a word wider
/// than the line stays whole).
fn wrap(text: &str, size: f32, bold: bool, rtl: Option<bool>, width: f32) -> Vec<ShapedLine> {
    let mut lines = Vec::new();
    for paragraph in text.lines() {
        let mut current = String::new();
        for word in paragraph.split(' ') {
            let candidate = if current.is_empty() { word.to_string() } else { format!("{current} {word}") };
            if !current.is_empty() && shape_line(&candidate, size, bold, rtl).width > width {
                lines.push(shape_line(&current, size, bold, rtl));
                current = word.to_string();
            } else {
                current = candidate;
            }
        }
        lines.push(shape_line(&current, size, bold, rtl));
    }
    lines
}

/// Where a line goes, measured from the start side of the page.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Align {
    Start,
    End,
}

/// Pages being laid out: glyphs and rules per page, and the cursor.
struct Layout {
    rtl: bool,
    pages: Vec<PageItems>,
    /// Distance from the top of the page.
    y: f32,
}

#[derive(Default)]
struct PageItems {
    /// (x, baseline from the bottom, size, line).
    lines: Vec<(f32, f32, f32, ShapedLine)>,
    /// Horizontal rules: (x1, x2, y from the bottom, grey).
    rules: Vec<(f32, f32, f32, f32)>,
}

impl Layout {
    fn new(rtl: bool) -> Layout {
        Layout { rtl, pages: vec![PageItems::default()], y: MARGIN }
    }

    fn content_width() -> f32 {
        PAGE_WIDTH - 2.0 * MARGIN
    }

    /// Starts a new page when `height` does not fit below the cursor.
    fn room_for(&mut self, height: f32) {
        if self.y + height > PAGE_HEIGHT - MARGIN {
            self.pages.push(PageItems::default());
            self.y = MARGIN;
        }
    }

    /// Places a shaped line at `offset` from the start margin (or ending at
    /// it, with `Align::End`), on the line whose top is the cursor.
    fn place(&mut self, line: ShapedLine, size: f32, offset: f32, align: Align) {
        let baseline = PAGE_HEIGHT - (self.y + size);
        let from_left = match (align, self.rtl) {
            (Align::Start, false) => MARGIN + offset,
            (Align::End, false) => MARGIN + offset - line.width,
            (Align::Start, true) => PAGE_WIDTH - MARGIN - offset - line.width,
            (Align::End, true) => PAGE_WIDTH - MARGIN - offset,
        };
        self.pages.last_mut().expect("a page").lines.push((from_left, baseline, size, line));
    }

    fn rule(&mut self, grey: f32) {
        let y = PAGE_HEIGHT - self.y;
        self.pages.last_mut().expect("a page").rules.push((MARGIN, PAGE_WIDTH - MARGIN, y, grey));
    }

    /// A paragraph wrapped to `width` at `offset`; returns its height.
    fn paragraph(&mut self, text: &str, size: f32, bold: bool, offset: f32, width: f32) {
        for line in wrap(text, size, bold, Some(self.rtl), width) {
            self.room_for(size * LINE_GAP);
            self.place(line, size, offset, Align::Start);
            self.y += size * LINE_GAP;
        }
    }

    /// A row of cells: each (text, offset of its start, width, align, bold);
    /// cells wrap, the row is as high as its tallest cell. The first cell is
    /// a label in the document's direction, the others values in their own.
    fn row(&mut self, cells: &[(&str, f32, f32, Align, bool)], size: f32) {
        let wrapped: Vec<Vec<ShapedLine>> = cells
            .iter()
            .enumerate()
            .map(|(index, (text, _, width, _, bold))| {
                let direction = if index == 0 { Some(self.rtl) } else { None };
                wrap(text, size, *bold, direction, *width)
            })
            .collect();
        let lines = wrapped.iter().map(Vec::len).max().unwrap_or(1).max(1);
        self.room_for(lines as f32 * size * LINE_GAP);
        let top = self.y;
        for (cell, cell_lines) in cells.iter().zip(wrapped) {
            self.y = top;
            let (_, offset, width, align, _) = *cell;
            let anchor = if align == Align::End { offset + width } else { offset };
            for line in cell_lines {
                self.place(line, size, anchor, align);
                self.y += size * LINE_GAP;
            }
        }
        self.y = top + lines as f32 * size * LINE_GAP;
    }
}

/// Lays the document out and writes the PDF.
pub fn render(doc: &Doc) -> Vec<u8> {
    let mut layout = Layout::new(doc.rtl);
    let width = Layout::content_width();
    layout.paragraph(&doc.title, 18.0, true, 0.0, width);
    layout.y += 4.0;
    for block in &doc.blocks {
        match block {
            Block::Heading(text) => {
                layout.y += 8.0;
                layout.room_for(30.0);
                layout.paragraph(text, 12.0, true, 0.0, width);
                layout.rule(0.6);
                layout.y += 4.0;
            }
            Block::Text(text) => layout.paragraph(text, BODY_SIZE, false, 0.0, width),
            Block::Small(text) => layout.paragraph(text, 8.5, false, 0.0, width),
            Block::Pairs(pairs) => {
                for (label, value) in pairs {
                    layout.row(
                        &[
                            (label, 0.0, width * 0.34, Align::Start, true),
                            (value, width * 0.36, width * 0.64, Align::Start, false),
                        ],
                        BODY_SIZE,
                    );
                }
            }
            Block::Amounts { rows, total } => {
                for (label, amount) in rows {
                    layout.row(
                        &[
                            (label, 0.0, width * 0.7, Align::Start, false),
                            (amount, width * 0.7, width * 0.3, Align::End, false),
                        ],
                        BODY_SIZE,
                    );
                }
                if let Some((label, amount)) = total {
                    layout.rule(0.3);
                    layout.y += 3.0;
                    layout.row(
                        &[
                            (label, 0.0, width * 0.7, Align::Start, true),
                            (amount, width * 0.7, width * 0.3, Align::End, true),
                        ],
                        11.0,
                    );
                }
            }
            Block::Table { columns, rows, footer } => {
                let count = columns.len().max(1);
                let column_width = width / count as f32;
                let cells = |texts: &[String], bold: bool| -> Vec<(String, f32, f32, Align, bool)> {
                    texts
                        .iter()
                        .enumerate()
                        .map(|(index, text)| {
                            let align = if index == 0 || !columns[index].numeric { Align::Start } else { Align::End };
                            (text.clone(), index as f32 * column_width, column_width - 4.0, align, bold)
                        })
                        .collect()
                };
                let header: Vec<String> = columns.iter().map(|column| column.title.clone()).collect();
                for (texts, bold, size) in std::iter::once((&header, true, 8.0))
                    .chain(rows.iter().map(|row| (row, false, 8.0)))
                    .chain(footer.iter().map(|row| (row, true, 8.5)))
                {
                    let owned = cells(texts, bold);
                    let borrowed: Vec<(&str, f32, f32, Align, bool)> = owned
                        .iter()
                        .map(|(text, offset, width, align, bold)| (text.as_str(), *offset, *width, *align, *bold))
                        .collect();
                    layout.row(&borrowed, size);
                    layout.rule(0.85);
                    layout.y += 2.0;
                }
            }
        }
        layout.y += 6.0;
    }
    write_pdf(&layout.pages, &doc.title)
}

/// The glyphs a font uses in the document, and what each stands for.
#[derive(Default)]
struct FontUse {
    remapper: subsetter::GlyphRemapper,
    to_unicode: BTreeMap<u16, String>,
}

fn write_pdf(pages: &[PageItems], title: &str) -> Vec<u8> {
    let faces = faces();
    let mut uses: Vec<FontUse> = (0..FONT_DATA.len()).map(|_| FontUse::default()).collect();
    for use_ in &mut uses {
        // Glyph 0 (.notdef) stays glyph 0, as PDF readers expect.
        use_.remapper.remap(0);
    }
    for page in pages {
        for (_, _, _, line) in &page.lines {
            for glyph in &line.glyphs {
                let font_use = &mut uses[glyph.font];
                let new_id = font_use.remapper.remap(glyph.glyph);
                if !glyph.text.is_empty() {
                    font_use.to_unicode.entry(new_id).or_insert_with(|| glyph.text.clone());
                }
            }
        }
    }
    let mut next = 1;
    let mut reference = || {
        let id = Ref::new(next);
        next += 1;
        id
    };
    let catalog_id = reference();
    let pages_id = reference();
    let info_id = reference();
    let font_refs: Vec<[Ref; 5]> = (0..FONT_DATA.len()).map(|_| std::array::from_fn(|_| reference())).collect();
    let page_refs: Vec<(Ref, Ref)> = pages.iter().map(|_| (reference(), reference())).collect();

    let mut pdf = Pdf::new();
    pdf.catalog(catalog_id).pages(pages_id);
    pdf.pages(pages_id).kids(page_refs.iter().map(|(page, _)| *page)).count(page_refs.len() as i32);
    pdf.document_info(info_id).title(pdf_writer::TextStr(title)).producer(pdf_writer::TextStr("Wayfare"));
    let used: Vec<bool> = uses.iter().map(|font_use| font_use.remapper.num_gids() > 1).collect();
    for (font, font_use) in uses.iter().enumerate().filter(|(font, _)| used[*font]) {
        let [type0_id, cid_id, descriptor_id, file_id, cmap_id] = font_refs[font];
        let face = &faces[font];
        let base_name = format!("{}+{}", subset_tag(font), FONT_NAMES[font]);
        let units = face.units_per_em() as f32;
        let to_pdf = |value: f32| value * 1000.0 / units;
        pdf.type0_font(type0_id)
            .base_font(Name(base_name.as_bytes()))
            .encoding_predefined(Name(b"Identity-H"))
            .descendant_font(cid_id)
            .to_unicode(cmap_id);
        let system_info = SystemInfo { registry: Str(b"Adobe"), ordering: Str(b"Identity"), supplement: 0 };
        let widths: Vec<f32> = font_use
            .remapper
            .remapped_gids()
            .map(|old| to_pdf(face.glyph_hor_advance(ttf_glyph(old)).unwrap_or(0) as f32))
            .collect();
        let mut cid = pdf.cid_font(cid_id);
        cid.subtype(CidFontType::Type2)
            .base_font(Name(base_name.as_bytes()))
            .system_info(system_info)
            .font_descriptor(descriptor_id)
            .default_width(0.0)
            .cid_to_gid_map_predefined(Name(b"Identity"));
        cid.widths().consecutive(0, widths);
        cid.finish();
        let bbox = face.global_bounding_box();
        pdf.font_descriptor(descriptor_id)
            .name(Name(base_name.as_bytes()))
            .flags(FontFlags::NON_SYMBOLIC)
            .bbox(Rect::new(
                to_pdf(bbox.x_min as f32),
                to_pdf(bbox.y_min as f32),
                to_pdf(bbox.x_max as f32),
                to_pdf(bbox.y_max as f32),
            ))
            .italic_angle(0.0)
            .ascent(to_pdf(face.ascender() as f32))
            .descent(to_pdf(face.descender() as f32))
            .cap_height(to_pdf(face.capital_height().unwrap_or(face.ascender()) as f32))
            .stem_v(if font % 2 == 1 { 140.0 } else { 80.0 })
            .font_file2(file_id);
        let subset = subsetter::subset(FONT_DATA[font], 0, &font_use.remapper).expect("the built-in fonts subset");
        pdf.stream(file_id, &subset).pair(Name(b"Length1"), subset.len() as i32);
        let mut cmap = pdf_writer::types::UnicodeCmap::<u16>::new(Name(b"Custom"), system_info);
        for (glyph, text) in &font_use.to_unicode {
            cmap.pair_with_multiple(*glyph, text.chars());
        }
        let cmap_data = cmap.finish();
        pdf.cmap(cmap_id, &cmap_data).name(Name(b"Custom")).system_info(system_info);
    }
    for (page, (page_id, content_id)) in pages.iter().zip(&page_refs) {
        let content = page_content(page, &uses);
        let compressed = compress(&content);
        pdf.stream(*content_id, &compressed).filter(Filter::FlateDecode);
        let mut page_writer = pdf.page(*page_id);
        page_writer.media_box(Rect::new(0.0, 0.0, PAGE_WIDTH, PAGE_HEIGHT)).parent(pages_id).contents(*content_id);
        let mut resources = page_writer.resources();
        let mut fonts = resources.fonts();
        for (font, refs) in font_refs.iter().enumerate().filter(|(font, _)| used[*font]) {
            fonts.pair(Name(format!("F{font}").as_bytes()), refs[0]);
        }
    }
    pdf.finish()
}

fn ttf_glyph(id: u16) -> rustybuzz::ttf_parser::GlyphId {
    rustybuzz::ttf_parser::GlyphId(id)
}

/// Six capital letters naming a subset (PDF 9.6.4), one per font.
fn subset_tag(font: FontId) -> &'static str {
    ["WFREGA", "WFBOLD", "WFARAB", "WFARBD"][font]
}

fn page_content(page: &PageItems, uses: &[FontUse]) -> Vec<u8> {
    let mut content = Content::new();
    for (x1, x2, y, grey) in &page.rules {
        content.set_stroke_gray(*grey).set_line_width(0.6).move_to(*x1, *y).line_to(*x2, *y).stroke();
    }
    content.set_fill_gray(0.0);
    for (x, baseline, size, line) in &page.lines {
        content.begin_text();
        let mut current_font = None;
        for glyph in &line.glyphs {
            if current_font != Some(glyph.font) {
                content.set_font(Name(format!("F{}", glyph.font).as_bytes()), *size);
                current_font = Some(glyph.font);
            }
            let new_id = uses[glyph.font].remapper.get(glyph.glyph).unwrap_or(0);
            content.set_text_matrix([1.0, 0.0, 0.0, 1.0, x + glyph.x, baseline + glyph.y]);
            content.show(Str(&new_id.to_be_bytes()));
        }
        content.end_text();
    }
    content.finish().into_vec()
}

fn compress(data: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec_zlib(data, 6)
}

#[cfg(test)]
pub(crate) mod tests_support {
    /// The glyphs a text shapes to with the regular fonts, in visual order.
    pub fn glyphs(text: &str) -> Vec<u16> {
        super::shape_line(text, 10.0, false, Some(true)).glyphs.iter().map(|glyph| glyph.glyph).collect()
    }
}
