//! The Storage files an export's records point at (profile images,
//! licences, car type images, parcel photos), read from a copy of the
//! bucket (`gsutil -m cp -r gs://BUCKET DIR`: the object `users/{uid}/license`
//! is the file `DIR/users/{uid}/license`) and put in Wayfare's file store
//! the way uploads are (`http/src/routes/files.rs`): under the record's
//! folder, named by a file id that is the same on every import, recorded in
//! the `files` table, and served at `/api/v1/files/{id}`.

use super::progress::Progress;
use crate::files::FileStore;
use crate::routes::files::file_url;
use axum::body::Bytes;
use std::path::{Path, PathBuf};
use wayfare_engine::Millis;
use wayfare_engine::exicube::{FileTarget, Report, StorageFile};
use wayfare_engine::rules::media::sniff_image;
use wayfare_storage::FileRecord;

/// What copying found and did.
#[derive(Debug, Default)]
pub(super) struct Copied {
    /// Each copied file's record field and its new URL.
    pub urls: Vec<(FileTarget, String)>,
    pub records: Vec<FileRecord>,
    pub missing: u64,
}

/// The file of an object: the file at its path, or, where a tool made the
/// object a folder, the first file in it.
fn object_file(dir: &Path, object: &str) -> Option<PathBuf> {
    let path = dir.join(object);
    if path.is_file() {
        return Some(path);
    }
    let mut inside: Vec<PathBuf> = std::fs::read_dir(&path)
        .ok()?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.is_file())
        .collect();
    inside.sort();
    inside.into_iter().next()
}

/// Copies the files into `store` (only looks for them when `store` is
/// `None`: a dry run). A file that is missing or is not an image is left
/// out and reported; its record keeps the original's URL.
pub(super) async fn copy(
    dir: &Path,
    files: &[StorageFile],
    store: Option<&dyn FileStore>,
    now: Millis,
    report: &mut Report,
    progress: &dyn Progress,
) -> anyhow::Result<Copied> {
    let mut copied = Copied::default();
    progress.stage("copy files", files.len() as u64);
    for file in files {
        progress.advance(1);
        let Some(path) = object_file(dir, &file.path) else {
            copied.missing += 1;
            report.adjust("storage_file_not_found_kept_original_url", file.path.clone());
            continue;
        };
        let bytes = tokio::fs::read(&path).await?;
        let Some(kind) = sniff_image(&bytes) else {
            report.adjust("storage_file_not_an_image_left_out", file.path.clone());
            continue;
        };
        let id = file.file_id();
        let key = format!("{}/{id}.{}", file.target.folder(), kind.extension());
        let size = bytes.len() as u64;
        if let Some(store) = store {
            store.put(&key, Bytes::from(bytes)).await.map_err(|error| anyhow::anyhow!("{}: {error}", file.path))?;
        }
        copied.records.push(FileRecord {
            id,
            owner: file.target.owner(),
            key,
            mime: kind.mime().to_string(),
            size,
            created_at: now,
        });
        copied.urls.push((file.target, file_url(id)));
    }
    progress.finish_stage();
    Ok(copied)
}
