//! The whole platform as one portable archive (issue #38): `wayfare export
//! --out FILE` and `wayfare import wayfare FILE`, the way to move a city
//! from SQLite to PostgreSQL (cluster mode) and a backup an operator can
//! read with any unzip and text editor. The format is in [`format`]; the
//! storage reads and writes the rows ([`wayfare_storage::Archive`]); this
//! module moves them between the two and the file store.

pub mod export;
pub mod format;
pub mod import;
mod summary;

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
    let progress = crate::import::progress::for_stdout();
    let manifest = export::export(storage, files, out, progress.as_ref()).await?;
    let size = std::fs::metadata(out).map(|metadata| metadata.len()).unwrap_or(0);
    print!("{}", summary::render_export(&manifest, out, size, started.elapsed().as_secs_f64()));
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
    let progress = crate::import::progress::for_stdout();
    let report = import::import(storage.clone(), files, archive, progress.as_ref()).await?;
    let imported = started.elapsed();
    // The roll-ups are not in the archive: built now, so the first start is quick.
    progress.stage("earnings roll-ups", 1);
    storage.prepare_earnings_rollup(config.reports.utc_offset_minutes).await?;
    progress.advance(1);
    progress.finish_stage();
    let rollup = started.elapsed() - imported;
    print!("{}", summary::render_import(&report, archive, imported.as_secs_f64(), rollup.as_secs_f64()));
    Ok(())
}
