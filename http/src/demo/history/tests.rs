use super::replay::track;
use super::*;
use crate::config::DemoSeedConfig;
use rust_decimal::Decimal;
use std::collections::BTreeSet;
use wayfare_engine::{Booking, BookingStatus, PaymentMode, booking, geo, payment};
use wayfare_storage::{BookingFilter, DashboardScope, EarningsScope, PageRequest};

/// Every booking in storage, a page at a time.
async fn all_bookings(storage: &dyn Storage) -> Vec<Booking> {
    let mut bookings = Vec::new();
    let mut page = PageRequest::first(PageRequest::MAX_LIMIT);
    loop {
        let listed = storage.list_bookings(&BookingFilter::default(), &page).await.unwrap();
        bookings.extend(listed.items);
        match listed.next {
            Some(next) => page.after = Some(next),
            None => return bookings,
        }
    }
}

/// A fresh demo database seeded with `days` of history on `config`'s maps.
async fn seeded(config: &Config, days: u32, now: Millis) -> (Arc<dyn Storage>, HistorySummary) {
    let storage = wayfare_storage::open(&config.storage_url()).await.unwrap();
    let options = DemoSeedConfig { history_days: days, ..DemoSeedConfig::default() };
    assert!(super::super::seed_with(storage.as_ref(), &options).await.unwrap());
    storage.prepare_earnings_rollup(config.reports.utc_offset_minutes).await.unwrap();
    let maps = wayfare_maps::provider_from(&config.maps, &config.maps_cache_dir()).unwrap();
    let config = Config { demo_seed: options, ..config.clone() };
    let summary = seed(storage.as_ref(), &maps, &config, now).await.map_err(|error| format!("{error:#}")).unwrap();
    (storage, summary)
}

fn config_in(dir: &tempfile::TempDir) -> Config {
    Config { data_dir: dir.path().to_path_buf(), demo: true, ..Config::default() }
}

