//! The summary an import prints: per node what was read, imported, kept and
//! skipped; the keys Wayfare has no field for; the first malformed records
//! with their paths; the adjustments; wallets and files.

use super::exicube::Outcome;
use std::fmt::Write as _;
use std::path::Path;

/// Malformed records printed (the `--report` file has them all).
const MALFORMED_SHOWN: usize = 20;

pub(super) fn render(outcome: &Outcome, export: &Path) -> String {
    let report = &outcome.report;
    let mut out = String::new();
    let title = if outcome.dry_run { "Dry run: nothing was written." } else { "Imported." };
    let _ = writeln!(out, "{title} {} (original product export)", export.display());
    let _ = writeln!(out, "{:<20} {:>10} {:>10} {:>8} {:>8}", "node", "read", "imported", "kept", "skipped");
    for (node, counts) in &report.nodes {
        let _ = writeln!(
            out,
            "{node:<20} {:>10} {:>10} {:>8} {:>8}",
            counts.read, counts.imported, counts.kept, counts.skipped
        );
    }
    if !report.unknown_keys.is_empty() {
        let _ = writeln!(out, "\nkeys Wayfare has no field for (kept beside their record), in how many records:");
        for (node, keys) in &report.unknown_keys {
            let keys: Vec<String> = keys.iter().map(|(key, count)| format!("{key} ×{count}")).collect();
            let _ = writeln!(out, "  {node}: {}", keys.join(", "));
        }
    }
    if !report.malformed.is_empty() {
        let _ = writeln!(out, "\nskipped ({}):", report.malformed.len());
        for malformed in report.malformed.iter().take(MALFORMED_SHOWN) {
            let _ = writeln!(out, "  {}: {}", malformed.path, malformed.reason);
        }
        if report.malformed.len() > MALFORMED_SHOWN {
            let _ = writeln!(
                out,
                "  … and {} more (--report FILE lists them all)",
                report.malformed.len() - MALFORMED_SHOWN
            );
        }
    }
    if !report.adjustments.is_empty() {
        let _ = writeln!(out, "\nadjusted to fit:");
        for (kind, adjustment) in &report.adjustments {
            let example = adjustment.examples.first().map(|example| format!(" (e.g. {example})")).unwrap_or_default();
            let _ = writeln!(out, "  {kind}: {}{example}", adjustment.count);
        }
    }
    let opened: rust_decimal::Decimal = report.wallets.iter().map(|wallet| wallet.opening).sum();
    let _ = writeln!(
        out,
        "\nwallets: {} opened with the difference between their history and their balance (net {opened})",
        report.wallets.len()
    );
    if !outcome.dry_run {
        let _ = writeln!(
            out,
            "ledger: {} entries written, {} balances corrected",
            outcome.ledger_entries_written, outcome.balance_corrections
        );
    }
    let copied = if outcome.dry_run { "found to copy" } else { "copied" };
    let _ = writeln!(out, "files: {} {copied}, {} not found", outcome.files_copied, outcome.files_missing);
    if !outcome.dry_run {
        let changed: Vec<String> = outcome
            .tables_after
            .iter()
            .filter_map(|(table, after)| {
                let before = outcome.tables_before.get(table).copied().unwrap_or(0);
                (before != *after).then(|| format!("{table} {before} → {after}"))
            })
            .collect();
        let rows = if changed.is_empty() { "no table changed".to_string() } else { changed.join(", ") };
        let _ = writeln!(out, "rows: {rows}");
        let _ = writeln!(out, "done in {:.1} s; `wayfare audit` checks the result", outcome.seconds);
    }
    out
}
