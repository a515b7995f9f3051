//! Where uploaded files' bytes live: a [`FileStore`] keyed by a path-like key
//! (`users/{id}/profileImage/{file}.png`, spec §7 "File storage"). The local
//! directory under the data dir is the default; an S3-compatible bucket (AWS,
//! MinIO, R2, …) through the `object_store` crate is chosen by configuration.
//! What a file is and who may read it is kept in storage (`files` table); this
//! module only moves bytes.

use crate::config::{FileStoreKind, FilesConfig};
use async_trait::async_trait;
use axum::body::Bytes;
use object_store::ObjectStore;
use object_store::path::Path as ObjectPath;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
pub enum FileStoreError {
    #[error("no file at {0}")]
    NotFound(String),
    #[error("not a valid file key: {0}")]
    BadKey(String),
    #[error("file store: {0}")]
    Io(String),
}

/// Put and get bytes by key. Keys are relative, `/`-separated, without `..`.
#[async_trait]
pub trait FileStore: Send + Sync + 'static {
    async fn put(&self, key: &str, bytes: Bytes) -> Result<(), FileStoreError>;
    async fn get(&self, key: &str) -> Result<Bytes, FileStoreError>;
    /// A short name for logs (`local`, `s3`).
    fn name(&self) -> &'static str;
}

/// The store the configuration names.
pub fn store_from_config(config: &FilesConfig, data_dir: &Path) -> anyhow::Result<Arc<dyn FileStore>> {
    match config.store {
        FileStoreKind::Local => {
            let root = config.local_dir.clone().unwrap_or_else(|| data_dir.join("uploads"));
            Ok(Arc::new(LocalFileStore::new(root)))
        }
        FileStoreKind::S3 => {
            let s3 = &config.s3;
            if s3.bucket.trim().is_empty() {
                anyhow::bail!("files.store is s3 but files.s3.bucket is empty");
            }
            let mut builder =
                object_store::aws::AmazonS3Builder::new().with_bucket_name(&s3.bucket).with_region(&s3.region);
            if let Some(endpoint) = s3.endpoint.as_deref().filter(|endpoint| !endpoint.is_empty()) {
                builder = builder.with_endpoint(endpoint);
            }
            if let (Some(key), Some(secret)) = (&s3.access_key_id, &s3.secret_access_key) {
                builder = builder.with_access_key_id(key).with_secret_access_key(secret);
            }
            builder = builder.with_allow_http(s3.allow_http).with_virtual_hosted_style_request(s3.virtual_hosted_style);
            let store = builder.build()?;
            Ok(Arc::new(ObjectFileStore::new(Arc::new(store), &s3.prefix)))
        }
    }
}

/// Checks a key is relative and stays inside the store.
fn checked_key(key: &str) -> Result<&str, FileStoreError> {
    let path = Path::new(key);
    let clean = !key.is_empty()
        && !key.contains('\\')
        && path.components().all(|component| matches!(component, Component::Normal(_)));
    if clean { Ok(key) } else { Err(FileStoreError::BadKey(key.to_string())) }
}

/// Files in a directory on this machine (`data_dir/uploads` by default).
pub struct LocalFileStore {
    root: PathBuf,
}

impl LocalFileStore {
    pub fn new(root: PathBuf) -> Self {
        LocalFileStore { root }
    }
}

#[async_trait]
impl FileStore for LocalFileStore {
    async fn put(&self, key: &str, bytes: Bytes) -> Result<(), FileStoreError> {
        let path = self.root.join(checked_key(key)?);
        if let Some(parent) = path.parent() {
            tokio::fs::create_dir_all(parent).await.map_err(|error| FileStoreError::Io(error.to_string()))?;
        }
        // Written beside, then renamed: a reader never sees half a file.
        let partial = path.with_extension("partial");
        tokio::fs::write(&partial, &bytes).await.map_err(|error| FileStoreError::Io(error.to_string()))?;
        tokio::fs::rename(&partial, &path).await.map_err(|error| FileStoreError::Io(error.to_string()))
    }

    async fn get(&self, key: &str) -> Result<Bytes, FileStoreError> {
        let path = self.root.join(checked_key(key)?);
        match tokio::fs::read(&path).await {
            Ok(bytes) => Ok(Bytes::from(bytes)),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                Err(FileStoreError::NotFound(key.to_string()))
            }
            Err(error) => Err(FileStoreError::Io(error.to_string())),
        }
    }

    fn name(&self) -> &'static str {
        "local"
    }
}