/// 2027-01-15 12:00 UTC.
const NOW: Millis = 1_800_000_000_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_days_of_history_hold_every_kind_of_record_and_keep_every_invariant() {
    let dir = tempfile::tempdir().unwrap();
    let config = config_in(&dir);
    let (storage, summary) = seeded(&config, 3, NOW).await;
    let window_start = NOW - END_BEFORE_NOW_MS - 3 * DAY_MS;
    assert_eq!(summary.days, 3);
    assert_eq!(summary.network, "straight-line");
    let audit = storage.audit().await.unwrap();
    assert!(audit.is_clean(), "{audit:?}");

    let bookings = all_bookings(storage.as_ref()).await;
    assert_eq!(bookings.len() as u64, summary.bookings);
    assert!(bookings.len() > 200, "about 150 requests a day: {}", bookings.len());
    let people: BTreeSet<UserId> =
        super::super::users().into_iter().filter(|user| !user.demo).map(|user| user.id).collect();
    for booking in &bookings {
        assert!(booking.demo, "{}", booking.reference);
        assert!(booking.bookingDate >= window_start && booking.updatedAt < NOW, "{}", booking.reference);
        assert!(!people.contains(&booking.customer), "a person's account rode: {}", booking.reference);
        assert!(booking.driver.is_none_or(|driver| !people.contains(&driver)), "{}", booking.reference);
        assert!(!booking.status.is_active(), "{} is {}", booking.reference, booking.status.as_str());
    }

    let completed: Vec<&Booking> = bookings.iter().filter(|b| b.status == BookingStatus::Complete).collect();
    let cancelled: Vec<&Booking> = bookings.iter().filter(|b| b.status == BookingStatus::Cancelled).collect();
    assert_eq!(completed.len() as u64, summary.completed);
    assert!(completed.len() > cancelled.len() && !cancelled.is_empty());
    for mode in [PaymentMode::Cash, PaymentMode::Wallet, PaymentMode::Card] {
        assert!(completed.iter().any(|b| b.payment_mode == Some(mode) && b.customer_paid > Decimal::ZERO), "{mode:?}");
    }
    assert!(
        completed
            .iter()
            .filter(|b| b.payment_mode == Some(PaymentMode::Card))
            .all(|b| b.gateway.as_deref() == Some("test"))
    );
    let rated = completed.iter().filter(|b| b.rating.is_some()).count();
    assert!(rated as u64 == summary.rated && rated > completed.len() / 2);
    assert!(completed.iter().any(|b| b.promo_applied && b.discount_amount > Decimal::ZERO));
    let reasons = super::super::cancel_reasons();
    assert!(cancelled.iter().any(|b| b.reason == booking::REASON_NO_DRIVER));
    assert!(cancelled.iter().any(|b| reasons.contains(&b.reason)));
    assert!(cancelled.iter().any(|b| b.cancellationFee > Decimal::ZERO));

    // Every trip is tracked from the accept to the drop, in time order.
    for trip in &completed {
        let points = storage.tracking(trip.id).await.unwrap();
        assert!(points.len() >= 4, "{}: {} points", trip.reference, points.len());
        assert!(points.windows(2).all(|pair| pair[0].at <= pair[1].at));
        let (first, last) = (points.first().unwrap().at, points.last().unwrap().at);
        assert!(first >= trip.acceptedAt.unwrap() && last <= trip.updatedAt, "{}", trip.reference);
    }
    // The ledger of each way of paying, as the server books it.
    let ledger_of = |mode: PaymentMode| {
        let trip = completed.iter().find(|b| b.payment_mode == Some(mode)).unwrap();
        let storage = storage.clone();
        let id = trip.id;
        async move {
            let ledger = storage.booking_ledger(id).await.unwrap();
            ledger.iter().map(|record| record.entry.txRef.split(':').next().unwrap().to_string()).collect::<Vec<_>>()
        }
    };
    assert_eq!(ledger_of(PaymentMode::Cash).await, ["DriverShare", "CashCollected"]);
    assert_eq!(ledger_of(PaymentMode::Wallet).await, ["WalletPayment", "DriverShare"]);
    assert_eq!(ledger_of(PaymentMode::Card).await, ["DriverShare"]);
    let wallet_rider = completed.iter().find(|b| b.payment_mode == Some(PaymentMode::Wallet)).unwrap().customer;
    let rider_history = storage.wallet_history(wallet_rider, &PageRequest::first(500)).await.unwrap();
    assert!(rider_history.items.iter().any(|record| record.entry.txRef == payment::TX_REF_TOP_UP));

    // Money shows on the dashboard (read from the roll-up the commits kept,
    // and the same when summed from the bookings in another offset) and in
    // the earnings report.
    let dashboard_in = |utc_offset_minutes| {
        let scope = DashboardScope { now: NOW, utc_offset_minutes, decimals: 2, ..DashboardScope::default() };
        let storage = storage.clone();
        async move { storage.dashboard_earnings(&scope).await.unwrap() }
    };
    let dashboard = dashboard_in(0).await;
    assert!(dashboard.total > Decimal::ZERO && dashboard.rides.total > 0, "{dashboard:?}");
    let summed = dashboard_in(60).await;
    assert_eq!((summed.total, summed.rides.total), (dashboard.total, dashboard.rides.total));
    let report = storage.earnings_report(&EarningsScope { decimals: 2, ..EarningsScope::default() }).await.unwrap();
    assert!(report.iter().map(|row| row.myEarning).sum::<Decimal>() > Decimal::ZERO);

    // Withdraws, most paid out; the promo counted once per rider.
    let withdraws = storage.withdraws(None, &PageRequest::first(500)).await.unwrap().items;
    assert_eq!(withdraws.len() as u64, summary.withdraws);
    assert!(withdraws.iter().any(|withdraw| withdraw.processed));
    assert!(withdraws.iter().all(|withdraw| withdraw.date >= window_start && withdraw.date < NOW));
    let promo = storage.promo_by_name(PROMO).await.unwrap().unwrap();
    assert!(promo.user_avail > 0 && u64::from(promo.user_avail) == summary.promo_uses);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_seed_makes_the_same_history() {
    let mut histories = Vec::new();
    for _ in 0..2 {
        let dir = tempfile::tempdir().unwrap();
        let (storage, summary) = seeded(&config_in(&dir), 1, NOW).await;
        let mut bookings = all_bookings(storage.as_ref()).await;
        bookings.sort_by_key(|booking| booking.id);
        let digest: Vec<_> = bookings
            .iter()
            .map(|b| (b.id, b.reference.clone(), b.status, b.customer, b.driver, b.payableAmount, b.tripdate))
            .collect();
        histories.push((summary, digest));
    }
    assert!(!histories[0].1.is_empty());
    assert_eq!(histories[0], histories[1]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_the_demo_map_trips_are_driven_and_tracked_along_its_roads() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config_in(&dir);
    config.maps.osm_file = Some(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/baltimore.osm.pbf"));
    let (storage, summary) = seeded(&config, 1, NOW).await;
    assert_eq!(summary.network, "osm");
    assert!(summary.completed > 50, "{summary:?}");
    assert!(storage.audit().await.unwrap().is_clean());
    let bookings = all_bookings(storage.as_ref()).await;
    let trip = bookings.iter().filter(|b| b.status == BookingStatus::Complete).max_by_key(|b| b.coords.len()).unwrap();
    // A road route bends: more points than its two ends, and a longer way than the crow flies.
    let points = storage.tracking(trip.id).await.unwrap();
    assert!(points.len() > 5, "{} points", points.len());
    let driven = geo::path_km(points.iter().map(|point| LatLng::new(point.lat, point.lng)));
    assert!(driven > geo::distance_km(trip.pickup.point(), trip.drop.point()));
    assert!(!trip.pickupAddress.is_empty() && !trip.dropAddress.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_demo_server_gets_its_history_on_the_start_that_seeds_it_and_never_again() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config_in(&dir);
    config.demo_seed.history_days = 1;
    let count = |state: &crate::state::AppState| {
        let storage = state.storage.clone();
        async move { all_bookings(storage.as_ref()).await.len() }
    };
    let first = crate::start(config.clone()).await.unwrap();
    let seeded = count(&first).await;
    assert!(seeded > 50, "{seeded} bookings");
    first.runtime.shutdown().await;
    drop(first);
    let again = crate::start(config).await.unwrap();
    assert_eq!(count(&again).await, seeded);
    again.runtime.shutdown().await;
}

#[test]
fn a_track_spreads_its_points_over_the_trip_by_distance() {
    // Every third point kept: evenly spaced, as the route's were.
    let coords: Vec<Coord> = (0..(TRACK_POINTS as i32 - 1) * 3 + 1)
        .map(|index| Coord { latitude: 39.28 + f64::from(index) * 0.0001, longitude: -76.58 })
        .collect();
    let points = track(&coords, 1_000, 61_000);
    assert_eq!(points.len(), TRACK_POINTS);
    assert_eq!((points[0].0, points[TRACK_POINTS - 1].0), (1_000, 61_000));
    assert!(points.windows(2).all(|pair| pair[0].0 < pair[1].0));
    // Evenly spaced points are evenly spread in time.
    let gaps: Vec<i64> = points.windows(2).map(|pair| pair[1].0 - pair[0].0).collect();
    assert!(gaps.iter().max().unwrap() - gaps.iter().min().unwrap() <= 2, "{gaps:?}");
}
