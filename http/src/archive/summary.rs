//! What `wayfare export` and `wayfare import wayfare` print at the end: the
//! rows of every table, the uploads, what was left out and why, and how
//! long each part took.

use super::format::Manifest;
use super::import::ImportReport;
use std::fmt::Write as _;
use std::path::Path;

/// After an export of `size` bytes in `seconds`.
pub(super) fn render_export(manifest: &Manifest, out: &Path, size: u64, seconds: f64) -> String {
    let mut text = String::new();
    let _ =
        writeln!(text, "Exported. {} ({:.1} MB, schema {})", out.display(), size as f64 / 1e6, manifest.schema_version);
    let _ = writeln!(text, "{:<24} {:>12}", "table", "rows");
    for table in &manifest.tables {
        let _ = writeln!(text, "{:<24} {:>12}", table.name, table.rows);
    }
    let rows: u64 = manifest.tables.iter().map(|table| table.rows).sum();
    let _ = writeln!(text, "{:<24} {:>12}", "total", rows);
    let bytes: u64 = manifest.files.iter().map(|file| file.size).sum();
    let _ = writeln!(text, "\nfiles: {} uploads ({:.1} MB)", manifest.files.len(), bytes as f64 / 1e6);
    if !manifest.missing_files.is_empty() {
        let _ = writeln!(
            text,
            "warning: {} uploads the database lists were not in the file store (the manifest's missingFiles names them)",
            manifest.missing_files.len()
        );
    }
    let skipped: Vec<&str> = manifest.skipped_tables.iter().map(|table| table.name.as_str()).collect();
    if !skipped.is_empty() {
        let _ = writeln!(text, "left out (rebuilt after an import, or transient): {}", skipped.join(", "));
    }
    let _ = writeln!(text, "done in {seconds:.1} s; `wayfare import wayfare {}` reads it back", out.display());
    text
}

/// After an import that read and wrote in `seconds`, then rebuilt the
/// roll-ups in `rollup_seconds`.
pub(super) fn render_import(report: &ImportReport, archive: &Path, seconds: f64, rollup_seconds: f64) -> String {
    let manifest = &report.manifest;
    let mut text = String::new();
    let _ = writeln!(
        text,
        "Imported. {} (written by Wayfare {} on {}, {})",
        archive.display(),
        manifest.wayfare_version,
        manifest.source_backend,
        manifest.created_at
    );
    let _ = writeln!(text, "{:<24} {:>12}", "table", "rows");
    for (table, rows) in &report.summary.tables {
        let _ = writeln!(text, "{table:<24} {rows:>12}");
    }
    let rows: u64 = report.summary.tables.iter().map(|(_, rows)| rows).sum();
    let _ = writeln!(text, "{:<24} {:>12}", "total", rows);
    let _ = writeln!(text, "\nfiles: {} uploads stored", report.files);
    if !manifest.missing_files.is_empty() {
        let _ = writeln!(
            text,
            "warning: {} uploads were missing when the archive was written (its manifest's missingFiles)",
            manifest.missing_files.len()
        );
    }
    let _ = writeln!(
        text,
        "done in {seconds:.1} s, earnings roll-ups rebuilt in {rollup_seconds:.1} s; \
         run `wayfare audit` with the same database options to check it"
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::format::{FileEntry, SkippedTable, TableEntry};
    use wayfare_storage::archive::ImportSummary;

    fn manifest() -> Manifest {
        let table = |name: &str, rows| TableEntry {
            name: name.into(),
            path: format!("tables/{name}.ndjson"),
            rows,
            sha256: String::new(),
            columns: Vec::new(),
        };
        Manifest {
            format: "wayfare-archive".into(),
            format_version: 1,
            wayfare_version: "0.1.0".into(),
            schema_version: 17,
            source_backend: "sqlite".into(),
            created_at: "2026-11-29T09:00:00.000Z".into(),
            tables: vec![table("users", 3), table("bookings", 40)],
            files: vec![FileEntry { key: "a".into(), path: "files/a".into(), size: 2_000_000, sha256: String::new() }],
            missing_files: vec!["b".into()],
            skipped_tables: vec![SkippedTable { name: "earnings_months".into(), why: "derived".into() }],
        }
    }

    #[test]
    fn the_export_summary_lists_every_table_the_total_files_and_what_was_left_out() {
        let text = render_export(&manifest(), Path::new("/tmp/city.zip"), 1_500_000, 2.31);
        assert!(text.starts_with("Exported. /tmp/city.zip (1.5 MB, schema 17)\n"), "{text}");
        assert!(text.contains("\nusers                               3\n"), "{text}");
        assert!(text.contains("\nbookings                           40\n"), "{text}");
        assert!(text.contains("\ntotal                              43\n"), "{text}");
        assert!(text.contains("files: 1 uploads (2.0 MB)"), "{text}");
        assert!(text.contains("warning: 1 uploads"), "{text}");
        assert!(text.contains("left out (rebuilt after an import, or transient): earnings_months"), "{text}");
        assert!(text.contains("done in 2.3 s"), "{text}");
    }

    #[test]
    fn the_import_summary_names_the_source_the_rows_written_and_the_roll_up_time() {
        let report = ImportReport {
            manifest: manifest(),
            summary: ImportSummary { tables: vec![("users".into(), 3), ("bookings".into(), 40)] },
            files: 1,
        };
        let text = render_import(&report, Path::new("city.zip"), 3.0, 0.5);
        assert!(
            text.starts_with("Imported. city.zip (written by Wayfare 0.1.0 on sqlite, 2026-11-29T09:00:00.000Z)\n")
        );
        assert!(text.contains("\ntotal                              43\n"), "{text}");
        assert!(text.contains("files: 1 uploads stored"), "{text}");
        assert!(text.contains("done in 3.0 s, earnings roll-ups rebuilt in 0.5 s"), "{text}");
    }
}
