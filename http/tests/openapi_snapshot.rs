//! The OpenAPI document, committed where the web app reads it
//! (`ui/src/types/openapi.json`): the web app's API types are generated from
//! that file (`cd ui && npm run api-types`), so a change to the server's
//! schemas fails here until the snapshot, and then the types, are refreshed.
//!
//! `WAYFARE_UPDATE_SNAPSHOTS=1 cargo test -p wayfare-http --test openapi_snapshot`
//! rewrites the file instead of comparing.

use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

const UPDATE_ENV: &str = "WAYFARE_UPDATE_SNAPSHOTS";

fn snapshot_path() -> PathBuf {
    let http_crate = Path::new(env!("CARGO_MANIFEST_DIR"));
    let repository = http_crate.parent().expect("the http crate sits in the repository");
    repository.join("ui/src/types/openapi.json")
}

/// Objects with their keys sorted at every depth, so the text depends on the
/// document alone, not on the order a map happens to keep.
fn sorted(value: Value) -> Value {
    match value {
        Value::Object(fields) => {
            let mut entries: Vec<(String, Value)> = fields.into_iter().collect();
            entries.sort_by(|left, right| left.0.cmp(&right.0));
            Value::Object(entries.into_iter().map(|(key, field)| (key, sorted(field))).collect::<Map<_, _>>())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

fn document_text() -> String {
    let document = serde_json::to_value(wayfare_http::openapi::document()).expect("the document serialises");
    let mut text = serde_json::to_string_pretty(&sorted(document)).expect("the document prints");
    text.push('\n');
    text
}

#[test]
fn committed_openapi_document_matches_the_server() {
    let path = snapshot_path();
    let current = document_text();
    if std::env::var_os(UPDATE_ENV).is_some_and(|value| value == "1") {
        std::fs::write(&path, &current).unwrap_or_else(|error| panic!("cannot write {}: {error}", path.display()));
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != current {
        let first_difference = committed
            .lines()
            .zip(current.lines())
            .position(|(old, new)| old != new)
            .unwrap_or_else(|| committed.lines().count().min(current.lines().count()))
            + 1;
        panic!(
            "{} is missing or stale (first difference at line {first_difference}).\n\
             Refresh it and the web app's types with:\n  \
             {UPDATE_ENV}=1 cargo test -p wayfare-http --test openapi_snapshot\n  \
             cd ui && npm run api-types\n\
             and commit both files.",
            path.display()
        );
    }
}
