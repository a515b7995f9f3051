//! Fills a storage database with the benchmark city: 1,000,000 bookings,
//! 100,000 riders, 10,000 drivers and 50 fleet admins (`--small` for a
//! 5,000-booking town). The target is a SQLite file path or a `postgres://`
//! URL of an existing, empty database; migrations are applied first.
//!
//! ```sh
//! cargo run --release -p wayfare-benches --bin storage_load -- /tmp/wayfare-bench.db
//! cargo run --release -p wayfare-benches --bin storage_load -- postgres://postgres@127.0.0.1:5432/wayfare_bench
//! ```

use std::process::ExitCode;
use std::time::Instant;
use wayfare_benches::storage_data::Plan;
use wayfare_benches::storage_target::{BenchStorage, Table};

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let small = arguments.iter().any(|argument| argument == "--small");
    let Some(target) = arguments.iter().find(|argument| !argument.starts_with("--")) else {
        eprintln!("usage: storage_load <sqlite-file | postgres-url> [--small]");
        return ExitCode::from(2);
    };
    let plan = if small { Plan::SMALL } else { Plan::FULL };
    let storage = match BenchStorage::open(target).await {
        Ok(storage) => storage,
        Err(error) => {
            eprintln!("storage_load: cannot open {target}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let (users, bookings) = (storage.count(Table::Users).await, storage.count(Table::Bookings).await);
    if users > 0 || bookings > 0 {
        eprintln!("storage_load: {target} already holds {users} users and {bookings} bookings; use an empty database");
        return ExitCode::FAILURE;
    }
    println!(
        "filling {target}: {} bookings, {} riders, {} drivers, {} fleet admins",
        plan.bookings, plan.riders, plan.drivers, plan.fleets
    );
    let started = Instant::now();
    let report_every = (plan.bookings / 10).max(1);
    let times = storage
        .fill(plan, |what, done, total| {
            if what == "bookings" && (done % report_every == 0 || done == total) {
                println!("  {what}: {done}/{total} after {:.1} s", started.elapsed().as_secs_f64());
            }
        })
        .await;
    match times {
        Ok(times) => {
            println!(
                "done in {:.1} s: users {:.1} s, bookings {:.1} s, statistics and index merge {:.1} s",
                started.elapsed().as_secs_f64(),
                times.users.as_secs_f64(),
                times.bookings.as_secs_f64(),
                times.prepare.as_secs_f64()
            );
            println!(
                "rows: {} users, {} bookings",
                storage.count(Table::Users).await,
                storage.count(Table::Bookings).await
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("storage_load: {error}");
            ExitCode::FAILURE
        }
    }
}
