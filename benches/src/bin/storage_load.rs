//! Fills a storage database with the benchmark city: 1,000,000 bookings,
//! 100,000 riders, 10,000 drivers and 50 fleet admins (`--small` for a
//! 5,000-booking town). The target is a SQLite file path or a `postgres://`
//! URL of an existing, empty database; migrations are applied first.
//!
//! ```sh
//! cargo run --release -p wayfare-benches --bin storage_load -- /tmp/wayfare-bench.db
//! cargo run --release -p wayfare-benches --bin storage_load -- postgres://postgres@127.0.0.1:5432/wayfare_bench
//! ```
//!
//! Another size with `--bookings N --riders N --drivers N --fleets N`, and
//! `--tracking N` adds N tracking points to every booking (the city of
//! issue #38's archive measure: `--bookings 100000 --riders 18950
//! --drivers 1000 --fleets 50 --tracking 10`).

use std::process::ExitCode;
use std::time::Instant;
use wayfare_benches::storage_data::Plan;
use wayfare_benches::storage_target::{BenchStorage, Table};

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let small = arguments.iter().any(|argument| argument == "--small");
    let number = |flag: &str| -> Option<u64> {
        let position = arguments.iter().position(|argument| argument == flag)?;
        arguments.get(position + 1)?.parse().ok()
    };
    const NUMBERS: [&str; 5] = ["--bookings", "--riders", "--drivers", "--fleets", "--tracking"];
    // The target: the argument that is neither a flag nor a flag's number.
    let Some(target) = arguments
        .iter()
        .enumerate()
        .find(|(position, argument)| {
            !argument.starts_with("--") && (*position == 0 || !NUMBERS.contains(&arguments[position - 1].as_str()))
        })
        .map(|(_, argument)| argument)
    else {
        eprintln!(
            "usage: storage_load <sqlite-file | postgres-url> [--small] [--bookings N] [--riders N] [--drivers N] [--fleets N] [--tracking N]"
        );
        return ExitCode::from(2);
    };
    let mut plan = if small { Plan::SMALL } else { Plan::FULL };
    plan.bookings = number("--bookings").unwrap_or(plan.bookings);
    plan.riders = number("--riders").unwrap_or(plan.riders);
    plan.drivers = number("--drivers").unwrap_or(plan.drivers);
    plan.fleets = number("--fleets").unwrap_or(plan.fleets);
    plan.active = plan.active.min(plan.bookings / 20);
    let tracking = number("--tracking").unwrap_or(0);
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
    let times = match times {
        Ok(times) if tracking > 0 => match storage.fill_tracking(plan, tracking).await {
            Ok(took) => {
                println!("  tracking: {} points in {:.1} s", plan.bookings * tracking, took.as_secs_f64());
                Ok(times)
            }
            Err(error) => Err(error),
        },
        other => other,
    };
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
