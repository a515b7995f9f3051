//! Storage queries the product runs most, on an already-filled database:
//! a page of a rider's bookings, the admin's bookings sorted by date with a
//! search term (rare and common terms), and the monthly earnings report.
//!
//! `WAYFARE_BENCH_STORAGE` names the database (a SQLite file or a
//! `postgres://` URL) filled by `storage_load`; `WAYFARE_BENCH_SMALL=1` if it
//! was filled with `--small`. Without it, a small SQLite town is made in a
//! temporary directory, which is what `cargo test --benches` runs once.
//!
//! ```sh
//! WAYFARE_BENCH_STORAGE=/tmp/wayfare-bench.db cargo bench -p wayfare-benches --bench storage_queries
//! ```

use criterion::{Criterion, criterion_group, criterion_main};
use std::sync::Arc;
use std::time::Duration;
use tokio::runtime::Runtime;
use wayfare_benches::storage_data::{Plan, is_common_surname};
use wayfare_benches::storage_target::BenchStorage;
use wayfare_engine::Millis;
use wayfare_storage::{BookingFilter, EarningsScope, PageRequest, Storage};

/// Baltimore in winter: UTC−5.
const UTC_OFFSET_MINUTES: i32 = wayfare_benches::storage_target::REPORT_UTC_OFFSET_MINUTES;
/// December 2025 in Baltimore, as UTC instants.
const MONTH_FROM: Millis = 1_764_565_200_000; // 2025-12-01T05:00:00Z
const MONTH_UNTIL: Millis = 1_767_243_600_000; // 2026-01-01T05:00:00Z
const PAGE: u32 = 50;

struct Bench {
    runtime: Runtime,
    storage: Arc<dyn Storage>,
    plan: Plan,
    _directory: Option<tempfile::TempDir>,
}

fn setup() -> Bench {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let target = std::env::var("WAYFARE_BENCH_STORAGE").ok();
    let small = target.is_none() || std::env::var("WAYFARE_BENCH_SMALL").is_ok_and(|value| value == "1");
    let plan = if small { Plan::SMALL } else { Plan::FULL };
    let (target, directory) = match target {
        Some(target) => (target, None),
        None => {
            let directory = tempfile::tempdir().expect("temporary directory");
            let path = directory.path().join("bench.db").display().to_string();
            (path, Some(directory))
        }
    };
    let (bench_storage, storage) = runtime.block_on(async {
        let bench_storage = BenchStorage::open(&target).await.expect("open the benchmark database");
        if directory.is_some() {
            bench_storage.fill(plan, |_, _, _| {}).await.expect("fill a small town");
        }
        let storage = bench_storage.storage();
        (bench_storage, storage)
    });
    let bench = Bench { runtime, storage, plan, _directory: directory };
    describe(&bench, &bench_storage, &target);
    bench
}

/// The search terms: a booking reference (one booking), a rare surname (of a
/// rider who books as often as most), the commonest surname, the commonest
/// street name, and a word being typed (the start of a word every booking
/// has).
fn search_terms(plan: &Plan) -> Vec<(&'static str, String)> {
    let reference = plan.booking(plan.bookings / 2).reference;
    let rare_surname = (plan.riders / 2..plan.riders)
        .map(|index| plan.rider(index).lastName)
        .find(|name| !is_common_surname(name))
        .expect("a rare surname");
    vec![
        ("reference", reference),
        ("rare_surname", rare_surname),
        ("common_surname", "Smith".to_string()),
        ("common_street", "Charles".to_string()),
        ("partial_word", "Baltimor".to_string()),
    ]
}

fn describe(bench: &Bench, bench_storage: &BenchStorage, target: &str) {
    let rider = bench.plan.rider_id(0);
    bench.runtime.block_on(async {
        let rider_bookings = bench
            .storage
            .list_bookings(
                &BookingFilter { customer: Some(rider), ..BookingFilter::default() },
                &PageRequest::first(500),
            )
            .await
            .expect("rider bookings")
            .items
            .len();
        eprintln!("storage bench on {target}: {:?}", bench.plan);
        eprintln!("  rider 0 has {rider_bookings}{} bookings", if rider_bookings == 500 { "+" } else { "" });
        for (name, term) in search_terms(&bench.plan) {
            eprintln!("  search {name} {term:?} matches {} bookings", bench_storage.count_matches(&term).await);
        }
    });
}

