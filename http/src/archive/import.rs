//! `wayfare import wayfare FILE`: a blocking thread reads the zip member by
//! member (the manifest first, then the tables in its order, then the
//! uploads), checking each member's SHA-256 and row count against the
//! manifest as it ends; the storage writes the rows in one transaction,
//! committed only after the last member checked out. Uploads go into the
//! file store as they come: should the import fail, they are files nothing
//! refers to, and the database is as it was (empty).

use super::format::{self, MANIFEST, Manifest};
use crate::files::FileStore;
use crate::import::progress::Progress;
use axum::body::Bytes;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::Arc;
use tokio::sync::mpsc;
use wayfare_storage::Storage;
use wayfare_storage::archive::{ArchiveTable, ImportItem, ImportSummary};

/// Rows per batch between the reader and the storage.
const BATCH_ROWS: usize = 2_000;
const IN_FLIGHT: usize = 4;

/// What an import did.
#[derive(Debug, Clone)]
pub struct ImportReport {
    pub manifest: Manifest,
    pub summary: ImportSummary,
    pub files: u64,
}

enum FromReader {
    Table(ArchiveTable),
    Rows(Vec<wayfare_storage::archive::ArchiveRow>),
    File { key: String, bytes: Bytes },
    Done,
}

/// Why the reader stopped.
enum ReadFailure {
    /// The archive is wrong: the reason.
    Archive(anyhow::Error),
    /// Its reader went away (the storage refused, or failed).
    Stopped,
}

impl From<anyhow::Error> for ReadFailure {
    fn from(error: anyhow::Error) -> Self {
        ReadFailure::Archive(error)
    }
}

impl From<std::io::Error> for ReadFailure {
    fn from(error: std::io::Error) -> Self {
        ReadFailure::Archive(error.into())
    }
}

impl From<zip::result::ZipError> for ReadFailure {
    fn from(error: zip::result::ZipError) -> Self {
        ReadFailure::Archive(error.into())
    }
}

/// The manifest of the archive at `path`, checked to be one this build reads.
pub fn read_manifest(path: &Path) -> anyhow::Result<Manifest> {
    let file = std::fs::File::open(path)
        .map_err(|error| anyhow::anyhow!("cannot open the archive {}: {error}", path.display()))?;
    let mut zip = zip::ZipArchive::new(BufReader::new(file))
        .map_err(|error| anyhow::anyhow!("{} is not a Wayfare archive (a zip file): {error}", path.display()))?;
    let member = zip
        .by_name(MANIFEST)
        .map_err(|_| anyhow::anyhow!("{} has no {MANIFEST}: not a Wayfare archive", path.display()))?;
    let manifest: Manifest = serde_json::from_reader(member)
        .map_err(|error| anyhow::anyhow!("the archive's {MANIFEST} cannot be read: {error}"))?;
    anyhow::ensure!(manifest.format == format::FORMAT, "{} is not a Wayfare archive", path.display());
    anyhow::ensure!(
        manifest.format_version <= format::FORMAT_VERSION,
        "the archive is in format {} (this Wayfare reads up to {}): import it with a newer Wayfare",
        manifest.format_version,
        format::FORMAT_VERSION
    );
    Ok(manifest)
}

