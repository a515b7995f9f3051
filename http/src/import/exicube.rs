//! `wayfare import exicube EXPORT.json [--files DIR] [--dry-run]`: an
//! operator's Realtime Database export of the original product, and with
//! `--files` a copy of its Storage bucket, into Wayfare (docs/operations.md
//! "Importing from the original product", docs/import-exicube.md).
//!
//! The file is read and mapped off the async threads
//! ([`wayfare_engine::exicube::map_export`] decides everything about the
//! records); then the files are copied and the records written through
//! storage's `Import` part in batches, users before what points at them.
//! Writing the same export again changes nothing: ids, ledger keys and file
//! ids come from the original keys. A dry run opens no database at all.

use super::copy_files;
use super::gateways;
use super::progress::{self, Progress};
use super::summary;
use crate::cli::ExicubeArgs;
use crate::config::Config;
use crate::files::FileStore;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::Instant;
use wayfare_engine::exicube::{self, Existing, ImportedPoint, Mapped, Options, Report};
use wayfare_engine::{Millis, UserId};
use wayfare_storage::{CatalogueImport, Storage};

/// Records per write transaction.
const BATCH: usize = 2_000;
/// Tracking points per write transaction (narrow rows).
const POINTS_BATCH: usize = 20_000;

/// What an import did (or, dry, would do).
#[derive(Debug, Serialize)]
pub struct Outcome {
    pub dry_run: bool,
    pub report: Report,
    pub files_copied: u64,
    pub files_missing: u64,
    /// Ledger entries this run wrote (none when the export was imported before).
    pub ledger_entries_written: u64,
    /// Wallets moved to the original's balance after the history was written.
    pub balance_corrections: u64,
    /// Rows per table before and after (empty on a dry run).
    pub tables_before: BTreeMap<String, u64>,
    pub tables_after: BTreeMap<String, u64>,
    pub seconds: f64,
}

fn now() -> Millis {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_millis() as Millis)
        .unwrap_or(0)
}

/// The command: reads, maps, copies, writes, prints the summary (and the
/// full report as JSON with `--report`).
pub async fn run(config: Config, args: &ExicubeArgs) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let now = now();
    let path = args.export.clone();
    let read = |existing: Existing| async move {
        tokio::task::spawn_blocking(move || -> anyhow::Result<Mapped> {
            let bytes = std::fs::read(&path).map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))?;
            let export: Value = serde_json::from_slice(&bytes)
                .map_err(|error| anyhow::anyhow!("{} is not JSON: {error}", path.display()))?;
            drop(bytes);
            let mapped = exicube::map_export(&export, Options { now }, &existing);
            // Freeing the tree (millions of small allocations, a second or
            // so) overlaps the writes instead of delaying them.
            std::thread::spawn(move || drop(export));
            Ok(mapped)
        })
        .await?
    };
    let mut outcome = if args.dry_run {
        let mapped = read(dry_existing(now)).await?;
        dry_run(&config, mapped, args.files.as_deref(), now).await?
    } else {
        std::fs::create_dir_all(&config.data_dir)?;
        let storage = wayfare_storage::open(&config.storage_url()).await?;
        let store = crate::files::store_from_config(&config.files, &config.data_dir)?;
        let mapped = read(existing(storage.as_ref(), now).await?).await?;
        let progress = progress::for_stdout();
        write(storage.as_ref(), store.as_ref(), &config, mapped, args.files.as_deref(), now, progress.as_ref()).await?
    };
    outcome.seconds = started.elapsed().as_secs_f64();
    print!("{}", summary::render(&outcome, &args.export));
    if let Some(report) = &args.report {
        std::fs::write(report, serde_json::to_vec_pretty(&outcome)?)?;
        println!("full report: {}", report.display());
    }
    Ok(outcome)
}

/// What a dry run merges into: nothing but the languages Wayfare ships.
fn dry_existing(now: Millis) -> Existing {
    Existing { languages: crate::messages::bundled_languages(now), ..Existing::default() }
}

