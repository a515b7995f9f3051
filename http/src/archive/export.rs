//! `wayfare export`: the storage streams every table in one snapshot, a
//! blocking thread writes the zip (NDJSON lines, hashed as they are
//! written), then the uploads the `files` table lists, then the manifest.
//! Channels between them are bounded, so memory stays a few batches
//! whatever the city's size. The zip is written beside its name and
//! renamed when complete: a failed export never leaves a truncated archive
//! under the name asked for.

use super::format::{self, FileEntry, MANIFEST, Manifest, SkippedTable, TableEntry};
use crate::files::{FileStore, FileStoreError};
use crate::import::progress::Progress;
use axum::body::Bytes;
use sha2::Digest as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::sync::mpsc;
use wayfare_storage::archive::{ArchiveTable, ArchiveValue, ExportItem, SKIPPED_TABLES};
use wayfare_storage::{Backend, Storage};
use zip::write::SimpleFileOptions;

/// Rows per batch between the storage and the writer.
const BATCH_ROWS: usize = 1_000;
/// Batches in flight.
const IN_FLIGHT: usize = 4;
/// Deflate level: NDJSON shrinks about tenfold at a cheap level already,
/// and the higher ones cost several times the CPU for a few per cent.
const DEFLATE_LEVEL: i64 = 3;

enum ToWriter {
    Export(ExportItem),
    File { key: String, bytes: Bytes },
    Finish(Box<Manifest>),
}

/// The archive `storage` and `files` make, written to `out`; `progress`
/// hears of each table (its rows as they are read) and of the uploads.
pub async fn export(
    storage: Arc<dyn Storage>,
    files: Arc<dyn FileStore>,
    out: &Path,
    progress: &dyn Progress,
) -> anyhow::Result<Manifest> {
    let schema_version = storage.schema_version().await?;
    let partial = partial_path(out);
    let (to_writer, inbox) = mpsc::channel::<ToWriter>(IN_FLIGHT);
    let writer = tokio::task::spawn_blocking({
        let partial = partial.clone();
        move || write_zip(&partial, inbox)
    });
    let work = async {
        let (rows, exported) = mpsc::channel::<ExportItem>(IN_FLIGHT);
        let reading = storage.export_archive(BATCH_ROWS, rows);
        let forwarding = async {
            // Owned here: should the writer stop, dropping it stops the reading.
            let mut exported = exported;
            let mut keys = FileKeys::default();
            while let Some(item) = exported.recv().await {
                keys.note(&item);
                match &item {
                    ExportItem::Table(table) => {
                        progress.finish_stage();
                        // How many rows is not known before they are read.
                        progress.stage(&table.name, 0);
                    }
                    ExportItem::Rows(rows) => progress.advance(rows.len() as u64),
                }
                if to_writer.send(ToWriter::Export(item)).await.is_err() {
                    break;
                }
            }
            progress.finish_stage();
            keys.keys
        };
        let (read, keys) = tokio::join!(reading, forwarding);
        read?;
        let mut missing = Vec::new();
        progress.stage("files", keys.len() as u64);
        for key in keys {
            match files.get(&key).await {
                Ok(bytes) => {
                    if to_writer.send(ToWriter::File { key, bytes }).await.is_err() {
                        anyhow::bail!("the archive's writer stopped");
                    }
                }
                Err(FileStoreError::NotFound(_)) => {
                    tracing::warn!(%key, "an upload the database lists is not in the file store");
                    missing.push(key);
                }
                Err(error) => return Err(error.into()),
            }
            progress.advance(1);
        }
        progress.finish_stage();
        let manifest = Manifest {
            format: format::FORMAT.into(),
            format_version: format::FORMAT_VERSION,
            wayfare_version: env!("CARGO_PKG_VERSION").into(),
            schema_version,
            source_backend: match storage.backend() {
                Backend::Sqlite => "sqlite".into(),
                Backend::Postgres => "postgres".into(),
            },
            created_at: rfc3339_now(),
            tables: Vec::new(),
            files: Vec::new(),
            missing_files: missing,
            skipped_tables: SKIPPED_TABLES
                .iter()
                .map(|(name, why)| SkippedTable { name: (*name).into(), why: (*why).into() })
                .collect(),
        };
        if to_writer.send(ToWriter::Finish(Box::new(manifest))).await.is_err() {
            anyhow::bail!("the archive's writer stopped");
        }
        Ok(())
    };
    let worked = work.await;
    drop(to_writer);
    let written = writer.await?;
    // The writer's own failure explains the others.
    let manifest = match (written, worked) {
        (Err(error), _) | (Ok(_), Err(error)) => {
            let _ = std::fs::remove_file(&partial);
            return Err(error);
        }
        (Ok(manifest), Ok(())) => manifest,
    };
    std::fs::rename(&partial, out)?;
    Ok(manifest)
}