/// Any `object_store` backend: S3-compatible buckets in production, the
/// in-memory store in tests.
pub struct ObjectFileStore {
    store: Arc<dyn ObjectStore>,
    prefix: String,
}

impl ObjectFileStore {
    /// `prefix` (may be empty) is put before every key, e.g. `wayfare/`.
    pub fn new(store: Arc<dyn ObjectStore>, prefix: &str) -> Self {
        ObjectFileStore { store, prefix: prefix.trim_matches('/').to_string() }
    }

    fn path(&self, key: &str) -> Result<ObjectPath, FileStoreError> {
        let key = checked_key(key)?;
        let full = if self.prefix.is_empty() { key.to_string() } else { format!("{}/{key}", self.prefix) };
        ObjectPath::parse(&full).map_err(|_| FileStoreError::BadKey(key.to_string()))
    }
}

#[async_trait]
impl FileStore for ObjectFileStore {
    async fn put(&self, key: &str, bytes: Bytes) -> Result<(), FileStoreError> {
        let path = self.path(key)?;
        self.store.put(&path, bytes.into()).await.map_err(|error| FileStoreError::Io(error.to_string()))?;
        Ok(())
    }

    async fn get(&self, key: &str) -> Result<Bytes, FileStoreError> {
        let path = self.path(key)?;
        match self.store.get(&path).await {
            Ok(result) => result.bytes().await.map_err(|error| FileStoreError::Io(error.to_string())),
            Err(object_store::Error::NotFound { .. }) => Err(FileStoreError::NotFound(key.to_string())),
            Err(error) => Err(FileStoreError::Io(error.to_string())),
        }
    }

    fn name(&self) -> &'static str {
        "object"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::S3Config;
    use object_store::memory::InMemory;

    async fn round_trips(store: &dyn FileStore) {
        let png = Bytes::from_static(b"\x89PNG\r\n\x1a\nrest");
        store.put("users/1/profileImage/a.png", png.clone()).await.unwrap();
        assert_eq!(store.get("users/1/profileImage/a.png").await.unwrap(), png);
        // Replacing a key replaces the bytes.
        store.put("users/1/profileImage/a.png", Bytes::from_static(b"second")).await.unwrap();
        assert_eq!(store.get("users/1/profileImage/a.png").await.unwrap(), Bytes::from_static(b"second"));
        assert!(matches!(store.get("users/1/profileImage/missing.png").await, Err(FileStoreError::NotFound(_))));
        for bad in ["../escape.png", "/etc/passwd", "users/../../x", "", "a\\b"] {
            assert!(matches!(store.put(bad, Bytes::new()).await, Err(FileStoreError::BadKey(_))), "{bad}");
            assert!(matches!(store.get(bad).await, Err(FileStoreError::BadKey(_))), "{bad}");
        }
    }

    #[tokio::test]
    async fn the_local_store_keeps_files_under_its_directory() {
        let directory = tempfile::tempdir().unwrap();
        let store = LocalFileStore::new(directory.path().join("uploads"));
        round_trips(&store).await;
        assert!(directory.path().join("uploads/users/1/profileImage/a.png").exists());
    }

    #[tokio::test]
    async fn the_object_store_keeps_files_under_its_prefix() {
        let memory = Arc::new(InMemory::new());
        let store = ObjectFileStore::new(memory.clone(), "/wayfare/");
        round_trips(&store).await;
        let stored = memory.get(&ObjectPath::from("wayfare/users/1/profileImage/a.png")).await.unwrap();
        assert_eq!(stored.bytes().await.unwrap(), Bytes::from_static(b"second"));
    }

    #[test]
    fn the_configuration_picks_the_store() {
        let directory = tempfile::tempdir().unwrap();
        let local = store_from_config(&FilesConfig::default(), directory.path()).unwrap();
        assert_eq!(local.name(), "local");
        // An S3-compatible bucket (MinIO here) is built without any network call.
        let s3 = FilesConfig {
            store: FileStoreKind::S3,
            s3: S3Config {
                bucket: "wayfare-uploads".into(),
                endpoint: Some("http://127.0.0.1:9000".into()),
                access_key_id: Some("minio".into()),
                secret_access_key: Some("minio-secret".into()),
                allow_http: true,
                ..S3Config::default()
            },
            ..FilesConfig::default()
        };
        assert_eq!(store_from_config(&s3, directory.path()).unwrap().name(), "object");
        let no_bucket = FilesConfig { store: FileStoreKind::S3, ..FilesConfig::default() };
        assert!(store_from_config(&no_bucket, directory.path()).is_err());
    }
}
