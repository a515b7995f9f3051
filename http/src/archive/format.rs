//! The archive's file format, readable without Wayfare: a zip holding
//! `manifest.json` (what the archive is and what it holds, with a SHA-256
//! of every member), one NDJSON file per table under `tables/` (a line per
//! row: a JSON object of column → value) and the uploaded files under
//! `files/` by their keys. docs/operations.md "Backups" describes it.
//!
//! Values by their column's portable type: integers as JSON numbers (times
//! are the stored milliseconds since the epoch, money the stored
//! micro-units: exact, and what every query of the product reads), reals as
//! numbers, booleans, text as strings, UUIDs as their hyphenated text, JSON
//! documents as JSON, NULL as `null`.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::io::Read;
use wayfare_storage::archive::{ArchiveColumn, ArchiveRow, ArchiveTable, ArchiveValue, ColumnKind};

/// What `manifest.json` says the file is.
pub const FORMAT: &str = "wayfare-archive";
/// This build writes and reads this version of the format.
pub const FORMAT_VERSION: u32 = 1;
pub const MANIFEST: &str = "manifest.json";

/// `manifest.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub format: String,
    pub format_version: u32,
    /// The Wayfare that wrote it.
    pub wayfare_version: String,
    /// The newest database migration of the source: an import needs the same.
    pub schema_version: i64,
    /// `sqlite` or `postgres`.
    pub source_backend: String,
    /// RFC 3339, UTC.
    pub created_at: String,
    pub tables: Vec<TableEntry>,
    pub files: Vec<FileEntry>,
    /// Uploads the database lists whose bytes the file store did not have.
    #[serde(default)]
    pub missing_files: Vec<String>,
    /// Tables left out, and why (rebuilt from the others, or transient).
    #[serde(default)]
    pub skipped_tables: Vec<SkippedTable>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableEntry {
    pub name: String,
    /// The member: `tables/<name>.ndjson`.
    pub path: String,
    pub rows: u64,
    /// SHA-256 of the member's bytes (as `unzip -p` prints them), in hex.
    pub sha256: String,
    pub columns: Vec<ArchiveColumn>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileEntry {
    /// The file store's key (the `files` table's `key`).
    pub key: String,
    /// The member: `files/<key>`.
    pub path: String,
    pub size: u64,
    pub sha256: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkippedTable {
    pub name: String,
    pub why: String,
}

impl TableEntry {
    pub fn table(&self) -> ArchiveTable {
        ArchiveTable { name: self.name.clone(), columns: self.columns.clone() }
    }
}

pub fn table_path(table: &str) -> String {
    format!("tables/{table}.ndjson")
}

pub fn file_path(key: &str) -> String {
    format!("files/{key}")
}

/// Appends a row as one NDJSON line (with its `\n`).
pub fn write_row(line: &mut Vec<u8>, table: &ArchiveTable, row: &ArchiveRow) -> anyhow::Result<()> {
    anyhow::ensure!(row.len() == table.columns.len(), "a row of {} does not match its columns", table.name);
    line.push(b'{');
    for (index, (column, value)) in table.columns.iter().zip(row).enumerate() {
        if index > 0 {
            line.push(b',');
        }
        serde_json::to_writer(&mut *line, &column.name)?;
        line.push(b':');
        match value {
            ArchiveValue::Null => line.extend_from_slice(b"null"),
            ArchiveValue::Integer(value) => line.extend_from_slice(value.to_string().as_bytes()),
            ArchiveValue::Real(value) => {
                anyhow::ensure!(value.is_finite(), "{}.{} holds {value}, which JSON cannot", table.name, column.name);
                serde_json::to_writer(&mut *line, value)?;
            }
            ArchiveValue::Boolean(value) => line.extend_from_slice(if *value { b"true" } else { b"false" }),
            ArchiveValue::Text(value) => serde_json::to_writer(&mut *line, value)?,
            ArchiveValue::Uuid(value) => serde_json::to_writer(&mut *line, &value.hyphenated().to_string())?,
            // A document with line breaks between its tokens is written
            // again compact: a row is one line.
            ArchiveValue::Json(value) if value.get().contains('\n') => {
                let parsed: serde_json::Value = serde_json::from_str(value.get())?;
                serde_json::to_writer(&mut *line, &parsed)?;
            }
            ArchiveValue::Json(value) => line.extend_from_slice(value.get().as_bytes()),
        }
    }
    line.extend_from_slice(b"}\n");
    Ok(())
}

/// Reads one NDJSON line back as a row of `table`'s columns; a column the
/// line does not name is NULL, a name it has that the table does not is an
/// error.
pub fn parse_row(line: &str, table: &ArchiveTable) -> Result<ArchiveRow, String> {
    let fields: HashMap<&str, &RawValue> = serde_json::from_str(line).map_err(|error| error.to_string())?;
    if let Some(unknown) = fields.keys().find(|name| !table.columns.iter().any(|column| column.name == **name)) {
        return Err(format!("no column {unknown} in {}", table.name));
    }
    table
        .columns
        .iter()
        .map(|column| match fields.get(column.name.as_str()) {
            None => Ok(ArchiveValue::Null),
            Some(raw) if raw.get() == "null" => Ok(ArchiveValue::Null),
            Some(raw) => parse_value(raw, column.kind).map_err(|error| format!("{}: {error}", column.name)),
        })
        .collect()
}

fn parse_value(raw: &RawValue, kind: ColumnKind) -> Result<ArchiveValue, String> {
    let text = raw.get();
    let value = match kind {
        ColumnKind::Integer => ArchiveValue::Integer(serde_json::from_str(text).map_err(|error| error.to_string())?),
        ColumnKind::Real => ArchiveValue::Real(serde_json::from_str(text).map_err(|error| error.to_string())?),
        ColumnKind::Boolean => ArchiveValue::Boolean(serde_json::from_str(text).map_err(|error| error.to_string())?),
        ColumnKind::Text => ArchiveValue::Text(serde_json::from_str(text).map_err(|error| error.to_string())?),
        ColumnKind::Uuid => {
            let text: String = serde_json::from_str(text).map_err(|error| error.to_string())?;
            ArchiveValue::Uuid(uuid::Uuid::parse_str(&text).map_err(|error| error.to_string())?)
        }
        ColumnKind::Json => ArchiveValue::Json(raw.to_owned()),
    };
    Ok(value)
}

/// A reader that hashes what passes through it.
pub struct Hashing<R> {
    inner: R,
    hasher: sha2::Sha256,
}

impl<R: Read> Hashing<R> {
    pub fn new(inner: R) -> Self {
        Hashing { inner, hasher: sha2::Sha256::default() }
    }

    /// The hex SHA-256 of everything read.
    pub fn digest(self) -> String {
        use sha2::Digest as _;
        hex::encode(self.hasher.finalize())
    }
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        use sha2::Digest as _;
        let read = self.inner.read(buffer)?;
        self.hasher.update(&buffer[..read]);
        Ok(read)
    }
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> ArchiveTable {
        let column = |name: &str, kind| ArchiveColumn { name: name.into(), kind, nullable: true };
        ArchiveTable {
            name: "things".into(),
            columns: vec![
                column("id", ColumnKind::Uuid),
                column("count", ColumnKind::Integer),
                column("lat", ColumnKind::Real),
                column("on", ColumnKind::Boolean),
                column("name", ColumnKind::Text),
                column("doc", ColumnKind::Json),
                column("gone", ColumnKind::Integer),
            ],
        }
    }

    #[test]
    fn a_row_is_one_json_line_and_reads_back_the_same() {
        let table = table();
        let row = vec![
            ArchiveValue::Uuid(uuid::Uuid::from_u128(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef)),
            ArchiveValue::Integer(-9_007_199_254_740_993),
            ArchiveValue::Real(39.286_000_000_000_1),
            ArchiveValue::Boolean(true),
            ArchiveValue::Text("line one\nline \"two\" é".into()),
            ArchiveValue::Json(RawValue::from_string("{\n  \"a\": [1, 2.5, \"x\"]\n}".into()).unwrap()),
            ArchiveValue::Null,
        ];
        let mut line = Vec::new();
        write_row(&mut line, &table, &row).unwrap();
        let text = String::from_utf8(line).unwrap();
        assert_eq!(text.matches('\n').count(), 1, "{text}");
        assert!(text.ends_with('\n'));
        assert!(text.contains("\"id\":\"01234567-89ab-cdef-0123-456789abcdef\""), "{text}");
        assert!(text.contains("\"doc\":{\"a\":[1,2.5,\"x\"]}"), "{text}");
        let back = parse_row(text.trim_end(), &table).unwrap();
        assert_eq!(back[..5], row[..5]);
        assert_eq!(back[6], ArchiveValue::Null);
        let ArchiveValue::Json(doc) = &back[5] else { panic!("{:?}", back[5]) };
        assert_eq!(doc.get(), "{\"a\":[1,2.5,\"x\"]}");
    }

    #[test]
    fn a_line_with_a_wrong_type_or_an_unknown_column_is_refused() {
        let table = table();
        assert!(parse_row("{\"count\":\"12\"}", &table).unwrap_err().starts_with("count:"));
        assert!(parse_row("{\"id\":\"not-a-uuid\"}", &table).unwrap_err().starts_with("id:"));
        assert!(parse_row("{\"colour\":1}", &table).unwrap_err().contains("no column colour"));
        assert!(parse_row("{\"count\":1", &table).is_err());
        // A column a line leaves out is NULL.
        assert_eq!(parse_row("{}", &table).unwrap()[1], ArchiveValue::Null);
    }

    #[test]
    fn a_real_json_cannot_hold_is_refused() {
        let table = ArchiveTable {
            name: "t".into(),
            columns: vec![ArchiveColumn { name: "lat".into(), kind: ColumnKind::Real, nullable: false }],
        };
        assert!(write_row(&mut Vec::new(), &table, &vec![ArchiveValue::Real(f64::NAN)]).is_err());
    }
}