/// Reads the archive at `path` into `storage` and its uploads into
/// `files`; all or nothing for the database. `storage` must be empty and at
/// the archive's schema: a new database opened with
/// [`wayfare_storage::open_at_schema`] and the manifest's `schemaVersion`
/// (an archive of an older release goes in at its own schema, then the
/// newer migrations run on it here).
///
/// `progress` hears of each table (with the rows the manifest gives it) as
/// its rows go to the storage, then of the uploads.
pub async fn import(
    storage: Arc<dyn Storage>,
    files: Arc<dyn FileStore>,
    path: &Path,
    progress: &dyn Progress,
) -> anyhow::Result<ImportReport> {
    let manifest = {
        let path = path.to_path_buf();
        tokio::task::spawn_blocking(move || read_manifest(&path)).await??
    };
    let schema_version = storage.schema_version().await?;
    anyhow::ensure!(
        manifest.schema_version <= schema_version,
        "the archive was written by a newer Wayfare ({}, database schema {}; this one has schema {schema_version}): \
         upgrade Wayfare first",
        manifest.wayfare_version,
        manifest.schema_version
    );
    anyhow::ensure!(
        manifest.schema_version == schema_version,
        "the database is at schema {schema_version}, the archive ({}) at {}: import into a new, empty database, \
         which is migrated to the archive's schema first and forward after",
        manifest.wayfare_version,
        manifest.schema_version
    );
    // Checked again inside the import's transaction; here for a quick answer.
    let holding = storage.tables_with_rows().await?;
    anyhow::ensure!(
        holding.is_empty(),
        "the database is not empty ({} hold rows): import into a new, empty database",
        holding.join(", ")
    );

    let (to_forward, mut from_reader) = mpsc::channel::<FromReader>(IN_FLIGHT);
    let reader = tokio::task::spawn_blocking({
        let path = path.to_path_buf();
        let manifest = manifest.clone();
        move || read_archive(&path, &manifest, &to_forward)
    });
    let (to_storage, storage_inbox) = mpsc::channel::<ImportItem>(IN_FLIGHT);
    let importing = storage.import_archive(storage_inbox);
    // Err(Some(why)) when an upload could not be stored; Err(None) when
    // the reader or the storage stopped (their own errors say why).
    let rows_of: HashMap<String, u64> = manifest.tables.iter().map(|table| (table.name.clone(), table.rows)).collect();
    let file_count = manifest.files.len() as u64;
    let forwarding = async move {
        let mut put = 0u64;
        while let Some(item) = from_reader.recv().await {
            let sent = match item {
                FromReader::Table(table) => {
                    progress.finish_stage();
                    progress.stage(&table.name, rows_of.get(table.name.as_str()).copied().unwrap_or(0));
                    to_storage.send(ImportItem::Table(table)).await
                }
                FromReader::Rows(rows) => {
                    progress.advance(rows.len() as u64);
                    to_storage.send(ImportItem::Rows(rows)).await
                }
                FromReader::File { key, bytes } => {
                    if put == 0 {
                        progress.finish_stage();
                        progress.stage("files", file_count);
                    }
                    files.put(&key, bytes).await.map_err(|error| Some(anyhow::Error::from(error)))?;
                    put += 1;
                    progress.advance(1);
                    Ok(())
                }
                FromReader::Done => {
                    progress.finish_stage();
                    return to_storage.send(ImportItem::Commit).await.map(|()| put).map_err(|_| None);
                }
            };
            if sent.is_err() {
                // The storage stopped: its error says why.
                return Err(None);
            }
        }
        // The reader stopped: its error says why. Dropping `to_storage`
        // without a commit rolls the import back.
        Err::<u64, Option<anyhow::Error>>(None)
    };
    let (imported, forwarded) = tokio::join!(importing, forwarding);
    let read = reader.await?;
    if let Err(ReadFailure::Archive(error)) = read {
        return Err(
            error.context(format!("{} is damaged or not a Wayfare archive; nothing was imported", path.display()))
        );
    }
    let files = match forwarded {
        Ok(put) => Some(put),
        Err(Some(error)) => return Err(error.context("an upload could not be stored; nothing was imported")),
        Err(None) => None,
    };
    let summary = imported?;
    let files = files.ok_or_else(|| anyhow::anyhow!("the import stopped before its end"))?;
    // An older release's archive: the migrations since, on its data.
    storage.apply_migrations().await?;
    Ok(ImportReport { manifest, summary, files })
}

/// Sends the archive's tables, rows and uploads, each member checked
/// against the manifest when it ends, then `Done`.
fn read_archive(path: &Path, manifest: &Manifest, out: &mpsc::Sender<FromReader>) -> Result<(), ReadFailure> {
    let send = |item| out.blocking_send(item).map_err(|_| ReadFailure::Stopped);
    let file = std::fs::File::open(path)?;
    let mut zip = zip::ZipArchive::new(BufReader::with_capacity(1 << 20, file))?;
    for entry in &manifest.tables {
        let table = entry.table();
        send(FromReader::Table(table.clone()))?;
        let member = zip.by_name(&entry.path).map_err(|error| anyhow::anyhow!("{}: {error}", entry.path))?;
        let mut hashed = BufReader::with_capacity(1 << 16, format::Hashing::new(member));
        let mut line = String::new();
        let mut batch = Vec::with_capacity(BATCH_ROWS);
        let mut rows = 0u64;
        let mut number = 0u64;
        loop {
            line.clear();
            if hashed.read_line(&mut line).map_err(|error| anyhow::anyhow!("{}: {error}", entry.path))? == 0 {
                break;
            }
            number += 1;
            let text = line.trim_end_matches(['\n', '\r']);
            if text.is_empty() {
                continue;
            }
            let row = format::parse_row(text, &table)
                .map_err(|error| anyhow::anyhow!("{} line {number}: {error}", entry.path))?;
            batch.push(row);
            rows += 1;
            if batch.len() >= BATCH_ROWS {
                send(FromReader::Rows(std::mem::replace(&mut batch, Vec::with_capacity(BATCH_ROWS))))?;
            }
        }
        // Every byte read (a checksum covers the whole member).
        std::io::copy(&mut hashed, &mut std::io::sink())?;
        let digest = hashed.into_inner().digest();
        if digest != entry.sha256 {
            return Err(anyhow::anyhow!("{}: its SHA-256 does not match the manifest's", entry.path).into());
        }
        if rows != entry.rows {
            return Err(anyhow::anyhow!("{}: {rows} rows, the manifest says {}", entry.path, entry.rows).into());
        }
        if !batch.is_empty() {
            send(FromReader::Rows(batch))?;
        }
    }
    for entry in &manifest.files {
        let member = zip.by_name(&entry.path).map_err(|error| anyhow::anyhow!("{}: {error}", entry.path))?;
        let mut bytes = Vec::with_capacity(entry.size.min(64 << 20) as usize);
        // No more than the manifest says, plus one byte to notice more.
        member.take(entry.size + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 != entry.size || format::sha256_hex(&bytes) != entry.sha256 {
            return Err(anyhow::anyhow!("{}: its size or SHA-256 does not match the manifest's", entry.path).into());
        }
        send(FromReader::File { key: entry.key.clone(), bytes: Bytes::from(bytes) })?;
    }
    send(FromReader::Done)
}