/// What Wayfare already holds, for the mapping to merge into.
pub async fn existing(storage: &dyn Storage, now: Millis) -> anyhow::Result<Existing> {
    let mut existing = Existing { settings: storage.settings().await?, ..Existing::default() };
    for contact in storage.user_contacts().await? {
        for (map, value) in [
            (&mut existing.users_by_email, contact.email),
            (&mut existing.users_by_mobile, contact.mobile),
            (&mut existing.users_by_referral, contact.referral),
        ] {
            if !value.is_empty() {
                map.insert(value, contact.id);
            }
        }
    }
    existing.car_types = storage.car_types().await?.into_iter().map(|car_type| (car_type.id, car_type.name)).collect();
    existing.promos = storage.promos().await?.into_iter().map(|promo| (promo.id, promo.promo_name)).collect();
    existing.languages = storage.languages().await?;
    if existing.languages.is_empty() {
        // An imported language completes the dictionary Wayfare ships for its locale.
        existing.languages = crate::messages::bundled_languages(now);
    }
    Ok(existing)
}

/// Maps an export as [`run`] does (tests and tools that hold the tree).
pub async fn import_value(
    storage: &dyn Storage,
    store: &dyn FileStore,
    config: &Config,
    export: &Value,
    files: Option<&Path>,
    now: Millis,
) -> anyhow::Result<Outcome> {
    let existing = existing(storage, now).await?;
    let mapped = exicube::map_export(export, Options { now }, &existing);
    write(storage, store, config, mapped, files, now, &progress::Silent).await
}

/// What an import of this export would do, touching nothing.
pub async fn dry_run(
    config: &Config,
    mut mapped: Mapped,
    files: Option<&Path>,
    now: Millis,
) -> anyhow::Result<Outcome> {
    let mut report = std::mem::take(&mut mapped.report);
    gateways::import(None, &config.payments, &mapped.gateways, now, &mut report).await?;
    let copied = match files {
        Some(dir) => copy_files::copy(dir, &mapped.files, None, now, &mut report, &progress::Silent).await?,
        None => Default::default(),
    };
    Ok(Outcome {
        dry_run: true,
        report,
        files_copied: copied.records.len() as u64,
        files_missing: copied.missing,
        ledger_entries_written: 0,
        balance_corrections: 0,
        tables_before: BTreeMap::new(),
        tables_after: BTreeMap::new(),
        seconds: 0.0,
    })
}