fn partial_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

fn rfc3339_now() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_millis() as i64)
        .unwrap_or(0);
    wayfare_engine::timefmt::local_datetime(now, 0)
        .map(|at| at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
        .unwrap_or_default()
}

/// The keys of the uploads, read from the `files` table's rows as they pass.
#[derive(Default)]
struct FileKeys {
    key_column: Option<usize>,
    keys: Vec<String>,
}

impl FileKeys {
    fn note(&mut self, item: &ExportItem) {
        match item {
            ExportItem::Table(table) => {
                self.key_column = (table.name == "files")
                    .then(|| table.columns.iter().position(|column| column.name == "key"))
                    .flatten();
            }
            ExportItem::Rows(rows) => {
                if let Some(column) = self.key_column {
                    for row in rows {
                        if let Some(ArchiveValue::Text(key)) = row.get(column) {
                            self.keys.push(key.clone());
                        }
                    }
                }
            }
        }
    }
}

/// The table member being written.
struct Member {
    table: ArchiveTable,
    hasher: sha2::Sha256,
    rows: u64,
}

impl Member {
    fn entry(self) -> TableEntry {
        TableEntry {
            path: format::table_path(&self.table.name),
            name: self.table.name,
            rows: self.rows,
            sha256: hex::encode(self.hasher.finalize()),
            columns: self.table.columns,
        }
    }
}

/// Writes the zip as the items come; returns the manifest it ended with.
fn write_zip(path: &Path, mut inbox: mpsc::Receiver<ToWriter>) -> anyhow::Result<Manifest> {
    let file = std::fs::File::create(path)?;
    let mut zip = zip::ZipWriter::new(std::io::BufWriter::with_capacity(1 << 20, file));
    let tables = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(DEFLATE_LEVEL))
        .large_file(true);
    // Photos and PDFs are compressed already.
    let uploads = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    let mut entries: Vec<TableEntry> = Vec::new();
    let mut files: Vec<FileEntry> = Vec::new();
    let mut member: Option<Member> = None;
    let mut line = Vec::with_capacity(4096);
    while let Some(item) = inbox.blocking_recv() {
        match item {
            ToWriter::Export(ExportItem::Table(table)) => {
                entries.extend(member.take().map(Member::entry));
                zip.start_file(format::table_path(&table.name), tables)?;
                member = Some(Member { table, hasher: sha2::Sha256::default(), rows: 0 });
            }
            ToWriter::Export(ExportItem::Rows(rows)) => {
                let Some(member) = member.as_mut() else { anyhow::bail!("rows before their table") };
                for row in &rows {
                    line.clear();
                    format::write_row(&mut line, &member.table, row)?;
                    member.hasher.update(&line);
                    zip.write_all(&line)?;
                    member.rows += 1;
                }
            }
            ToWriter::File { key, bytes } => {
                entries.extend(member.take().map(Member::entry));
                let path = format::file_path(&key);
                zip.start_file(path.as_str(), uploads)?;
                zip.write_all(&bytes)?;
                files.push(FileEntry { key, path, size: bytes.len() as u64, sha256: format::sha256_hex(&bytes) });
            }
            ToWriter::Finish(manifest) => {
                entries.extend(member.take().map(Member::entry));
                let manifest = Manifest { tables: entries, files, ..*manifest };
                zip.start_file(MANIFEST, tables)?;
                serde_json::to_writer_pretty(&mut zip, &manifest)?;
                zip.write_all(b"\n")?;
                let buffered = zip.finish()?;
                let file = buffered.into_inner().map_err(|error| error.into_error())?;
                file.sync_all()?;
                return Ok(manifest);
            }
        }
    }
    anyhow::bail!("the export stopped before its end")
}
