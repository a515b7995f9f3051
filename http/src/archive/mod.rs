//! The whole platform as one portable archive (issue #38): `wayfare export
//! --out FILE` and `wayfare import wayfare FILE`, the way to move a city
//! from SQLite to PostgreSQL (cluster mode) and a backup an operator can
//! read with any unzip and text editor. The format is in [`format`]; the
//! storage reads and writes the rows ([`wayfare_storage::Archive`]); this
//! module moves them between the two and the file store.

pub mod export;
pub mod format;
pub mod import;

use crate::config::Config;
use std::path::Path;

/// `wayfare export --out FILE`.
pub async fn export_command(config: Config, out: &Path) -> anyhow::Result<()> {
    // Opening a missing SQLite file would create an empty one and export it.
    let sqlite = config.database_url.as_deref().is_none_or(str::is_empty);
    if sqlite && !config.database_path().exists() {
        anyhow::bail!(
            "no database at {}: give the server's --data-dir or --database-url",
            config.database_path().display()
        );
    }
    let started = std::time::Instant::now();
    let storage = wayfare_storage::open(&config.storage_url()).await?;
    let files = crate::files::store_from_config(&config.files, &config.data_dir)?;
    let manifest = export::export(storage, files, out).await?;
    let rows: u64 = manifest.tables.iter().map(|table| table.rows).sum();
    for table in &manifest.tables {
        eprintln!("{:>12} rows  {}", table.rows, table.name);
    }
    if !manifest.missing_files.is_empty() {
        eprintln!(
            "warning: {} uploads listed in the database were not in the file store (named in the manifest's missingFiles)",
            manifest.missing_files.len()
        );
    }
    let size = std::fs::metadata(out).map(|metadata| metadata.len()).unwrap_or(0);
    println!(
        "exported {rows} rows of {} tables and {} files (schema {}) to {} ({:.1} MB) in {:.1} s",
        manifest.tables.len(),
        manifest.files.len(),
        manifest.schema_version,
        out.display(),
        size as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `wayfare import wayfare FILE`.
pub async fn import_command(config: Config, archive: &Path) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    std::fs::create_dir_all(&config.data_dir)?;
    let manifest = {
        let archive = archive.to_path_buf();
        tokio::task::spawn_blocking(move || import::read_manifest(&archive)).await??
    };
    // A new database is migrated to the archive's schema; the rest after.
    let storage = wayfare_storage::open_at_schema(&config.storage_url(), Some(manifest.schema_version)).await?;
    let files = crate::files::store_from_config(&config.files, &config.data_dir)?;
    let report = import::import(storage.clone(), files, archive).await?;
    for (table, rows) in &report.summary.tables {
        eprintln!("{rows:>12} rows  {table}");
    }
    let imported = started.elapsed();
    // The roll-ups are not in the archive: built now, so the first start is quick.
    storage.prepare_earnings_rollup(config.reports.utc_offset_minutes).await?;
    let rows: u64 = report.summary.tables.iter().map(|(_, rows)| rows).sum();
    println!(
        "imported {rows} rows and {} files from {} (written by Wayfare {} on {}, {}) in {:.1} s, roll-ups rebuilt in {:.1} s; \
         run `wayfare audit` with the same database options to check it",
        report.files,
        archive.display(),
        report.manifest.wayfare_version,
        report.manifest.source_backend,
        report.manifest.created_at,
        imported.as_secs_f64(),
        (started.elapsed() - imported).as_secs_f64()
    );
    Ok(())
}