/// Writes `rows` in batches of `size`, each one `write` call (one transaction).
async fn in_batches<'rows, T, F, Fut>(
    progress: &dyn Progress,
    stage: &str,
    rows: &'rows [T],
    size: usize,
    mut write: F,
) -> anyhow::Result<()>
where
    F: FnMut(&'rows [T]) -> Fut,
    Fut: std::future::Future<Output = wayfare_storage::StorageResult<()>>,
{
    progress.stage(stage, rows.len() as u64);
    for batch in rows.chunks(size) {
        write(batch).await.map_err(|error| anyhow::anyhow!("writing {stage}: {error}"))?;
        progress.advance(batch.len() as u64);
    }
    progress.finish_stage();
    Ok(())
}

/// Cuts tracking points into batches that never split a booking's points
/// (a batch replaces its bookings' imported points).
fn point_batches(points: &[ImportedPoint]) -> Vec<&[ImportedPoint]> {
    let mut batches = Vec::new();
    let mut start = 0;
    for index in 1..=points.len() {
        let at_end = index == points.len();
        if at_end || (index - start >= POINTS_BATCH && points[index].booking != points[index - 1].booking) {
            batches.push(&points[start..index]);
            start = index;
        }
    }
    batches
}

/// Copies the files, writes every record, and brings each wallet to its
/// original balance.
pub async fn write(
    storage: &dyn Storage,
    store: &dyn FileStore,
    config: &Config,
    mut mapped: Mapped,
    files: Option<&Path>,
    now: Millis,
    progress: &dyn Progress,
) -> anyhow::Result<Outcome> {
    let tables_before = storage.table_counts().await?;
    let mut report = std::mem::take(&mut mapped.report);
    let copied = match files {
        Some(dir) => copy_files::copy(dir, &mapped.files, Some(store), now, &mut report, progress).await?,
        None => {
            if !mapped.files.is_empty() {
                report.adjust("storage_files_not_copied_without_files_dir", format!("{} files", mapped.files.len()));
            }
            Default::default()
        }
    };
    mapped.set_file_urls(&copied.urls);
    progress.stage("catalogue", 1);
    let catalogue = CatalogueImport {
        settings: mapped.settings.as_ref(),
        cancel_reasons: mapped.cancel_reasons.as_deref(),
        car_types: &mapped.car_types,
        promos: &mapped.promos,
        promo_uses: &mapped.promo_uses,
        notifications: &mapped.notifications,
        languages: &mapped.languages,
    };
    storage.import_catalogue(&catalogue, now).await?;
    gateways::import(Some(storage), &config.payments, &mapped.gateways, now, &mut report).await?;
    progress.advance(1);
    progress.finish_stage();
    in_batches(progress, "users", &mapped.users, BATCH, |batch| storage.upsert_users(batch, now)).await?;
    in_batches(progress, "files", &copied.records, BATCH, |batch| storage.upsert_files(batch, now)).await?;
    // A first import loads into empty tables in one transaction each and
    // builds their indexes once; a later one upserts in batches.
    let advance = |done: u64| progress.advance(done);
    progress.stage("bookings", mapped.bookings.len() as u64);
    if storage.load_bookings(&mapped.bookings, now, &advance).await? {
        progress.finish_stage();
    } else {
        in_batches(progress, "bookings", &mapped.bookings, BATCH, |batch| storage.upsert_bookings(batch, now)).await?;
    }
    progress.stage("tracking", mapped.tracking.len() as u64);
    if !storage.load_tracking(&mapped.tracking, now, &advance).await? {
        for batch in point_batches(&mapped.tracking) {
            storage.replace_imported_tracking(batch, now).await?;
            progress.advance(batch.len() as u64);
        }
    }
    progress.finish_stage();
    in_batches(progress, "chats", &mapped.chats, BATCH * 5, |batch| storage.upsert_chats(batch, now)).await?;
    in_batches(progress, "sos", &mapped.sos, BATCH, |batch| storage.upsert_sos(batch, now)).await?;
    in_batches(progress, "withdraws", &mapped.withdraws, BATCH, |batch| storage.upsert_withdraws(batch, now)).await?;
    progress.stage("wallets", mapped.ledger.len() as u64);
    let mut written = 0;
    for batch in mapped.ledger.chunks(BATCH * 5) {
        written += storage.import_ledger(batch, now).await?;
        progress.advance(batch.len() as u64);
    }
    let corrections = correct_balances(storage, &mapped, now).await?;
    written += storage.import_ledger(&corrections, now).await?;
    progress.finish_stage();
    in_batches(progress, "kept records", &mapped.records, BATCH * 5, |batch| {
        storage.upsert_imported_records(exicube::SOURCE, batch, now)
    })
    .await?;
    progress.stage("earnings", 1);
    storage.prepare_earnings_rollup(config.reports.utc_offset_minutes).await?;
    progress.advance(1);
    progress.finish_stage();
    Ok(Outcome {
        dry_run: false,
        report,
        files_copied: copied.records.len() as u64,
        files_missing: copied.missing,
        ledger_entries_written: written,
        balance_corrections: corrections.len() as u64,
        tables_before,
        tables_after: storage.table_counts().await?,
        seconds: 0.0,
    })
}

/// After the history is written, the entries that bring each imported
/// wallet to the original's balance where it is elsewhere (an account that
/// was Wayfare's before, or a later export whose history explains the
/// balance differently).
async fn correct_balances(
    storage: &dyn Storage,
    mapped: &Mapped,
    now: Millis,
) -> anyhow::Result<Vec<exicube::LedgerLine>> {
    let keys: HashMap<uuid::Uuid, &str> = mapped
        .records
        .iter()
        .filter(|record| record.node == "users")
        .filter_map(|record| record.entity.map(|entity| (entity, record.key.as_str())))
        .collect();
    let targets: HashMap<UserId, rust_decimal::Decimal> =
        mapped.users.iter().map(|user| (user.id, user.walletBalance)).collect();
    let ids: Vec<UserId> = targets.keys().copied().collect();
    let mut corrections = Vec::new();
    for (user, balance) in storage.wallet_balances(&ids).await? {
        let (Some(target), Some(key)) = (targets.get(&user), keys.get(&user.0)) else { continue };
        corrections.extend(exicube::correction_entry(user, key, balance, *target, now));
    }
    Ok(corrections)
}