fn storage_queries(criterion: &mut Criterion) {
    let bench = setup();
    let mut group = criterion.benchmark_group("storage");
    group.sample_size(100).warm_up_time(Duration::from_secs(2)).measurement_time(Duration::from_secs(5));

    let rider = BookingFilter { customer: Some(bench.plan.rider_id(0)), ..BookingFilter::default() };
    group.bench_function("rider_bookings_page", |bencher| {
        bencher.iter(|| {
            let page = bench.runtime.block_on(bench.storage.list_bookings(&rider, &PageRequest::first(PAGE))).unwrap();
            assert!(!page.items.is_empty());
        })
    });

    let all = BookingFilter::default();
    group.bench_function("admin_bookings_page", |bencher| {
        bencher.iter(|| {
            let page = bench.runtime.block_on(bench.storage.list_bookings(&all, &PageRequest::first(PAGE))).unwrap();
            assert!(!page.items.is_empty());
        })
    });

    for (name, term) in search_terms(&bench.plan) {
        let filter = BookingFilter { search: Some(term), ..BookingFilter::default() };
        group.bench_function(format!("admin_search_{name}"), |bencher| {
            bencher.iter(|| {
                let page =
                    bench.runtime.block_on(bench.storage.list_bookings(&filter, &PageRequest::first(PAGE))).unwrap();
                assert!(!page.items.is_empty());
            })
        });
    }

    let month = EarningsScope {
        tripdate_from: Some(MONTH_FROM),
        tripdate_until: Some(MONTH_UNTIL),
        utc_offset_minutes: UTC_OFFSET_MINUTES,
        decimals: 2,
        ..EarningsScope::default()
    };
    group.bench_function("earnings_report_month_all_drivers", |bencher| {
        bencher.iter(|| {
            let rows = bench.runtime.block_on(bench.storage.earnings_report(&month)).unwrap();
            assert!(!rows.is_empty());
        })
    });
    group.bench_function("earnings_report_month_all_drivers_first_page", |bencher| {
        bencher.iter(|| {
            let page =
                bench.runtime.block_on(bench.storage.earnings_report_page(&month, &PageRequest::first(PAGE))).unwrap();
            assert!(!page.items.is_empty());
        })
    });
    // The 100th page: a keyset page costs the same however deep it is.
    let mut deep = PageRequest::first(PAGE);
    for _ in 0..99 {
        let page = bench.runtime.block_on(bench.storage.earnings_report_page(&month, &deep)).unwrap();
        deep.after = page.next;
        if deep.after.is_none() {
            break;
        }
    }
    group.bench_function("earnings_report_month_all_drivers_page_100", |bencher| {
        bencher.iter(|| {
            let page = bench.runtime.block_on(bench.storage.earnings_report_page(&month, &deep)).unwrap();
            assert!(!page.items.is_empty());
        })
    });
    let fleet = EarningsScope { fleetadmin: Some(bench.plan.fleetadmin(0).id), ..month.clone() };
    group.bench_function("earnings_report_month_one_fleet", |bencher| {
        bencher.iter(|| {
            let rows = bench.runtime.block_on(bench.storage.earnings_report(&fleet)).unwrap();
            assert!(!rows.is_empty());
        })
    });
    let driver = EarningsScope {
        driver: Some(bench.plan.driver(0).id),
        utc_offset_minutes: UTC_OFFSET_MINUTES,
        decimals: 2,
        ..EarningsScope::default()
    };
    group.bench_function("driver_earnings_all_months_one_driver", |bencher| {
        bencher.iter(|| {
            let rows = bench.runtime.block_on(bench.storage.driver_earnings(&driver)).unwrap();
            assert!(!rows.is_empty());
        })
    });
    group.finish();
}

criterion_group!(benches, storage_queries);
criterion_main!(benches);
